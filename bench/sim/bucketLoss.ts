// npx tsx bench/sim/bucketLoss.ts [--seed 1] [--only s31,s160]
// Where the time beyond the floor goes for the eligible single-process token buckets (issue 20's
// largest class off target): the admissions' own story against the ideal pace, min(the bucket's rate,
// Max Concurrency per round trip). `reach` is when a second first admitted 90% of that pace; `start`
// is the time lost before it (elapsed less the ideal time of what was admitted by then), `after` the
// rest of the loss; each with its 429s. A bucket of a small burst at a high rate loses its first seconds
// (the first wave's pause and the search up from a lower bound); one at a few a second its steady pace.
import { parseArgs } from 'node:util';

import type { LookupTraceEntry } from '../../sandbox/server';
import { describe, drawScenarios } from './catalogue';
import { ARRIVAL_MS } from './registry';
import { NODE_DEFAULTS } from './sheet';
import { runScenario } from './simulate';

const { values } = parseArgs({
	options: {
		seed: { type: 'string', default: '1' },
		only: { type: 'string' },
	},
});

/** The share of the ideal pace a second must admit to count as having reached it. */
const REACHED = 0.9;

async function main(): Promise<void> {
	const seed = Number(values.seed);
	const only = values.only?.split(',');
	const scenarios = drawScenarios(seed, 300).filter(
		(scenario) =>
			(only === undefined || only.includes(scenario.name)) &&
			(scenario.registry.limiter.family ?? 'token-bucket') === 'token-bucket' &&
			scenario.processes === 1 &&
			!scenario.spentQuota,
	);
	for (const scenario of scenarios) {
		const log: LookupTraceEntry[] = [];
		const result = await runScenario(scenario, seed, {}, undefined, log);
		if (!result.eligible) continue;
		const { latencyMs, jitterMs, limiter } = scenario.registry;
		const roundTripMs = 2 * ARRIVAL_MS + latencyMs + jitterMs / 2;
		const concurrency = NODE_DEFAULTS.maxConcurrency * scenario.executions;
		const ideal = Math.min(limiter.ratePerSecond, (concurrency * 1000) / roundTripMs);
		const admitted = log
			.filter((entry) => entry.status === 200)
			.map((entry) => entry.arrivedAt - result.startedAt);
		const refused = log
			.filter((entry) => entry.status === 429)
			.map((entry) => entry.arrivedAt - result.startedAt);
		// The first moment a trailing second admitted REACHED of the ideal pace.
		let reach = result.ms;
		for (let index = 0, from = 0; index < admitted.length; index++) {
			while (admitted[from] < admitted[index] - 1000) from += 1;
			if (admitted[index] >= 1000 && index - from + 1 >= REACHED * ideal) {
				reach = admitted[index];
				break;
			}
		}
		const admittedBefore = admitted.filter((at) => at <= reach).length;
		const startLoss = Math.max(0, reach - (1000 * admittedBefore) / ideal);
		const extra = result.ms - result.floorMs!;
		const refusedBefore = refused.filter((at) => at <= reach).length;
		console.log(
			`${scenario.name} vs_floor=${result.vsFloor!.toFixed(3)} share=${result.share429.toFixed(3)} ideal=${ideal.toFixed(1)}/s extra_s=${(extra / 1000).toFixed(2)} reach_s=${(reach / 1000).toFixed(2)} start_loss_s=${(startLoss / 1000).toFixed(2)} after_loss_s=${((extra - startLoss) / 1000).toFixed(2)} 429_start=${refusedBefore} 429_after=${refused.length - refusedBefore} | ${describe(scenario)}`,
		);
	}
}

void main();
