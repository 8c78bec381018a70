// test:n8n, issue "Fill any registry's rate limit": a 2,000-row sheet in a real n8n against the sandbox
// (50 ms latency with jitter): a token bucket of 100 requests/s with bursts of 100, once with
// X-RateLimit-* on every answer (family 1) and once with rate-limit headers only on 429s (family 2);
// a token bucket of 100/s with a burst of 1 that tells its count on every answer and no Retry-After
// (issue 20: its Reset reads as a window of one a second); and (issue 20 item 5) a fixed window of 100
// per second that says nothing: 429s with no Retry-After and no rate-limit headers. Prints the node's
// own execution time beside the floor; each must stay within 1.10x (the burst of one within 2.5x, not
// yet there: see its family).
// TEST_N8N_SCALE_FAMILIES=scaleWindowBare (ids, joined by commas) runs only those families, and
// TEST_N8N_SCALE_RUNS=<n> each n times (a fixed window's figure depends on where in a window it starts);
// TEST_N8N_TRACE=<folder> writes, per family, the run told request by request (issue 20 item 5): the
// sandbox's arrivals, statuses and answers, and the controller inside n8n (lib/controllerTrace.cjs),
// for `npx tsx bench/sim/windowTrace.ts` to set beside bench:sim's trace of the same limiter.
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';

import {
	startSandbox,
	type RateLimitHeaders,
	type RateLimitSettings,
	type RetryAfterFormat,
} from '../../../sandbox/server';
import { makeSheet, uniqueValid } from '../../../sandbox/sheets';
import { floorMs, matrixScenarios } from '../../../bench/sim/catalogue';
import { simulatedWindowAt } from '../../../bench/sim/simulate';
import { NODE_DEFAULTS } from '../../../bench/sim/sheet';
import { executeWorkflow, importCredential, importWorkflow, type Checklist } from '../lib/realN8n';
import { sandboxCredential } from '../lib/sandboxCredential';
import { lookUp, manualTrigger, sheet, workflow, type WorkflowFile } from '../lib/workflows';

const ROWS = 2000;
const LIMIT = { ratePerSecond: 100, burst: 100 };
const LATENCY_MS = 50;
/** Issue 10's target. */
const MAX_VS_FLOOR = 1.1;

/** Manual Trigger → a Code node that emits the sheet → Company Registry (errors to the error output). */
function sheetWorkflow(credentialId: string): WorkflowFile {
	return workflow(`Scale: ${ROWS} rows (${credentialId})`, [
		manualTrigger(),
		sheet(makeSheet(ROWS)),
		lookUp({ id: credentialId, name: credentialId }),
	]);
}

const unique = () => uniqueValid(makeSheet(ROWS)).length;

/**
 * The token bucket's floor: the unique lookups admitted exactly as the bucket allows (the burst at
 * once, then one every 1/rate s), the last answered one latency later. No client can be faster.
 */
function bucketFloorSeconds(burst = LIMIT.burst): number {
	return Math.max(0, unique() - burst) / LIMIT.ratePerSecond + LATENCY_MS / 1000;
}

const WINDOW = { limit: 100, windowMs: 1000 };

/**
 * The fixed window's floor as it was until issue 20 item 5 was traced, kept beside the floor for
 * comparison: windows aligned to the clock, the first with only what is left of it, each admitting
 * `limit`, the last lookup sent when the last window needed opens. No client at the node's concurrency
 * meets it: 20 in flight at 50 ms send a window's 100 in five round trips, not at once (about 0.2 s in
 * the last window), and where less than about a quarter of the first window is left, the token and
 * those round trips cannot fill it, so one more window is needed (up to a whole second).
 */
function windowClockFloorSeconds(startedAt: number): number {
	const windows = Math.ceil(unique() / WINDOW.limit);
	const firstWindowLeft = WINDOW.windowMs - (startedAt % WINDOW.windowMs);
	const lastOpens = windows > 1 ? firstWindowLeft + (windows - 2) * WINDOW.windowMs : 0;
	return (lastOpens + LATENCY_MS) / 1000;
}

/** bench:sim's scenario of this check (catalogue.ts), the same limiter, sheet and latency. */
const simulatedWindow = () =>
	matrixScenarios().find((scenario) => scenario.name === 'n8n-fixed-window-no-headers')!;

/**
 * The fixed window's floor for a node that started at `startedAt` (epoch ms), as bench:sim reckons
 * it (catalogue.ts floorMs): an ideal client at the node's concurrency that knows the limiter, fetches
 * its token first, and fills every window aligned to the clock from wherever the run started.
 */
function windowFloorSeconds(startedAt: number): number {
	return floorMs(simulatedWindow(), startedAt, NODE_DEFAULTS.maxConcurrency)! / 1000;
}

/**
 * bench:sim's figure for the same start within a window as the real run: the simulation is honest where
 * the two agree (issue 20: within 0.03). The same run as `bench/sim/run.ts --matrix --only
 * n8n-fixed-window-no-headers --phase <the start's ms past the second>` (simPhase.test.ts).
 */
async function simulatedAtPhase(startedAt: number): Promise<number> {
	return (await simulatedWindowAt(simulatedWindow(), startedAt)).vsFloor!;
}

interface Family {
	name: string;
	id: string;
	rateLimit: Partial<RateLimitSettings>;
	rateLimitHeaders: RateLimitHeaders;
	retryAfterFormat: RetryAfterFormat;
	floorSeconds: (startedAt: number) => number;
	/**
	 * The most node / floor may be where MAX_VS_FLOOR is not yet met and the family records the gap
	 * (undefined: MAX_VS_FLOOR).
	 */
	maxVsFloor?: number;
	/** Printed beside: the floor this family's check used before, and bench:sim's figure at this run's start. */
	beside?: {
		clockFloorSeconds: (startedAt: number) => number;
		simulated: (startedAt: number) => Promise<number>;
	};
}

const FAMILIES: Family[] = [
	{
		name: 'family 1 (X-RateLimit-* on every answer)',
		id: 'scaleHeaders',
		rateLimit: LIMIT,
		rateLimitHeaders: 'always',
		retryAfterFormat: 'seconds',
		floorSeconds: () => bucketFloorSeconds(),
	},
	{
		name: 'family 2 (headers only on 429s)',
		id: 'scaleOnly429',
		rateLimit: LIMIT,
		rateLimitHeaders: '429-only',
		retryAfterFormat: 'seconds',
		floorSeconds: () => bucketFloorSeconds(),
	},
	{
		// Issue 20, bench:sim seed 1 s31's class: a burst of one tells Limit 1, Remaining 0 and a Reset of
		// a second (its next token, rounded up), as a window of one a second would.
		name: 'token bucket 100/s with a burst of 1, X-RateLimit-* on every answer, no Retry-After',
		id: 'scaleBurstOne',
		rateLimit: { ...LIMIT, burst: 1 },
		rateLimitHeaders: 'always',
		retryAfterFormat: 'none',
		floorSeconds: () => bucketFloorSeconds(1),
		// Not yet issue 10's 1.10: a lone token request, then the count's slow start (it says 0 left after
		// every admission), then about 65-75 a second where the floor is 100: with a burst of one, two
		// arrivals closer than 10 ms meet a 429, and n8n's timers and the network jitter make them meet.
		// Real n8n 1.61-1.84 (session 52, five runs; 1.63 on the code before), bench:sim 1.215 for the same
		// limiter: the simulation is optimistic here. Held near where it is (a loaded machine adds some), so
		// that it cannot get much worse unseen.
		maxVsFloor: 2.5,
	},
	{
		name: 'fixed window 100 per 1 s, no headers (429s with no Retry-After, no rate-limit headers)',
		id: 'scaleWindowBare',
		rateLimit: { ...LIMIT, family: 'fixed-window', ...WINDOW },
		rateLimitHeaders: 'none',
		retryAfterFormat: 'none',
		floorSeconds: windowFloorSeconds,
		beside: { clockFloorSeconds: windowClockFloorSeconds, simulated: simulatedAtPhase },
	},
];

/** The controller's lines the preload wrote in n8n's main process (one file per process id). */
function takeControllerTrace(prefix: string): unknown[] {
	const folder = join(prefix, '..');
	const base = prefix.slice(folder.length + 1);
	const lines: unknown[] = [];
	for (const name of readdirSync(folder).filter((found) => found.startsWith(`${base}.`))) {
		const text = readFileSync(join(folder, name), 'utf8');
		for (const line of text.split('\n')) if (line) lines.push(JSON.parse(line));
		rmSync(join(folder, name));
	}
	return lines;
}

export async function checkScale(userFolder: string, checklist: Checklist): Promise<void> {
	const chosen = process.env.TEST_N8N_SCALE_FAMILIES?.split(',');
	const traceFolder = process.env.TEST_N8N_TRACE;
	if (traceFolder) mkdirSync(traceFolder, { recursive: true });
	const runs = Number(process.env.TEST_N8N_SCALE_RUNS ?? 1);
	const families = FAMILIES.filter(({ id }) => !chosen || chosen.includes(id));
	// A check that runs nothing must not pass.
	if (!Number.isInteger(runs) || runs < 1)
		throw new Error(`TEST_N8N_SCALE_RUNS must be a whole number of 1 or more, not '${runs}'`);
	if (families.length === 0)
		throw new Error(
			`TEST_N8N_SCALE_FAMILIES names no family of ${FAMILIES.map(({ id }) => id).join(', ')}`,
		);
	for (const [runIndex, family] of families.flatMap((family) =>
		Array.from({ length: runs }, (_, index) => [index, family] as const),
	)) {
		const sandbox = await startSandbox({
			port: 0,
			rateLimit: family.rateLimit,
			rateLimitHeaders: family.rateLimitHeaders,
			retryAfterFormat: family.retryAfterFormat,
			faults: { latencyMs: LATENCY_MS - 5, jitterMs: 10 },
		});
		try {
			const credentialId = `scale-${family.id}`;
			await importCredential(
				userFolder,
				sandboxCredential({ id: credentialId, name: credentialId }, sandbox),
			);
			const workflowId = family.id.padEnd(16, '0');
			await importWorkflow(userFolder, sheetWorkflow(credentialId), workflowId);
			const controllerTrace =
				traceFolder && join(traceFolder, `${family.id}.${runIndex}.controller`);
			sandbox.traceLookups(Boolean(traceFolder));
			const wallStarted = performance.now();
			const run = await executeWorkflow(
				userFolder,
				workflowId,
				controllerTrace
					? {
							NODE_OPTIONS: `--require ${join(__dirname, '..', 'lib', 'controllerTrace.cjs')}`,
							CONTROLLER_TRACE_FILE: controllerTrace,
						}
					: {},
			);
			const wall = (performance.now() - wallStarted) / 1000;
			const task = run.data.resultData.runData['Company Registry']?.at(-1) as
				| {
						startTime?: number;
						executionTime?: number;
						data?: { main: Array<Array<unknown> | null> };
				  }
				| undefined;
			const seconds = (task?.executionTime ?? Number.NaN) / 1000;
			const [registered = [], notRegistered = [], errors = []] = (task?.data?.main ?? []).map(
				(items) => items ?? [],
			);
			const { name } = family;
			const floor = family.floorSeconds(task?.startTime ?? Number.NaN);
			const ratio = seconds / floor;
			if (traceFolder && controllerTrace) {
				const tracePath = join(traceFolder, `${family.id}.${runIndex}.json`);
				writeFileSync(
					tracePath,
					JSON.stringify({
						family: family.id,
						windowMs: family.rateLimit.windowMs,
						nodeStartedAt: task?.startTime,
						nodeMs: task?.executionTime,
						floorMs: floor * 1000,
						lookups: sandbox.lookupTrace,
						controller: takeControllerTrace(controllerTrace),
					}),
				);
				checklist.log(`scale: ${name}: trace written to ${tracePath}`);
			}
			checklist.log(
				`scale: ${name}: node ${seconds.toFixed(2)} s, floor ${floor.toFixed(2)} s, node_vs_floor=${ratio.toFixed(3)}; ` +
					`n8n execute wall ${wall.toFixed(1)} s (process start and exit included); 429s ${sandbox.counters.lookupsByStatus[429] ?? 0}; token requests ${sandbox.counters.tokenRequests}`,
			);
			if (family.beside && task?.startTime !== undefined) {
				const clockFloor = family.beside.clockFloorSeconds(task.startTime);
				const simulated = await family.beside.simulated(task.startTime);
				checklist.log(
					`scale: ${name}: started ${task.startTime % WINDOW.windowMs} ms into a window; sim_vs_floor=${simulated.toFixed(3)} sim_minus_real=${(simulated - ratio).toFixed(3)}; ` +
						`the clock's floor (before issue 20 item 5 was traced) ${clockFloor.toFixed(2)} s, node_vs_clock_floor=${(seconds / clockFloor).toFixed(3)}; load ${loadavg()[0].toFixed(1)}`,
				);
			}
			checklist.check(
				registered.length + notRegistered.length + errors.length === ROWS,
				`${name}: every one of ${ROWS} rows came out once`,
			);
			checklist.check(
				errors.length === ROWS / 50,
				`${name}: only the ${ROWS / 50} invalid rows failed (got ${errors.length})`,
			);
			checklist.check(
				sandbox.counters.tokenRequests === 1,
				`${name}: one token request (got ${sandbox.counters.tokenRequests})`,
			);
			checklist.check(
				ratio <= (family.maxVsFloor ?? MAX_VS_FLOOR),
				`${name}: within ${family.maxVsFloor ?? MAX_VS_FLOOR}x the floor (${ratio.toFixed(3)})`,
			);
		} finally {
			await sandbox.close();
		}
	}
}
