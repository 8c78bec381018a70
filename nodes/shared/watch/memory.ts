import { NodeOperationError, type IDataObject, type INode } from 'n8n-workflow';

import type { RowPatches } from './storePatches';
import {
	companySnapshotSchema,
	MAX_DAY,
	type CompanySnapshot,
	type PreviousSnapshot,
} from './snapshot';

/**
 * What a watch remembers between runs, behind one interface: the change detector reads it once and
 * writes it once a run. Two implementations: the workflow's static data (here) and n8n's processed-items
 * store (processedItemsMemory.ts), for queue-mode workers, which start without static data.
 */
export interface WatchMemory {
	/**
	 * What was known of each company before, given its current snapshot (the store can only say whether
	 * a value was seen). A company the memory does not know, or no longer knows, is absent: it starts a
	 * new baseline.
	 */
	recall(
		current: ReadonlyMap<string, CompanySnapshot>,
		unchecked: readonly string[],
	): Promise<Recollections>;
	/** Remembers the current snapshots; a company that could not be checked keeps what was known of it. */
	remember(
		current: ReadonlyMap<string, CompanySnapshot>,
		unchecked: readonly string[],
	): Promise<void>;
}

export interface Recollection {
	previous: PreviousSnapshot;
	/** Where only the store knows: whether the name and the address changed (their old values may be unknown). */
	detailsChanged?: { officialName: boolean; registeredAddress: boolean };
}

/** What a memory recalls, company by company (a memory may make each only when asked for). */
export type Recollections = Pick<ReadonlyMap<string, Recollection>, 'get'>;

interface Logger {
	warn(message: string, meta?: object): void;
}

/**
 * The companies as saved: one JSON text (this version: savedText says why), or an object (earlier
 * versions); none saved, none known. Text that does not parse is no list.
 */
function parseCompanies(saved: unknown): unknown {
	if (saved === undefined) return {};
	if (typeof saved !== 'string') return saved;
	try {
		return JSON.parse(saved) as unknown;
	} catch {
		return null;
	}
}

/**
 * Checks the companies n8n loaded (they may be old, hand-edited or corrupt) and mends them: entries that
 * are not snapshots are dropped, so their companies start a new baseline instead of producing a false
 * change or crashing every run. Says how many were dropped (a whole bad list counts one).
 */
function repairCompanies(state: Record<string, unknown>): {
	companies: Record<string, unknown>;
	dropped: number;
} {
	const companies = parseCompanies(state.companies);
	if (typeof companies !== 'object' || companies === null || Array.isArray(companies))
		return { companies: {}, dropped: 1 };
	let dropped = 0;
	const saved = companies as Record<string, unknown>;
	for (const key of Object.keys(saved)) {
		const snapshot = saved[key];
		if (!isPlainSnapshot(snapshot) && !companySnapshotSchema.safeParse(snapshot).success) {
			delete saved[key];
			dropped += 1;
		}
	}
	return { companies: saved, dropped };
}

/**
 * The common case of companySnapshotSchema, checked by hand: 100,000 zod parses a run cost more than the
 * comparison itself. Anything else goes through the schema.
 */
function isPlainSnapshot(value: unknown): boolean {
	if (typeof value !== 'object' || value === null) return false;
	const { s, n, a, d } = value as Record<string, unknown>;
	return (
		(s === 'A' || s === 'I' || s === 'N') &&
		(n === undefined || typeof n === 'string') &&
		(a === undefined || typeof a === 'string') &&
		typeof d === 'number' &&
		Number.isInteger(d) &&
		d >= 0 &&
		d <= MAX_DAY
	);
}

/**
 * The companies a watch keeps in n8n's static data, checked and mended; what was dropped is said once in
 * n8n's log.
 */
export function loadWatchState(
	staticData: Record<string, unknown>,
	logger: Logger,
): { companies: Record<string, CompanySnapshot> } {
	const { companies, dropped } = repairCompanies(staticData);
	if (dropped > 0) {
		logger.warn(
			'Company Registry: the saved watch state had entries that are not company snapshots; they were dropped and start a new baseline',
			{ dropped },
		);
	}
	return { companies: companies as Record<string, CompanySnapshot> };
}

/**
 * The companies as the static data saves them: one JSON text. n8n 2.41.1 wraps every object of a
 * workflow's static data in a Proxy of its own when it loads it (n8n-workflow's ObservableObject, to
 * notice changes), and serialises the data through them when it saves: an object per company cost a
 * 100,000-company watch some 1.5 s a run (`npm run bench -- --scenario watch`); one text costs n8n
 * nothing of the kind, and the package parses and writes it as plain JSON.
 */
const savedText = (companies: Record<string, CompanySnapshot>): string => JSON.stringify(companies);

/** What a node's state in the static data is, said to a user where it is not an object. */
function kindOf(state: unknown): string {
	if (state === null) return 'null';
	if (Array.isArray(state)) return 'a list';
	return typeof state === 'string' ? 'a text' : `a ${typeof state}`;
}

/**
 * The node's own state in the workflow's static data (n8n keeps it under `node:<name>`), which n8n makes
 * an object. An imported or hand-edited workflow may hold anything there, and the node gets only that
 * value: it cannot mend it, so it fails the run saying what to remove (on a text or null every run failed
 * with a TypeError; on a list the trigger's memory was not saved, so no change was reported after a restart).
 */
export function nodeStaticData(context: {
	getWorkflowStaticData(type: 'node'): IDataObject;
	getNode(): INode;
}): IDataObject {
	const state: unknown = context.getWorkflowStaticData('node');
	if (typeof state === 'object' && state !== null && !Array.isArray(state))
		return state as IDataObject;
	const node = context.getNode();
	throw new NodeOperationError(
		node,
		`The node's saved state in the workflow's static data is ${kindOf(state)}, not an object`,
		{
			description: `An imported or hand-edited workflow can hold this. Rename the node to start a new baseline, or remove "node:${node.name}" from the workflow's staticData (export the workflow, edit it, import it again).`,
		},
	);
}

/**
 * What the static data says of the processed-items store's row that the run which saved it wrote
 * (processedItemsMemory.ts says why): the token that row holds, how many company entries it holds, and
 * the companies the row holds otherwise than the static data (only a status, or nothing).
 */
export interface RowMark {
	token: string;
	entries: number;
	notAsSaved: string[];
	/**
	 * The patches appended since (storePatches.ts); none: a row that is not patched (a worker's, with
	 * blocks, or an earlier version's).
	 */
	patches?: RowPatches;
}

const isCount = (value: unknown): value is number =>
	typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
const isIdList = (value: unknown): value is string[] =>
	Array.isArray(value) && value.every((id) => typeof id === 'string');

/** A mark as saved, or none: a hand-edited or another version's is no proof of anything. */
function loadRowMark(saved: unknown): RowMark | undefined {
	if (typeof saved !== 'object' || saved === null) return undefined;
	const { token, entries, notAsSaved, patches } = saved as Record<string, unknown>;
	if (typeof token !== 'string' || token.length === 0) return undefined;
	if (!isCount(entries) || !isIdList(notAsSaved)) return undefined;
	if (patches === undefined) return { token, entries, notAsSaved };
	// Patches said otherwise than a run saves them: no proof either (a mark read without them would be
	// trusted over patches another run appended).
	if (typeof patches !== 'object' || patches === null) return undefined;
	const { count, changed, entries: patchEntries, settled } = patches as Record<string, unknown>;
	if (!isCount(count) || !isCount(changed) || !isCount(patchEntries) || !isIdList(settled))
		return undefined;
	return {
		token,
		entries,
		notAsSaved,
		patches: { count, changed, entries: patchEntries, settled },
	};
}

/**
 * The memory in the workflow's static data: one snapshot per company key. `keep` says which companies
 * that were neither checked nor tried this run stay (the trigger: those still listed; Watch for
 * Changes: those seen within Forget Companies Not Seen For).
 */
export class StaticDataMemory implements WatchMemory {
	/**
	 * The companies as saved, parsed and mended, looked up in place: a Map of them cost a 100,000-company
	 * list some 6 MB of garbage a run (its tables, grown by doubling), which the process's peak carries.
	 */
	private readonly companies: Record<string, CompanySnapshot>;
	/** The mark of the row the run that saved this static data wrote, if any. */
	readonly rowMark: RowMark | undefined;
	/** The mark `remember` saves: none unless the store's memory gives one (a run without the store leaves the row's mark untrue). */
	private nextRowMark: RowMark | undefined;
	/** Whether this run's store memory wrote (or kept) the row: `remember` then saves `storeRow`. */
	private rowKept = false;
	/** The companies saved that the run named not, kept and not kept: one walk of them a run (see notNamed). */
	private walked:
		| {
				current: ReadonlyMap<string, CompanySnapshot>;
				kept: readonly string[];
				notKept: readonly string[];
		  }
		| undefined;

	constructor(
		private readonly staticData: Record<string, unknown>,
		logger: Logger,
		private readonly keep: (id: string, snapshot: CompanySnapshot) => boolean,
	) {
		this.companies = loadWatchState(staticData, logger).companies;
		this.rowMark = loadRowMark(staticData.storeRow);
	}

	/** The mark of the row this run leaves (none: too long to mark), saved with the companies by `remember`. */
	markRow(mark: RowMark | undefined): void {
		this.nextRowMark = mark;
		this.rowKept = true;
	}

	/** The saved snapshot of a company, if any (its own: not what the list inherits, such as `toString`). */
	saved(id: string): CompanySnapshot | undefined {
		return Object.prototype.hasOwnProperty.call(this.companies, id)
			? this.companies[id]
			: undefined;
	}

	/**
	 * The companies saved that this run named not, kept or not. One walk a run: the store's memory asks
	 * both lists and `remember` the second, and each walk of a 100,000-key object cost some 60-100 ms.
	 */
	private notNamed(current: ReadonlyMap<string, CompanySnapshot>) {
		if (this.walked?.current !== current) {
			const kept: string[] = [];
			const notKept: string[] = [];
			for (const id of Object.keys(this.companies))
				if (!current.has(id)) (this.keep(id, this.companies[id]) ? kept : notKept).push(id);
			this.walked = { current, kept, notKept };
		}
		return this.walked;
	}

	/** The companies this memory keeps although this run named them not. */
	kept(current: ReadonlyMap<string, CompanySnapshot>): readonly string[] {
		return this.notNamed(current).kept;
	}

	/** The companies `remember` drops: neither named, nor tried, nor kept. */
	forgotten(current: ReadonlyMap<string, CompanySnapshot>, unchecked: readonly string[]): string[] {
		const failed = new Set(unchecked);
		return this.notNamed(current).notKept.filter((id) => !failed.has(id));
	}

	async recall(
		current: ReadonlyMap<string, CompanySnapshot>,
	): Promise<ReadonlyMap<string, Recollection>> {
		const known = new Map<string, Recollection>();
		for (const id of current.keys()) {
			const previous = this.saved(id);
			if (previous) known.set(id, { previous });
		}
		return known;
	}

	async remember(
		current: ReadonlyMap<string, CompanySnapshot>,
		unchecked: readonly string[],
	): Promise<void> {
		// The loaded list, changed in place: a list built anew costs a 100,000-key object a run.
		const next = this.companies;
		for (const id of this.forgotten(current, unchecked)) delete next[id];
		current.forEach((snapshot, id) => {
			const before = this.saved(id);
			// As saved but the day (most of a long list): the day set in place, which costs far less than
			// storing a key anew into a 100,000-key object. A change is never shown against this snapshot.
			if (before && before.s === snapshot.s && before.n === snapshot.n && before.a === snapshot.a)
				before.d = snapshot.d;
			else next[id] = snapshot;
		});
		// n8n notices changes to static data only through the objects it handed out: assigning the list
		// marks the state changed, so n8n saves it.
		this.staticData.companies = savedText(next);
		if (this.rowKept) this.staticData.storeRow = this.nextRowMark ?? {};
		else if ('storeRow' in this.staticData) delete this.staticData.storeRow;
	}
}
