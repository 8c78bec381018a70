import { watchKey, type FoundChange } from './snapshot';

/**
 * The changes found by the earlier tries of one node run. n8n's Retry On Fail runs the node again when
 * its first item carries `error` (WorkflowExecute's checkFailure): an error item under Continue, a
 * checkFailed item at the default On Error. The earlier try has saved the memory by then, so the next
 * try finds those companies as they are now: their changes would never leave. They are carried to the
 * next try and leave with it (n8n keeps only the last try's items).
 *
 * Which node run: its input array, as in answeredLookups.ts (n8n hands every try of one node run the same
 * one, every other node run a new one). The changes hang off it in a WeakMap and go with the run.
 */
const changesByNodeRun = new WeakMap<object, ReadonlyMap<string, FoundChange>>();

/** This try's changes and those of the node run's earlier tries, one per company. */
export function withEarlierTries(nodeRun: object, found: readonly FoundChange[]): FoundChange[] {
	const changes = new Map(changesByNodeRun.get(nodeRun));
	// A company found changed again (it changed once more between tries): the newer change is the one
	// measured against the memory as the earlier try left it.
	for (const change of found) changes.set(watchKey(change.key), change);
	changesByNodeRun.set(nodeRun, changes);
	return [...changes.values()];
}
