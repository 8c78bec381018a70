import type { Scenario } from '../../../../bench/sim/catalogue';
import type { RegistrySpec } from '../../../../bench/sim/registry';
import { runScenario, type ScenarioResult } from '../../../../bench/sim/simulate';
import { RateController } from '../../../../nodes/shared/transport/rateControl';

/** The registry a class's case starts from: a bucket of 20/s, burst 20, telling nothing, 40 ms away. */
export const CLASS_REGISTRY: RegistrySpec = {
	limiter: { family: 'token-bucket', ratePerSecond: 20, burst: 20 },
	headers: 'none',
	headersOn: 'always',
	resetAs: 'seconds',
	retryAfter: 'seconds',
	nonsense: 'none',
	latencyMs: 40,
	jitterMs: 0,
	faultShare: 0,
};

/**
 * One bench:sim scenario of a class, run as bench:sim runs it (the real batch runner and controller on
 * a virtual clock against a simulated registry, at the node's defaults), with no lookup ever stranded.
 */
export async function runClass(
	registry: Partial<RegistrySpec>,
	sheet: Partial<Omit<Scenario, 'registry'>> = {},
): Promise<ScenarioResult> {
	const scenario: Scenario = {
		name: 's0',
		registry: {
			...CLASS_REGISTRY,
			...registry,
		},
		processes: 1,
		executions: 1,
		rows: 100,
		noToken: false,
		spentQuota: false,
		...sheet,
	};
	return await runScenario(scenario, 1, {
		invariant: () => expect(RateController.strandedAnywhere()).toBe(0),
	});
}
