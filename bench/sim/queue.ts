import { N8N_CPU_PER_LOOKUP_MS } from './catalogue';
import { seededRandom } from './random';
import { SimulatedRegistry, type RegistrySpec } from './registry';
import { runSheet } from './sheet';
import { eventLoop } from './simulate';
import { VirtualClock } from './virtualClock';
import { RateController } from '../../nodes/shared/transport/rateControl';
import type { RegistryRequest } from '../../nodes/shared/transport/registryRequest';

/**
 * test:queue's scenarios 2 then 3 (TEST_QUEUE_ONLY=sheet,sheets) on the virtual clock, at their real
 * size: one worker runs a 2,000-row sheet alone (1,800 unique valid lookups) against the sandbox's bucket
 * (100/s, burst 100, X-RateLimit-* on every answer, Retry-After: 1, 45 ms and up to 10 more), then, 2 s
 * later, three 1,000-row sheets (900 each) spread over it and a second worker, each worker with its own
 * controller and its own event loop (n8n's CPU per lookup). bench/sim/queueShape.ts prints it;
 * workersWarm.test.ts runs it. workersWarm's shortened shape (300-row sheets, no CPU) is under 3% 429s.
 */
export const SANDBOX: RegistrySpec = {
	limiter: { family: 'token-bucket', ratePerSecond: 100, burst: 100 },
	headers: 'x-ratelimit',
	headersOn: 'always',
	resetAs: 'seconds',
	retryAfter: 'seconds',
	nonsense: 'none',
	latencyMs: 45,
	jitterMs: 10,
	faultShare: 0,
};
export const ALONE_LOOKUPS = 1_800;
export const SHARED_LOOKUPS = 900;
/** test:queue's floor (sheets.ts floorSeconds): the burst at once, then one per 1/rate seconds. */
export const queueFloorMs = (lookups: number) => ((lookups - 100) * 1000) / 100;

export interface QueueRun {
	/** Scenario 2: the warm worker alone. */
	alone: { requests: number; rateLimited: number; ms: number };
	/** Scenario 3: the three sheets over both workers. */
	shared: { requests: number; rateLimited: number; ms: number };
}

/**
 * One run: `onWarm` of the three sheets on the worker that ran scenario 2, its sheets taken `lateMs`
 * after the other worker's (n8n's queue hands a job to a worker a moment after another's); n8n's CPU
 * per lookup times `cpuFactor` (a worker given a share of a loaded core).
 */
export async function queueShape(
	seed: number,
	onWarm: number,
	lateMs: number,
	cpuFactor = 1,
): Promise<QueueRun> {
	RateController.forgetAll();
	const clock = new VirtualClock();
	const random = seededRandom(seed);
	const sim = new SimulatedRegistry(clock, SANDBOX, random);
	for (const process of [0, 1])
		RateController.for(`sim p${process}`, clock, seededRandom(seed * 31 + process + 1));
	// Each worker's own event loop: n8n's CPU per lookup (catalogue.ts), half before the request leaves,
	// half after its answer, as bench:sim's bare window runs it.
	const requests = [0, 1].map((): RegistryRequest => {
		const loop = eventLoop(clock);
		return async (...args) => {
			await loop(N8N_CPU_PER_LOOKUP_MS.send * cpuFactor);
			const answer = await sim.request(...args);
			await loop(N8N_CPU_PER_LOOKUP_MS.answer * cpuFactor);
			return answer;
		};
	});
	const sheet = (process: number, execution: number, rows: number) =>
		runSheet(clock, requests[process], rows, { process: `p${process}`, execution, random });
	return await clock.run(
		(async () => {
			const aloneFrom = clock.now();
			await sheet(1, 9, ALONE_LOOKUPS);
			const alone = {
				requests: sim.counters.requests,
				rateLimited: sim.counters.rateLimited,
				ms: clock.now() - aloneFrom,
			};
			await clock.sleep(2000);
			const sharedFrom = clock.now();
			await Promise.all(
				[0, 1, 2].map(async (execution) => {
					const process = execution < onWarm ? 1 : 0;
					if (process === 1) await clock.sleep(lateMs);
					return await sheet(process, execution, SHARED_LOOKUPS);
				}),
			);
			return {
				alone,
				shared: {
					requests: sim.counters.requests - alone.requests,
					rateLimited: sim.counters.rateLimited - alone.rateLimited,
					ms: clock.now() - sharedFrom,
				},
			};
		})(),
	);
}
