import type { CompanySnapshot } from './snapshot';
import { foldedOf, heldAlone, STATUSES, type TextField } from './storeEntries';

/**
 * Patches: what a main process appends to the store's row instead of writing it anew (issue 22).
 * Why: a run that writes the row anew hands n8n every company's three entries (300,000 MD5 hashes at
 * 100,000 companies, about a second) to record the few that changed. A main process whose static data
 * vouches for the row (processedItemsMemory.ts: its mark, and exactly the patches the mark counts) appends
 * one patch in the call that asks the mark: patch k (1, 2, … since the row was written anew) holds
 * `["patch",k]`, `["patch",k,"changed"]` where it names a company, and per company whose state differs from
 * the row's `[id,"patched"]`, `[id,"patched at",k]` and its state's entries tagged with k; per company dropped
 * (no longer named, or forgotten) `[id,"patched"]` and `[id,"patched at",k]` alone.
 *
 * Why k in every entry: a company back to an earlier state (Active, Inactive, Active). The row's untagged
 * entries still say Active: a reader that asked them would take it as unchanged and lose the alert. A
 * company's last state is its state in the latest patch that names it, else the entries written anew; one
 * dropped in that patch has none there: a new baseline.
 *
 * Who reads them: a run that does not trust the row (a worker after a main process, a main process whose
 * static data was not saved, an overlapping run) asks, beside every company's untagged entries, the
 * markers and whether each company was patched; of those patched, in step 2, their state in each patch
 * that named companies. It then writes the row anew, which drops the patches. Only a row a main process
 * wrote anew without blocks is patched (a worker's row holds blocks, which speak for the entries written
 * anew: a block held would hide a patched company's change), so a row whose blocks are held holds none.
 */

/**
 * Patches a row takes before it is written anew. Each asks one marker more of a reader (a quiet run
 * appends an empty patch: the marker is its question, and it records it).
 */
export const MAX_PATCHES = 64;
/**
 * Patches that name companies before the row is written anew: a reader asks each patched company's state
 * in each of them (six values a company a patch).
 */
export const MAX_CHANGED_PATCHES = 8;
/**
 * Patch entries beyond this share of the entries written anew: written anew. Each call reads the whole
 * row, and a reader asks more of each patched company; a tenth keeps both small.
 */
export const MAX_PATCH_SHARE = 0.1;

export interface PatchLimits {
	patches: number;
	changedPatches: number;
	share: number;
}
export const PATCH_LIMITS: PatchLimits = {
	patches: MAX_PATCHES,
	changedPatches: MAX_CHANGED_PATCHES,
	share: MAX_PATCH_SHARE,
};

/**
 * What the static data's mark says of the patches appended since its row was written anew: how many, how
 * many named companies, their entries, and the companies of the mark's `notAsSaved` a patch has named
 * since (patched or dropped: the row's state of each is now as the static data says, or none).
 */
export interface RowPatches {
	count: number;
	changed: number;
	entries: number;
	settled: string[];
}

/** What the trust questions read of a mark's patches. */
type PatchCounts = Pick<RowPatches, 'count' | 'changed'>;
/** A row written anew: no patch yet. */
export const NO_PATCHES: PatchCounts = Object.freeze({ count: 0, changed: 0 });

type Snapshot = Omit<CompanySnapshot, 'd'>;

// Arrays of another length or with a number in them: no company's `[id, field, value]` can pose as one.
const json = (value: unknown) => JSON.stringify(value);
/**
 * In every patch that names companies: a reader asks it alone in step 1, and asks the markers and flags
 * below only where it is held (a row written anew holds none: one value a run, not some 100,000).
 */
export const ROW_PATCHED = json(['row patched']);
export const patchMarker = (k: number) => json(['patch', k]);
export const changedPatchMarker = (k: number) => json(['patch', k, 'changed']);
export const patchedEntry = (id: string) => json([id, 'patched']);
export const patchedAtEntry = (id: string, k: number) => json([id, 'patched at', k]);
export const taggedStatus = (id: string, status: CompanySnapshot['s'], k: number) =>
	json([id, 'status', status, k]);
/** A name or address in patch k, in the form the untagged entries hold (storeEntries.ts). */
export const taggedText = (id: string, field: TextField, text: string | undefined, k: number) =>
	json([id, field, foldedOf(text) ?? null, k]);

/** A company's state in patch k: its status first (not registered: the status says all). */
function taggedStateOf(id: string, snapshot: Snapshot, k: number): string[] {
	const status = taggedStatus(id, snapshot.s, k);
	if (snapshot.s === 'N') return [status];
	return [status, taggedText(id, 'name', snapshot.n, k), taggedText(id, 'address', snapshot.a, k)];
}

/** Patch k: the companies whose state it sets, and those it drops. */
export function patchOf(
	k: number,
	states: ReadonlyArray<readonly [string, Snapshot]>,
	dropped: readonly string[],
): string[] {
	const patch = [patchMarker(k)];
	for (const [id, snapshot] of states)
		patch.push(patchedEntry(id), patchedAtEntry(id, k), ...taggedStateOf(id, snapshot, k));
	for (const id of dropped) patch.push(patchedEntry(id), patchedAtEntry(id, k));
	if (states.length + dropped.length > 0) patch.push(changedPatchMarker(k), ROW_PATCHED);
	return patch;
}

/**
 * Patch k (the mark's count + 1) and the patches the mark then counts (`settled`: companies of the mark's
 * notAsSaved the patch names); none where the row is to be written anew: past the limits, or past the
 * store's capacity (n8n would trim the row's oldest entries, which the mark vouches for). `rowEntries`: the
 * entries the row was written anew with.
 */
export function nextPatch(
	rowEntries: number,
	patches: RowPatches,
	patch: {
		states: ReadonlyArray<readonly [string, Snapshot]>;
		dropped: readonly string[];
		settled: readonly string[];
	},
	limits: PatchLimits,
	capacity: number,
): { entries: string[]; patches: RowPatches } | undefined {
	const k = patches.count + 1;
	if (k > Math.min(limits.patches, MAX_PATCHES)) return undefined;
	const entries = patchOf(k, patch.states, patch.dropped);
	// A quiet run's patch is its marker alone: the count of patches bounds those.
	const names = entries.length > 1;
	const changed = patches.changed + (names ? 1 : 0);
	const patchEntries = patches.entries + entries.length;
	if (
		changed > limits.changedPatches ||
		(names && patchEntries > limits.share * rowEntries) ||
		rowEntries + 1 + patchEntries > capacity
	)
		return undefined;
	return {
		entries,
		patches: {
			count: k,
			changed,
			entries: patchEntries,
			settled: [...patches.settled, ...patch.settled],
		},
	};
}

/**
 * What a run whose static data has this mark asks to trust the row: its last patch's marker (held), the
 * next one's (not: no run appended since), and whether a reader asked since (it asks ROW_PATCHED, and
 * where that was held the changed markers: ROW_PATCHED not held where no patch named companies yet, else
 * the next changed marker not held). Not the last where this run's patch is its marker alone (`quiet`): a
 * reader in progress either writes the row anew after, or takes back what it asked.
 */
export function trustQuestions(patches: PatchCounts, quiet: boolean): string[] {
	const k = patches.count + 1;
	return [
		...(patches.count > 0 ? [patchMarker(patches.count)] : []),
		patchMarker(k),
		...(quiet ? [] : [patches.changed === 0 ? ROW_PATCHED : changedPatchMarker(k)]),
	];
}

/** Whether the answers to `trustQuestions` (`isNew`) say the row is exactly as the mark says. */
export function trustsRow(
	patches: PatchCounts,
	quiet: boolean,
	isNew: (entry: string) => boolean,
): boolean {
	const k = patches.count + 1;
	const lastHeld = patches.count === 0 || !isNew(patchMarker(patches.count));
	const readerAsked = !quiet && !isNew(patches.changed === 0 ? ROW_PATCHED : changedPatchMarker(k));
	return lastHeld && isNew(patchMarker(k)) && !readerAsked;
}

/**
 * What a run asks of a row that holds patches (ROW_PATCHED held), in one call after step 1: which patches
 * named companies, and whether one named each company asked.
 */
export function patchQuestions(ids: Iterable<string>): string[] {
	const questions: string[] = [];
	for (let k = 1; k <= MAX_PATCHES; k++) questions.push(changedPatchMarker(k));
	for (const id of ids) questions.push(patchedEntry(id));
	return questions;
}

/** A company's last state in the row's patches: its status, and whether the fields asked are held. */
export interface PatchedState {
	status: CompanySnapshot['s'];
	/** The name and address asked (the current ones) held in that patch. */
	name: boolean;
	address: boolean;
	/** The static data's name and address held there (asked where they differ from the current ones). */
	oldName: boolean;
	oldAddress: boolean;
}

/**
 * The patches as step 1's answers show them, and each patched company's last state from step 2's. `isNew`:
 * whether the row did not hold an entry before this run (an entry this run recorded in an earlier call is
 * new: the run's own patch is not another run's).
 */
export class PatchReading {
	/** The patches that named companies, latest first. */
	private readonly changed: number[] = [];

	constructor(private readonly isNew: (entry: string) => boolean) {
		for (let k = MAX_PATCHES; k >= 1; k--) if (!isNew(changedPatchMarker(k))) this.changed.push(k);
	}

	/**
	 * Whether a patch may have named this company: its flag is held. A reader's question records the flag
	 * too (one killed before it wrote the row anew leaves it): `latest` tells, from step 2's answers.
	 */
	patched(id: string): boolean {
		return this.changed.length > 0 && !this.isNew(patchedEntry(id));
	}

	/** The latest patch that named this company, from step 2's answers (`isNew`); none: no patch did. */
	latest(id: string, isNew: (entry: string) => boolean): number | undefined {
		return this.changed.find((patch) => !isNew(patchedAtEntry(id, patch)));
	}

	/**
	 * Step 2's questions of a patched company, per patch that named companies: whether it named this one,
	 * its three statuses there, and the name and address it has now (`snapshot`; none: a status alone) and
	 * had in the static data (`old`).
	 */
	questions(id: string, snapshot?: Snapshot, old?: Snapshot): string[] {
		const questions: string[] = [];
		for (const k of this.changed) {
			questions.push(patchedAtEntry(id, k));
			for (const status of STATUSES) questions.push(taggedStatus(id, status, k));
			for (const text of textsOf(snapshot, old)) questions.push(taggedText(id, ...text, k));
		}
		return questions;
	}

	/**
	 * Its state in the latest patch that named it, from step 2's answers (`isNew`, as above). None: named by
	 * no patch (`latest`), dropped there, or statuses that do not make one (a row not to be trusted).
	 */
	state(
		id: string,
		isNew: (entry: string) => boolean,
		snapshot?: Snapshot,
		old?: Snapshot,
	): PatchedState | undefined {
		const k = this.latest(id, isNew);
		if (k === undefined) return undefined;
		const status = heldAlone((each) => !isNew(taggedStatus(id, each, k)));
		if (status === undefined) return undefined;
		const held = (field: TextField, text: string | undefined) =>
			!isNew(taggedText(id, field, text, k));
		const registered = (of?: Snapshot) => of !== undefined && of.s !== 'N';
		return {
			status,
			name: registered(snapshot) && held('name', snapshot!.n),
			address: registered(snapshot) && held('address', snapshot!.a),
			oldName: registered(old) && held('name', old!.n),
			oldAddress: registered(old) && held('address', old!.a),
		};
	}
}

/** The names and addresses asked of a patched company: its current ones and the static data's. */
function textsOf(snapshot?: Snapshot, old?: Snapshot): Array<[TextField, string | undefined]> {
	const texts: Array<[TextField, string | undefined]> = [];
	for (const of of [snapshot, old])
		if (of && of.s !== 'N') texts.push(['name', of.n], ['address', of.a]);
	return texts;
}

/** Whether a patched company's last state is this snapshot (not registered: its status says all). */
export function unchangedIn(state: PatchedState, snapshot: Omit<CompanySnapshot, 'd'>): boolean {
	return state.status === snapshot.s && (snapshot.s === 'N' || (state.name && state.address));
}
