import { engineFor, expectEachRowOnce, runRows } from '../../harness/fixtures';
import { startSandbox, type Sandbox } from '../../sandbox/server';

// Issue 21 (7): a 4-second total outage (503) after 100 answers failed 399 of 500 rows with "seems to be
// down". The breaker holds the rows while it probes (half-open), and a retry saves them once the
// registry is back.

describe('a short total outage mid-sheet', () => {
	let sandbox: Sandbox;
	beforeAll(async () => {
		sandbox = await startSandbox({ port: 0 });
	});
	afterAll(async () => await sandbox.close());

	it('4 s of 503 after 100 answers, 500 rows: every row is answered, none failed', async () => {
		const engine = engineFor(sandbox);
		await runRows(engine, [{ country: 'de', companyId: 'HRB12345' }]); // a token is stored
		sandbox.resetCounters();
		let outage: NodeJS.Timeout | undefined;
		sandbox.onLookup((count) => {
			if (count !== 100) return;
			sandbox.setRegistryDown('503');
			outage = setTimeout(() => sandbox.setRegistryDown(undefined), 4000);
		});
		try {
			const rows = Array.from({ length: 500 }, (_, index) => ({
				country: 'gb',
				companyId: String(80_000_000 + index),
			}));
			const branches = await runRows(engine, rows, { onError: 'continueErrorOutput' });
			expectEachRowOnce(branches, 500);
			expect(branches.errors.map((item) => item.json.error)).toEqual([]);
			expect(branches.notRegistered).toHaveLength(500);
			// Held, not hammered: the rows in flight when it went down, and a probe now and then.
			expect(sandbox.counters.lookupsByStatus[503]).toBeLessThan(100);
		} finally {
			clearTimeout(outage);
			sandbox.onLookup(undefined);
			sandbox.setRegistryDown(undefined);
		}
	});
});
