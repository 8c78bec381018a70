import { guardScenarios } from '../../../../bench/sim/guards';
import { SimulatedRegistry } from '../../../../bench/sim/registry';
import { runScenario } from '../../../../bench/sim/simulate';
import { VirtualClock } from '../../../../bench/sim/virtualClock';
import { RateController } from '../../../../nodes/shared/transport/rateControl';

// bench:sim --guards, in the suite: registries that broke rules which passed all of bench:sim's catalogue
// (an enforced quota whose count lags, with and without Retry-After; a raised Max Rate-Limit Wait; a
// registry refusing everything). A rule for the rate controller must keep each of them.
describe('bench:sim guards (registries the catalogue does not draw)', () => {
	it.each(guardScenarios().map((guard) => [guard.scenario.name, guard] as const))(
		'%s: as expected',
		async (_name, guard) => {
			const result = await runScenario(guard.scenario, 1, {
				invariant: () => expect(RateController.strandedAnywhere()).toBe(0),
			});
			expect(guard.broken(result)).toEqual([]);
		},
	);
});

describe("the guards' registries", () => {
	it('an enforced quota lets limit + behind through in its window, telling 0 for the last `behind`, then refuses until the window ends', async () => {
		const clock = new VirtualClock();
		const registry = new SimulatedRegistry(
			clock,
			{
				...guardScenarios()[0].scenario.registry,
				longQuota: { limit: 3, windowMs: 60_000, enforced: { behind: 1, retryAfterS: 7 } },
				latencyMs: 0,
				jitterMs: 0,
			},
			() => 0.5,
		);
		const send = async () => {
			const answer = await clock.run(
				registry.request({ countryCode: 'de', companyId: '1' }, 'answer'),
			);
			if (answer.kind !== 'response') throw new Error(answer.kind);
			return answer;
		};
		const answers = [];
		for (let index = 0; index < 5; index++) answers.push(await send());
		expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 200, 429]);
		expect(answers.map((answer) => answer.headers['x-ratelimit-remaining'])).toEqual([
			'1',
			'0',
			'0',
			'0',
			'0',
		]);
		expect(answers[4].headers['retry-after']).toBe('7');
		await clock.advance(60_000);
		expect((await send()).status).toBe(200);
	});

	it('a registry refusing everything answers 429 with no rate-limit header', async () => {
		const clock = new VirtualClock();
		const registry = new SimulatedRegistry(
			clock,
			{
				...guardScenarios()[0].scenario.registry,
				refusesAll: true,
				headers: 'none',
				longQuota: undefined,
			},
			() => 0.5,
		);
		const answer = await clock.run(
			registry.request({ countryCode: 'de', companyId: '1' }, 'answer'),
		);
		expect(answer).toEqual({ kind: 'response', status: 429, headers: {}, body: {} });
	});
});
