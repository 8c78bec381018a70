import { matrixScenarios } from '../../../bench/sim/catalogue';
import { eventLoop } from '../../../bench/sim/simulate';
import { VirtualClock } from '../../../bench/sim/virtualClock';

// Issue 20 item 5, traced in real n8n: the node's process spends about 3.85 ms of CPU per lookup on its
// one event loop, so requests started together leave one after another. bench:sim's test:n8n scenario
// models it; the catalogue's registries judge the controller alone.
describe("bench:sim's client event loop", () => {
	it('runs one piece of work at a time: pieces asked together end one after another', async () => {
		const clock = new VirtualClock();
		const loop = eventLoop(clock);
		const start = clock.now();
		const ended: number[] = [];
		const pieces = [2, 2, 2].map(async (busyMs) => {
			await loop(busyMs);
			ended.push(clock.now() - start);
		});
		await clock.run(Promise.all(pieces));
		expect(ended).toEqual([2, 4, 6]);
		// Once it is free, a piece starts at once.
		await clock.advance(10);
		const before = clock.now();
		await clock.run(loop(3));
		expect(clock.now() - before).toBe(3);
	});

	it("is test:n8n's scenario's, measured there, and no catalogue registry's", () => {
		const matrix = matrixScenarios();
		const cpu = (name: string) => matrix.find((scenario) => scenario.name === name)?.clientCpuMs;
		expect(cpu('n8n-fixed-window-no-headers')).toEqual({ send: 1.9, answer: 1.9 });
		expect(matrix.filter((scenario) => scenario.clientCpuMs !== undefined)).toHaveLength(1);
	});
});
