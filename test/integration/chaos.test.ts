import { runChaosSheet } from '../../harness/chaos';
import { elsewhereServer } from '../../harness/elsewhereServer';
import { startSandbox, type Sandbox } from '../../sandbox/server';

// The fast subset of `npm run test:chaos` (issue 21): one seeded sheet per On Error mode and the tool
// variant, against a sandbox drawing every misbehaviour it knows. A failure names its seed:
// `npm run test:chaos -- --seed N` replays it.
describe('chaos registry (fast subset)', () => {
	let sandbox: Sandbox;
	let elsewhere: Awaited<ReturnType<typeof elsewhereServer>>;
	beforeAll(async () => {
		sandbox = await startSandbox({ port: 0, rateLimit: { ratePerSecond: 1000, burst: 1000 } });
		elsewhere = await elsewhereServer();
	});
	afterAll(async () => {
		await elsewhere.close();
		await sandbox.close();
	});

	it.each([1, 2, 3, 4])('seed %i holds every invariant', async (seed) => {
		const result = await runChaosSheet(sandbox, elsewhere, seed);
		expect({ seed, mode: result.sheet.mode, violations: result.violations }).toEqual({
			seed,
			mode: result.sheet.mode,
			violations: [],
		});
	});
});
