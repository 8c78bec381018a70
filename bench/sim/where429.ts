// npx tsx bench/sim/where429.ts [--seed 1] [--kind bucket] [--procs 1] [--only s12] [--all] [--list]
// Where one process's 429s come from, by the controller's phase when each refused request left:
// - first-wave: before any answer reached the process (the whole concurrency at once);
// - unknown: answers came, but no limit is known yet (slow start, a first 429 that measured nothing);
// - search: paced, no wave since the pace was first measured (climbing from a first wave's figure);
// - recovery: paced, climbing back to the last wave's rate;
// - probe: paced, at or beyond the last wave's rate;
// - budget / window: the registry's told count or window governs;
// - after-fault: any of the above, sent within a second after a transient fault's answer (a 503 or a
//   dropped connection) in the same process.
// By default only eligible single-process token buckets above 2% 429s (bench:sim's issue-20 class).
import { parseArgs } from 'node:util';

import { RateController } from '../../nodes/shared/transport/rateControl';
import { limitOf } from '../../nodes/shared/transport/rateControl/modes';
import type { ControlState } from '../../nodes/shared/transport/rateControl/state';
import type { RegistryRequest } from '../../nodes/shared/transport/registryRequest';
import { describe, drawScenarios, floorMs, type Scenario } from './catalogue';
import { seededRandom } from './random';
import { SimulatedRegistry } from './registry';
import { NODE_DEFAULTS, runSheet } from './sheet';
import { VirtualClock } from './virtualClock';

const PHASES = [
	'first-wave',
	'unknown',
	'search',
	'recovery',
	'probe',
	'budget',
	'window',
	'after-fault',
] as const;
type Phase = (typeof PHASES)[number];

const { values } = parseArgs({
	options: {
		seed: { type: 'string', default: '1' },
		count: { type: 'string', default: '300' },
		kind: { type: 'string', default: 'bucket' },
		procs: { type: 'string', default: '1' },
		only: { type: 'string' },
		all: { type: 'boolean', default: false },
		list: { type: 'boolean', default: false },
	},
});

interface Tally {
	requests: number;
	refused: Record<Phase, number>;
	sent: Record<Phase, number>;
	firstWaveSize: number;
	share: number;
	vsFloor: number;
	eligible: boolean;
}

function phaseOf(
	state: ControlState,
	now: number,
	answersSoFar: number,
	lastFaultAt: number,
): Phase {
	if (answersSoFar === 0) return 'first-wave';
	if (now - lastFaultAt < 1000) return 'after-fault';
	const limit = limitOf(state, now);
	if (limit.kind === 'window') return 'window';
	if (limit.kind === 'headerBudget') return 'budget';
	if (limit.kind === 'unknown') return 'unknown';
	const { ceiling, rate } = state.pace;
	if (ceiling === undefined) return 'search';
	return rate! < 0.97 * ceiling ? 'recovery' : 'probe';
}

async function measure(scenario: Scenario, seed: number): Promise<Tally> {
	RateController.forgetAll();
	const clock = new VirtualClock();
	const scenarioSeed = seed * 100_003 + Number(scenario.name.replace(/\D/g, ''));
	const random = seededRandom(scenarioSeed);
	const registry = new SimulatedRegistry(clock, scenario.registry, random);
	const startedAt = clock.now();
	const zero = () => Object.fromEntries(PHASES.map((p) => [p, 0])) as Record<Phase, number>;
	const tally: Tally = {
		requests: 0,
		refused: zero(),
		sent: zero(),
		firstWaveSize: 0,
		share: 0,
		vsFloor: 0,
		eligible: false,
	};
	const sheets = [];
	for (let process = 0; process < scenario.processes; process++) {
		const controller = RateController.for(
			`sim p${process}`,
			clock,
			seededRandom(scenarioSeed * 31 + process + 1),
		);
		let answers = 0;
		let lastFaultAt = Number.NEGATIVE_INFINITY;
		const request: RegistryRequest = async (...args) => {
			const now = clock.now();
			const state = (controller as unknown as { state: ControlState }).state;
			const phase = phaseOf(state, now, answers, lastFaultAt);
			if (phase === 'first-wave') tally.firstWaveSize += 1;
			tally.sent[phase] += 1;
			const answer = await registry.request(...args);
			answers += 1;
			if (answer.kind === 'response' && answer.status === 429) tally.refused[phase] += 1;
			else if (
				answer.kind === 'no-response' ||
				(answer.kind === 'response' && answer.status >= 500)
			)
				lastFaultAt = clock.now();
			return answer;
		};
		for (let execution = 0; execution < scenario.executions; execution++)
			sheets.push(
				runSheet(clock, request, scenario.rows, {
					process: `p${process}`,
					execution,
					tokenWasStored: !scenario.noToken,
					random,
				}),
			);
	}
	await clock.run(Promise.all(sheets));
	const floor = floorMs(scenario, startedAt, NODE_DEFAULTS.maxConcurrency);
	tally.requests = registry.counters.requests;
	tally.share = registry.counters.rateLimited / Math.max(1, registry.counters.requests);
	tally.vsFloor = floor === undefined ? 0 : (clock.now() - startedAt) / floor;
	tally.eligible = floor !== undefined && floor <= 0.8 * NODE_DEFAULTS.maxRateLimitWaitMs;
	return tally;
}

async function main(): Promise<void> {
	const seed = Number(values.seed);
	const kind = values.kind === 'bucket' ? 'token-bucket' : values.kind;
	const scenarios = drawScenarios(seed, Number(values.count)).filter(
		(scenario) =>
			(values.only === undefined || scenario.name === values.only) &&
			(values.only !== undefined ||
				((kind === 'any' || scenario.registry.limiter.family === kind) &&
					(values.procs === 'any' || scenario.processes === Number(values.procs)) &&
					!scenario.spentQuota)),
	);
	const total = Object.fromEntries(PHASES.map((p) => [p, 0])) as Record<Phase, number>;
	const scenariosWith = { ...total };
	let refusedAll = 0;
	let counted = 0;
	for (const scenario of scenarios) {
		const tally = await measure(scenario, seed);
		if (!tally.eligible && values.only === undefined) continue;
		if (tally.share <= 0.02 && !values.all && values.only === undefined) continue;
		counted += 1;
		const refused = PHASES.reduce((sum, p) => sum + tally.refused[p], 0);
		refusedAll += refused;
		for (const p of PHASES) {
			total[p] += tally.refused[p];
			// The phase whose 429s alone would put the scenario above 2%.
			if (tally.refused[p] > 0.02 * tally.requests) scenariosWith[p] += 1;
		}
		if (values.list || values.only !== undefined)
			console.log(
				`${scenario.name} share=${tally.share.toFixed(3)} vs_floor=${tally.vsFloor.toFixed(3)} requests=${tally.requests} 429=${refused} first_wave_sent=${tally.firstWaveSize} | ${PHASES.filter(
					(p) => tally.sent[p] > 0,
				)
					.map((p) => `${p} ${tally.refused[p]}/${tally.sent[p]}`)
					.join(', ')} | ${describe(scenario)}`,
			);
	}
	console.log(
		`where429 seed=${seed} scenarios=${counted} 429s=${refusedAll} | ${PHASES.map(
			(p) =>
				`${p} ${total[p]} (${((100 * total[p]) / Math.max(1, refusedAll)).toFixed(0)}%, alone>2% in ${scenariosWith[p]})`,
		).join('; ')}`,
	);
}

void main();
