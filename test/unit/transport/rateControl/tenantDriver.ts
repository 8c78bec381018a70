import type { VirtualClock } from '../../../../bench/sim/virtualClock';
import type { RequestReport, Tenant } from '../../../../nodes/shared/transport/rateControl';

// Driving a controller's tenant on a virtual clock, for the tests of the controller as a whole: asking
// for starts, answering them as a test says. `clockNow` gives the clock of the test under way (each test
// makes a fresh one).

export function driveTenant(clockNow: () => VirtualClock) {
	/** Asks for `count` starts; what each was told and the times of the `go`s, filled in as time passes. */
	function starts(tenant: Tenant, count: number, notAfter?: number) {
		const result = { at: [] as number[], told: [] as string[] };
		for (let index = 0; index < count; index++)
			void tenant.acquire(notAfter).then((acquired) => {
				result.told.push(acquired.kind);
				if (acquired.kind === 'go') result.at.push(acquired.sentAt);
			});
		return result;
	}

	/** One request through the controller (time moves as it must for it to start), answered at once as told. */
	async function answer(tenant: Tenant, report: Omit<RequestReport, 'sentAt'>): Promise<number> {
		const permit = await clockNow().run(tenant.acquire());
		if (permit.kind !== 'go') throw new Error(`expected a start, got ${permit.kind}`);
		tenant.release({ sentAt: permit.sentAt, ...report });
		return permit.sentAt;
	}

	/**
	 * `count` requests started together, then (`latencyMs` later) their answers: the first `admitted` 200,
	 * the rest 429. Returns when each was sent.
	 */
	async function burst(
		tenant: Tenant,
		count: number,
		admitted: number,
		refusal: Omit<RequestReport, 'sentAt' | 'status'> = {},
		latencyMs = 0,
	): Promise<number[]> {
		const clock = clockNow();
		const permits = await clock.run(
			Promise.all(Array.from({ length: count }, async () => await tenant.acquire())),
		);
		await clock.advance(latencyMs);
		const sent = permits.map((permit) => (permit.kind === 'go' ? permit.sentAt : Number.NaN));
		sent.forEach((sentAt, index) =>
			tenant.release(
				index < admitted ? { sentAt, status: 200 } : { sentAt, status: 429, ...refusal },
			),
		);
		return sent;
	}

	return { starts, answer, burst };
}
