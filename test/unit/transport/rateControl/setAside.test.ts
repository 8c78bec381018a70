import { VirtualClock } from '../../../../bench/sim/virtualClock';
import { RateController, type Acquired } from '../../../../nodes/shared/transport/rateControl';

// Tenant.setAside (a token renewal began): the execution's waiting lookups leave the queue holding no
// permit, so the next start goes to whoever asks next (the renewal's resend), not to them.
it('sets aside every waiting lookup of the execution, without a permit, and the next to ask starts first', async () => {
	const clock = new VirtualClock();
	const controller = new RateController(clock);
	const tenant = controller.join({ maxConcurrency: 5, maxRequestsPerSecond: 1 });
	const first = await tenant.acquire();
	expect(first.kind).toBe('go');
	const told: Acquired[] = [];
	for (let index = 0; index < 3; index++)
		void tenant.acquire().then((acquired) => told.push(acquired));
	tenant.setAside();
	await clock.advance(0);
	expect(told).toEqual([{ kind: 'setAside' }, { kind: 'setAside' }, { kind: 'setAside' }]);
	expect(tenant.queue).toHaveLength(0);
	expect(tenant.inFlight).toBe(1);
	const renewal = tenant.acquire();
	await clock.advance(1_000);
	await expect(renewal).resolves.toEqual({ kind: 'go', sentAt: clock.now() });
});
