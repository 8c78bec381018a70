import { lookupKeyId, type LookupKey } from '../model/lookupKey';
import type { BatchContext, BatchSettings } from './batchContext';
import { LookupSession } from './lookupSession';
import type { LookupOutcome } from './retryDecision';

export type { BatchContext, BatchSettings } from './batchContext';
export type { LookupOutcome } from './retryDecision';

/** Lookups a worker pool holds in hand per allowed request in flight. */
const IN_HAND_PER_SLOT = 2;

/**
 * Looks up the keys of rows 0 … count - 1 for one execution, one outcome per row (undefined for a row
 * with no key). `keyAt` is called lazily, as workers take rows, so reading a big sheet's fields (n8n
 * evaluates each expression) overlaps with the lookups instead of delaying the first one. Identical
 * keys share one lookup; a pool of workers (twice the concurrency) takes the next row as one
 * finishes, so a 20,000-row sheet holds a few dozen lookups in hand, not 20,000; with
 * `stopAtFirstFailure`, the first failure cancels everything not yet sent. Each lookup passes the
 * circuit breaker and the rate controller, then is tried until it has an answer or the retry policy
 * gives up. Never throws.
 */
export async function runBatch(
	count: number,
	keyAt: (index: number) => LookupKey | undefined,
	settings: BatchSettings,
	context: BatchContext,
	{ stopAtFirstFailure }: { stopAtFirstFailure: boolean },
): Promise<Array<LookupOutcome | undefined>> {
	const outcomes = new Array<LookupOutcome | undefined>(count);
	const shared = new Map<string, Promise<LookupOutcome>>();
	const duplicates: Array<Promise<void>> = [];
	const stop = new AbortController();
	const onCancel = () => stop.abort();
	context.cancelSignal?.addEventListener('abort', onCancel, { once: true });
	if (context.cancelSignal?.aborted) stop.abort();
	let next = 0;
	const session = new LookupSession(settings, context, stop.signal, () => count - next);
	try {
		const worker = async () => {
			while (next < count) {
				const index = next++;
				const key = keyAt(index);
				if (!key) continue;
				const id = lookupKeyId(key);
				const pending = shared.get(id);
				if (pending) {
					duplicates.push(pending.then((outcome) => void (outcomes[index] = outcome)));
					continue;
				}
				const lookup = session.lookUp(key);
				shared.set(id, lookup);
				const outcome = await lookup;
				outcomes[index] = outcome;
				if (outcome.kind === 'failed' && stopAtFirstFailure) stop.abort();
			}
		};
		await Promise.all(
			Array.from({ length: Math.min(count, IN_HAND_PER_SLOT * settings.maxConcurrency) }, worker),
		);
		await Promise.all(duplicates);
	} finally {
		session.close();
		context.cancelSignal?.removeEventListener('abort', onCancel);
	}
	return outcomes;
}
