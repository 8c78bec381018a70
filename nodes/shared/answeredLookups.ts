import type { CompanyRecord } from './model/companyRecord';
import { lookupKeyId, type LookupKey } from './model/lookupKey';

/**
 * The registry's answers in the earlier tries of one node run. n8n's Retry On Fail runs the whole node
 * again, every row (WorkflowExecute's retry loop): with these, the next try asks the registry only for
 * the rows it has not answered. Failed lookups are never kept: their rows are asked again.
 *
 * Which node run: WorkflowExecute hands every try of one node run the same input array (its retry loop
 * reuses the run's execution data), and every other node run (another execution, workflow or node, the
 * next round of a loop) a new one. The answers hang off that array in a WeakMap: nothing else reaches
 * them, and they go when n8n drops the run. Where n8n builds new input for each try (Execute Once, a
 * tool called through createNodeAsTool), nothing is reused: the safe side. In queue mode one worker runs
 * the whole execution, its tries included, in one process, so the answers are where the next try runs.
 */

/**
 * How long a failed try's answers wait for the next try. n8n starts it within Wait Between Tries (at
 * most 5 s) of the failure; anything older is not a retry of that try and is dropped when next seen.
 */
export const ANSWERS_KEPT_MS = 60_000;

/**
 * At most this many answers per node run: a 100,000-row sheet's answers hold about 14 MB (some 150
 * bytes each; bench/answeredLookups.ts). Rows beyond it are asked again in the next try, as before.
 */
export const MAX_ANSWERS = 100_000;

/** One node run's answers: in a try, or kept after a failed try until a time, for the next one. */
type Phase = { kind: 'in-try' } | { kind: 'kept'; until: number };

interface NodeRunAnswers {
	/** Which credential (its id, registry and client id; never a secret) the answers were given to. */
	credential: string;
	records: Map<string, CompanyRecord>;
	phase: Phase;
}

const answersByNodeRun = new WeakMap<object, NodeRunAnswers>();

export class AnsweredLookups {
	private constructor(
		private readonly nodeRun: object | undefined,
		private readonly answers: NodeRunAnswers,
		private readonly now: () => number,
	) {}

	/**
	 * The answers of the node run's failed try, if one ended less than ANSWERS_KEPT_MS ago with the same
	 * credential; otherwise none. Without a node run (a poll: n8n never retries it) nothing is kept.
	 */
	static forTry(
		nodeRun: object | undefined,
		credential: string,
		now: () => number = Date.now,
	): AnsweredLookups {
		const earlier = nodeRun ? answersByNodeRun.get(nodeRun) : undefined;
		const reusable =
			earlier?.phase.kind === 'kept' &&
			now() <= earlier.phase.until &&
			earlier.credential === credential;
		const answers: NodeRunAnswers = reusable
			? earlier
			: { credential, records: new Map(), phase: { kind: 'in-try' } };
		answers.phase = { kind: 'in-try' };
		if (nodeRun) answersByNodeRun.set(nodeRun, answers);
		return new AnsweredLookups(nodeRun, answers, now);
	}

	/** The record an earlier try received for this key, if any. */
	recordFor(key: LookupKey): CompanyRecord | undefined {
		return this.answers.records.get(lookupKeyId(key));
	}

	/** A record the registry answered in this try (already cleared of secrets: no token is kept). */
	remember(key: LookupKey, record: CompanyRecord): void {
		if (this.answers.records.size < MAX_ANSWERS) this.answers.records.set(lookupKeyId(key), record);
	}

	/** The try ends with rows failed: n8n may run the node again, soon. */
	keepForNextTry(): void {
		this.answers.phase = { kind: 'kept', until: this.now() + ANSWERS_KEPT_MS };
	}

	/** Every row was answered: no try follows, and nothing is kept. */
	release(): void {
		this.answers.records.clear();
		if (this.nodeRun && answersByNodeRun.get(this.nodeRun) === this.answers)
			answersByNodeRun.delete(this.nodeRun);
	}

	get size(): number {
		return this.answers.records.size;
	}
}
