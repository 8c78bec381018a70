import { VirtualClock } from '../../../../bench/sim/virtualClock';
import { RateController } from '../../../../nodes/shared/transport/rateControl';

// What a registry nobody has heard from is taken to be: no limit shown, no congestion remembered.

describe('a registry nobody has heard from', () => {
	it('takes its first 429, though it says to wait an hour, for one company: the others go on within seconds', async () => {
		const clock = new VirtualClock();
		RateController.forgetAll();
		const tenant = new RateController(clock).join({ maxConcurrency: 5 });
		const permit = await clock.run(tenant.acquire());
		if (permit.kind !== 'go') throw new Error(`expected a start, got ${permit.kind}`);
		tenant.release({ sentAt: permit.sentAt, status: 429, retryAfterMs: 3_600_000 });
		const refusedAt = clock.now();
		const sent: number[] = [];
		void tenant.acquire().then((acquired) => acquired.kind === 'go' && sent.push(acquired.sentAt));
		await clock.advance(10_000);
		expect(sent).toHaveLength(1);
		expect(sent[0] - refusedAt).toBeLessThan(10_000);
	});
});
