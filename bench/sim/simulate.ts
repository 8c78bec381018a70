import { RateController } from '../../nodes/shared/transport/rateControl';
import type { LookupTraceEntry } from '../../sandbox/server';
import type { RegistryRequest } from '../../nodes/shared/transport/registryRequest';
import { floorMs, type Scenario } from './catalogue';
import { seededRandom } from './random';
import { ARRIVAL_MS, SimulatedRegistry } from './registry';
import { NODE_DEFAULTS, runSheet } from './sheet';
import { VIRTUAL_EPOCH, VirtualClock, type VirtualClockOptions } from './virtualClock';

/**
 * A limit "lets the sheet finish within Max Rate-Limit Wait" when even the ideal schedule ends within
 * this share of it: a row's wait counts from its own first 429, which an ideal client would not meet
 * either, so right at the edge a row may fail that no schedule could have saved.
 */
const WAITABLE_SHARE = 0.8;

export interface ScenarioResult {
	scenario: Scenario;
	/** When the run started, virtual epoch ms (a window aligned to the clock has this much of it gone). */
	startedAt: number;
	/** From the start to the last row's outcome, in virtual ms. */
	ms: number;
	floorMs: number | undefined;
	vsFloor: number | undefined;
	/** 429s of all requests the registry counted. */
	share429: number;
	/** Rows failed with 429 where the limit let the sheet finish within Max Rate-Limit Wait. */
	failedByLimit: number;
	/** Rows failed otherwise (transient faults out of attempts, a spent quota's rows). */
	otherFailed: number;
	/** The limit lets every row finish within Max Rate-Limit Wait: the targets apply. */
	eligible: boolean;
	/** Rows that got an outcome other than "cancelled" (each row gets exactly one). */
	rowsAnswered: number;
	/** Rows that failed with 429, whether or not the limit let them finish (failedByLimit counts only those it did). */
	rowsRateLimited: number;
	/** Of those, rows given up unsent or at once because the registry let none of their execution's through (refusalStreak.ts). */
	rowsGivenUp: number;
	/** Requests the registry counted, and its 429s. */
	requests: number;
	refused: number;
}

/**
 * A run that starts `startedAt` (epoch ms, or ms past a whole second) into a window of a second aligned
 * to the clock, as a real run starts anywhere in one (issue 20 item 5): only the start within the second
 * counts. bench:sim's `--phase`, phaseSweep.ts and test:n8n's scale check all start the sim through here.
 */
export const startingWithinSecond = (startedAt: number): VirtualClockOptions => ({
	start: VIRTUAL_EPOCH + (((startedAt % 1000) + 1000) % 1000),
});

/** One scenario (seed 1 unless told) started `startedAt` into a window of a second (startingWithinSecond). */
export async function simulatedWindowAt(
	scenario: Scenario,
	startedAt: number,
	seed = 1,
): Promise<ScenarioResult> {
	return await runScenario(scenario, seed, startingWithinSecond(startedAt));
}

/** Runs one scenario: every process and execution at once, on one virtual clock, against one registry. */
export async function runScenario(
	scenario: Scenario,
	seed: number,
	clockOptions: VirtualClockOptions = {},
	trace?: (line: string) => void,
	requestLog?: LookupTraceEntry[],
): Promise<ScenarioResult> {
	RateController.forgetAll();
	const clock = new VirtualClock(clockOptions);
	const scenarioSeed = seed * 100_003 + Number(scenario.name.replace(/\D/g, ''));
	const random = seededRandom(scenarioSeed);
	const registry = new SimulatedRegistry(clock, scenario.registry, random);
	const startedAt = clock.now();
	const sheets = [];
	const maxRateLimitWaitMs = scenario.maxRateLimitWaitMs ?? NODE_DEFAULTS.maxRateLimitWaitMs;
	const perProcess = Array.from({ length: scenario.processes }, () => ({ sent: 0, refused: 0 }));
	for (let process = 0; process < scenario.processes; process++) {
		// Each process's controller draws its chance from a stream of its own (a worker's Math.random):
		// made here, before its sheets, which find it under the same key (sheet.ts).
		RateController.for(`sim p${process}`, clock, seededRandom(scenarioSeed * 31 + process + 1));
		const counts = perProcess[process];
		const loop = eventLoop(clock);
		const cpu = scenario.clientCpuMs;
		const request: RegistryRequest = async (...args) => {
			counts.sent += 1;
			const sentAt = clock.now();
			if (cpu) await loop(cpu.send);
			const arrivedAt = clock.now() + ARRIVAL_MS;
			const answer = await registry.request(...args);
			if (cpu) await loop(cpu.answer);
			if (answer.kind === 'response' && answer.status === 429) counts.refused += 1;
			requestLog?.push({
				arrivedAt: cpu ? arrivedAt : sentAt + ARRIVAL_MS,
				answeredAt: clock.now(),
				status: answer.kind === 'response' ? answer.status : 0,
			});
			return answer;
		};
		for (let execution = 0; execution < scenario.executions; execution++) {
			sheets.push(
				runSheet(
					clock,
					trace || requestLog || scenario.clientCpuMs ? request : registry.request,
					scenario.rows,
					{
						process: `p${process}`,
						execution,
						tokenWasStored: !scenario.noToken,
						settings: { maxRateLimitWaitMs },
						random,
					},
				),
			);
		}
	}
	const all = Promise.all(sheets);
	if (trace) void traceEverySecond(clock, all, perProcess, trace);
	const results = await clock.run(all);
	const ms = clock.now() - startedAt;
	const floor = floorMs(scenario, startedAt, NODE_DEFAULTS.maxConcurrency);
	const eligible = floor !== undefined && floor <= WAITABLE_SHARE * maxRateLimitWaitMs;
	const rows = results.flatMap((result) => result.rows);
	const rateLimited = rows.filter((row) => row === 'rate-limited').length;
	const givenUp = results
		.flatMap((result) => result.outcomes)
		.filter(
			(outcome) =>
				outcome.kind === 'failed' &&
				outcome.failure.kind === 'rate-limited' &&
				outcome.failure.refusedThroughout === true,
		).length;
	return {
		scenario,
		startedAt,
		ms,
		floorMs: floor,
		vsFloor: floor === undefined ? undefined : ms / floor,
		share429: registry.counters.rateLimited / Math.max(1, registry.counters.requests),
		failedByLimit: eligible ? rateLimited : 0,
		otherFailed: rows.filter((row) => row !== 'record').length - (eligible ? rateLimited : 0),
		eligible,
		rowsAnswered: rows.filter((row) => row !== 'cancelled' && row !== undefined).length,
		rowsRateLimited: rateLimited,
		rowsGivenUp: givenUp,
		requests: registry.counters.requests,
		refused: registry.counters.rateLimited,
	};
}

/**
 * One process's event loop (issue 20 item 5, traced in real n8n): what it spends per lookup runs one
 * piece at a time, so requests started together leave one after another, and an answer waits its turn
 * before the controller hears it. Resolves once this piece of work is done.
 */
export function eventLoop(clock: VirtualClock): (busyMs: number) => Promise<void> {
	let freeAt = Number.NEGATIVE_INFINITY;
	return async (busyMs) => {
		const done = Math.max(clock.now(), freeAt) + busyMs;
		freeAt = done;
		await clock.sleep(done - clock.now());
	};
}

/** Each second of virtual time: per process, requests sent and refused in it, and its controller's pace. */
async function traceEverySecond(
	clock: VirtualClock,
	work: Promise<unknown>,
	perProcess: { sent: number; refused: number }[],
	trace: (line: string) => void,
): Promise<void> {
	let done = false;
	void work.finally(() => {
		done = true;
	});
	const last = perProcess.map(() => ({ sent: 0, refused: 0 }));
	const startedAt = clock.now();
	while (!done) {
		await clock.sleep(1000);
		const parts = perProcess.map((counts, process) => {
			const controller = RateController.for(`sim p${process}`, clock);
			const line = `p${process} sent=${counts.sent - last[process].sent} 429=${counts.refused - last[process].refused} pace=${controller.pace?.toFixed(1) ?? '-'}`;
			last[process] = { ...counts };
			return line;
		});
		trace(`t=${((clock.now() - startedAt) / 1000).toFixed(0)}s ${parts.join(' | ')}`);
	}
}

const quantile = (sorted: number[], q: number) =>
	sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];

/** The last line of bench:sim (issue 20's format). */
export function summarize(results: ScenarioResult[], wallSeconds: number): string {
	const eligible = results.filter((result) => result.eligible);
	const ratios = eligible.map((result) => result.vsFloor!).sort((a, b) => a - b);
	const worst = eligible.reduce<ScenarioResult | undefined>(
		(found, result) => (found === undefined || result.vsFloor! > found.vsFloor! ? result : found),
		undefined,
	);
	// The 429 target is for one process: workers sharing a limit discover each other only through 429s.
	const single = eligible.filter((result) => result.scenario.processes === 1);
	const max429 = Math.max(0, ...single.map((result) => result.share429));
	const failedByLimit = results.reduce((sum, result) => sum + result.failedByLimit, 0);
	return `bench:sim scenarios=${results.length} median_vs_floor=${quantile(ratios, 0.5)?.toFixed(3)} p95_vs_floor=${quantile(ratios, 0.95)?.toFixed(3)} worst_vs_floor=${worst?.vsFloor?.toFixed(3)} worst=${worst?.scenario.name} max_429_share=${max429.toFixed(4)} rows_failed_by_limit=${failedByLimit} wall_s=${wallSeconds.toFixed(1)}`;
}
