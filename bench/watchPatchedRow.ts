// Prototype (issue 22, not shipped): the watch's memory in n8n's processed-items store, where a main
// process whose static data vouches for the row *appends* a patch (the companies that changed) instead of
// clearing the row and writing every company's three entries anew. docs/watch.md ("Patches: the design
// measured, not shipped") gives the design, why each entry is there and the proof sketch;
// test/unit/watch/patchedRow.property.test.ts runs it against a reference model; `npx tsx
// bench/watchCalls.ts 100000 main patched` measures it with n8n's own store code.
// Left out against the shipped ProcessedItemsMemory: the worker's blocks (a "worker row" entry stands for
// what they tell), entries of earlier versions, undoing a failed run's entries, the store's capacity.
import { randomUUID } from 'node:crypto';

import type { ICheckProcessedOptions } from 'n8n-workflow';

import type {
	Recollection,
	Recollections,
	StaticDataMemory,
	WatchMemory,
} from '../nodes/shared/watch/memory';
import type { ProcessedItemsStore } from '../nodes/shared/watch/storeRow';
import { canonicalText, sameText, type CompanySnapshot } from '../nodes/shared/watch/snapshot';
import { savedCompanies } from '../test/support/savedCompanies';

const OPTIONS: ICheckProcessedOptions = { mode: 'entries', maxEntries: 500_000 };
/** Patches (one a marked run, empty or not) before the row is written anew: a worker asks this many markers. */
export const MAX_PATCHES = 64;
/** Patches with companies before the row is written anew: a worker asks a patched company once per such patch. */
export const MAX_CHANGED_PATCHES = 8;
/** Patch entries beyond this share of the row's written entries: written anew (each call reads the whole row). */
export const MAX_PATCH_SHARE = 0.1;

type Status = CompanySnapshot['s'];
type Snapshot = Omit<CompanySnapshot, 'd'>;
const STATUSES: readonly Status[] = ['A', 'I', 'N'];

const json = (value: unknown) => JSON.stringify(value);
const canonical = (text: string | undefined) => (text === undefined ? null : canonicalText(text));
/** A company's entries of one state: status first; `k`: in patch k (none: the row as written anew). */
function stateEntries(id: string, snapshot: Snapshot, k?: number): string[] {
	const tail = k === undefined ? [] : [k];
	const status = json([id, 'status', snapshot.s, ...tail]);
	if (snapshot.s === 'N') return [status];
	return [
		status,
		json([id, 'name', canonical(snapshot.n), ...tail]),
		json([id, 'address', canonical(snapshot.a), ...tail]),
	];
}
const statusEntry = (id: string, status: Status, k?: number) =>
	json([id, 'status', status, ...(k === undefined ? [] : [k])]);
/** Said once a company is in any patch: a worker asks it of every company of a row a main process wrote. */
const patchedEntry = (id: string) => json([id, 'patched']);
/** Said of a company in patch k (with its state there; a company dropped in k: alone). */
const patchedAtEntry = (id: string, k: number) => json([id, 'patched at', k]);
const patchMarker = (k: number) => json(['patch', k]);
const changedPatchMarker = (k: number) => json(['patch', k, 'changed']);
/** What a row written anew by a worker holds first: a main process never patches such a row (no mark). */
const WORKER_ROW = json(['row written by a worker']);
const markEntry = (token: string, entries: number) => json(['patched row written', token, entries]);

/** The mark as the static data keeps it: the row's base and how many patches (with companies) it has. */
interface PatchMark {
	token: string;
	entries: number;
	patches: number;
	changedPatches: number;
	patchEntries: number;
}
const MARK_KEY = 'patchedRow';

function loadMark(saved: unknown): PatchMark | undefined {
	if (typeof saved !== 'object' || saved === null) return undefined;
	const mark = saved as Record<string, unknown>;
	const counts = ['entries', 'patches', 'changedPatches', 'patchEntries'];
	if (typeof mark.token !== 'string') return undefined;
	if (!counts.every((name) => Number.isSafeInteger(mark[name]) && (mark[name] as number) >= 0))
		return undefined;
	return mark as unknown as PatchMark;
}

const sameSnapshot = (before: Snapshot, after: Snapshot) =>
	before.s === after.s && sameText(before.n, after.n) && sameText(before.a, after.a);

/** What the row says of a company: its last state's status, and whether its name and address are the current ones. */
interface RowState {
	status: Status;
	nameHeld: boolean;
	addressHeld: boolean;
}

export class PatchedRowMemory implements WatchMemory {
	/** Calls and values handed to n8n, for the bench and the tests. */
	readonly counts = { calls: 0, values: 0 };
	private trusted = false;
	private appendOnly = false;
	private nextMark: PatchMark | undefined;
	/** Companies not named now whose state the row confirmed (written again when the row is written anew). */
	private carried = new Map<string, Snapshot>();
	/** Whether the row must be written anew (something new was recorded, or the row holds more than this run's). */
	private rewrite = true;
	/** Every entry this run's calls recorded that the row did not hold. */
	private readonly recorded = new Set<string>();
	/**
	 * Companies not named now whose static data the row did not confirm (a lost save: the row knows a later
	 * state): the row written anew leaves them out, and so does the static data (a new baseline, never a
	 * change against an older state).
	 */
	private readonly unconfirmed: string[] = [];

	constructor(
		private readonly store: ProcessedItemsStore,
		/** The static data and its notebook, where n8n loaded them (a main process). */
		private readonly main?: { staticData: Record<string, unknown>; notebook: StaticDataMemory },
		/** Which companies of the static data that were neither named nor tried stay (as StaticDataMemory's keep). */
		private readonly keep: (id: string) => boolean = () => true,
		/** The limits above; a test sets smaller ones to reach a rewrite within a few runs. */
		private readonly limits = {
			patches: MAX_PATCHES,
			changedPatches: MAX_CHANGED_PATCHES,
			share: MAX_PATCH_SHARE,
		},
	) {}

	/**
	 * Records entries; returns those the row did not hold before this run (an entry an earlier call of this
	 * run recorded is no proof: a main process whose row turned out not to be its static data's reads it
	 * anew, and the patch it asked first is not in the row as another run's).
	 */
	private async record(entries: string[]): Promise<Set<string>> {
		if (entries.length === 0) return new Set();
		this.counts.calls += 1;
		this.counts.values += entries.length;
		const output = await this.store.checkProcessedAndRecord(entries, 'node', OPTIONS);
		const isNew = new Set(output.new.map(String));
		for (const entry of entries) if (this.recorded.has(entry)) isNew.add(entry);
		for (const entry of output.new) this.recorded.add(String(entry));
		return isNew;
	}

	async recall(
		current: ReadonlyMap<string, CompanySnapshot>,
		unchecked: readonly string[],
	): Promise<Recollections> {
		const staticData = this.main?.staticData;
		const notebook = this.main?.notebook;
		const mark = loadMark(staticData?.[MARK_KEY]);
		const savedIds = Object.keys(savedCompanies(staticData));
		const failed = new Set(unchecked);
		if (notebook && mark && mark.patches < this.limits.patches) {
			// The patch this run appends: the companies that differ from the static data, and those it drops.
			const k = mark.patches + 1;
			const patch: string[] = [];
			const differ: string[] = [];
			for (const [id, now] of current) {
				const before = notebook.saved(id);
				if (before && sameSnapshot(before, now)) continue;
				differ.push(id);
				patch.push(patchedEntry(id), patchedAtEntry(id, k), ...stateEntries(id, now, k));
			}
			const dropped = savedIds.filter(
				(id) => !current.has(id) && !failed.has(id) && !this.keep(id),
			);
			for (const id of dropped) patch.push(patchedEntry(id), patchedAtEntry(id, k));
			if (patch.length > 0) patch.push(changedPatchMarker(k));
			const asked = [
				markEntry(mark.token, mark.entries),
				...(mark.patches > 0 ? [patchMarker(mark.patches)] : []),
				patchMarker(k),
				...patch,
			];
			const isNew = await this.record(asked);
			// The row is the one the static data's run left: its base, exactly its patches, none after.
			this.trusted =
				!isNew.has(asked[0]) &&
				(mark.patches === 0 || !isNew.has(patchMarker(mark.patches))) &&
				isNew.has(patchMarker(k));
			if (this.trusted) {
				const changedPatches = mark.changedPatches + (patch.length > 0 ? 1 : 0);
				const patchEntries = mark.patchEntries + patch.length;
				this.appendOnly =
					k < this.limits.patches &&
					changedPatches <= this.limits.changedPatches &&
					patchEntries <= this.limits.share * mark.entries;
				this.nextMark = { ...mark, patches: k, changedPatches, patchEntries };
				for (const id of savedIds)
					if (!current.has(id) && !dropped.includes(id)) this.carried.set(id, notebook.saved(id)!);
				const known = new Map<string, Recollection>();
				for (const id of differ) {
					const before = notebook.saved(id);
					// Held: another run appended this very state (and reported it).
					const now = current.get(id)!;
					if (!isNew.has(statusEntry(id, now.s, k))) known.set(id, { previous: now });
					else if (before) known.set(id, { previous: before });
				}
				const differs = new Set(differ);
				return {
					get: (id) => {
						if (differs.has(id)) return known.get(id);
						const now = current.get(id);
						return now && { previous: now };
					},
				};
			}
		}
		return await this.readRow(current, unchecked);
	}

	/**
	 * As a worker reads the row (and a main process whose static data does not vouch for it): each company
	 * named now asked in its current state; where the row is not a worker's, its patches too.
	 */
	private async readRow(
		current: ReadonlyMap<string, CompanySnapshot>,
		unchecked: readonly string[],
	): Promise<Recollections> {
		this.trusted = false;
		this.appendOnly = false;
		// Companies not named now: asked in the static data's state, where there is one.
		const absent = new Map<string, Snapshot>();
		for (const id of unchecked) {
			const saved = this.main?.notebook.saved(id);
			if (saved) absent.set(id, saved);
		}
		for (const id of this.main?.notebook.kept(current) ?? [])
			absent.set(id, this.main!.notebook.saved(id)!);
		const asked = new Map<string, Snapshot>([...current, ...absent]);
		// An empty row (a first run): nothing to ask, every company a new baseline.
		this.counts.calls += 1;
		if ((await this.store.getProcessedDataCount('node', OPTIONS)) === 0) {
			this.unconfirmed.push(...absent.keys());
			return new Map();
		}
		const first = [WORKER_ROW];
		for (const [id, snapshot] of asked) first.push(...stateEntries(id, snapshot));
		const firstNew = await this.record(first);
		const workerRow = !firstNew.has(WORKER_ROW);
		const baseHeld = (id: string, snapshot: Snapshot) => {
			const [status, name, address] = stateEntries(id, snapshot);
			const statusHeld = !firstNew.has(status);
			return {
				status: statusHeld,
				name: name === undefined ? statusHeld : !firstNew.has(name),
				address: address === undefined ? statusHeld : !firstNew.has(address),
			};
		};
		// 2. The patches (a row a main process wrote), and each company's other statuses where its current
		// entries were not all held.
		const second: string[] = [];
		if (!workerRow) {
			for (let k = 1; k <= MAX_PATCHES; k++) second.push(patchMarker(k), changedPatchMarker(k));
			for (const id of asked.keys()) second.push(patchedEntry(id));
		}
		for (const [id, snapshot] of asked) {
			const held = baseHeld(id, snapshot);
			if (held.status && held.name && held.address) continue;
			for (const status of STATUSES)
				if (status !== snapshot.s) second.push(statusEntry(id, status));
		}
		const secondNew = await this.record(second);
		let patches = 0;
		while (patches < MAX_PATCHES && !secondNew.has(patchMarker(patches + 1))) patches += 1;
		const changedPatches: number[] = [];
		for (let k = 1; k <= patches; k++)
			if (!secondNew.has(changedPatchMarker(k))) changedPatches.push(k);
		const patched = workerRow
			? []
			: [...asked.keys()].filter((id) => !secondNew.has(patchedEntry(id)));
		// 3. A patched company: its last patch, and its state there.
		const third: string[] = [];
		for (const id of patched) {
			const snapshot = asked.get(id)!;
			for (const k of changedPatches) {
				third.push(patchedAtEntry(id, k), ...stateEntries(id, snapshot, k));
				for (const status of STATUSES)
					if (status !== snapshot.s) third.push(statusEntry(id, status, k));
			}
		}
		const thirdNew = await this.record(third);
		const states = new Map<string, RowState | undefined>();
		const oneStatus = (held: (status: Status) => boolean) => {
			const found = STATUSES.filter(held);
			// None: unknown (dropped, or never written); more than one: a row not to be trusted.
			return found.length === 1 ? found[0] : undefined;
		};
		for (const id of patched) {
			const snapshot = asked.get(id)!;
			const last = [...changedPatches].reverse().find((k) => !thirdNew.has(patchedAtEntry(id, k)));
			if (last === undefined) {
				states.set(id, undefined);
				continue;
			}
			const [status, name, address] = stateEntries(id, snapshot, last);
			const statusHeld = (s: Status) =>
				!thirdNew.has(s === snapshot.s ? status : statusEntry(id, s, last));
			const found = oneStatus(statusHeld);
			// Not registered: the status says all.
			const none = snapshot.s === 'N';
			states.set(
				id,
				found && {
					status: found,
					nameHeld: none ? found === 'N' : !thirdNew.has(name),
					addressHeld: none ? found === 'N' : !thirdNew.has(address),
				},
			);
		}
		for (const [id, snapshot] of asked) {
			if (states.has(id)) continue;
			const held = baseHeld(id, snapshot);
			const found = oneStatus((s) =>
				s === snapshot.s ? held.status : !secondNew.has(statusEntry(id, s)),
			);
			const none = snapshot.s === 'N';
			states.set(
				id,
				found && {
					status: found,
					nameHeld: none ? found === 'N' : held.name,
					addressHeld: none ? found === 'N' : held.address,
				},
			);
		}
		// What this run's calls recorded that the row did not hold: the row is then written anew.
		const quiet =
			workerRow &&
			firstNew.size === 0 &&
			secondNew.size === 0 &&
			thirdNew.size === 0 &&
			absent.size === 0;
		const written = 1 + [...current.values()].reduce((sum, s) => sum + (s.s === 'N' ? 1 : 3), 0);
		// A main process writes the row anew with its mark (a worker's row holds none).
		this.rewrite =
			this.main !== undefined ||
			!quiet ||
			(await this.store.getProcessedDataCount('node', OPTIONS)) !== written;
		const known = new Map<string, Recollection>();
		for (const [id, snapshot] of asked) {
			const state = states.get(id);
			if (
				!current.has(id) &&
				!(state && state.status === snapshot.s && state.nameHeld && state.addressHeld)
			)
				this.unconfirmed.push(id);
			if (!state) continue;
			const unchanged = state.status === snapshot.s && state.nameHeld && state.addressHeld;
			if (!current.has(id)) {
				// Not named now: carried where the row confirmed the static data's state.
				if (unchanged) this.carried.set(id, snapshot);
				continue;
			}
			if (unchanged) {
				known.set(id, { previous: snapshot });
				continue;
			}
			const registeredNow = snapshot.s !== 'N';
			const nameChanged = state.status !== 'N' && !(registeredNow && state.nameHeld);
			const addressChanged = state.status !== 'N' && !(registeredNow && state.addressHeld);
			known.set(id, {
				previous: {
					s: state.status,
					...(state.status !== 'N'
						? {
								n: nameChanged ? undefined : snapshot.n,
								a: addressChanged ? undefined : snapshot.a,
							}
						: {}),
				},
				detailsChanged: { officialName: nameChanged, registeredAddress: addressChanged },
			});
		}
		return known;
	}

	async remember(
		current: ReadonlyMap<string, CompanySnapshot>,
		unchecked: readonly string[],
	): Promise<void> {
		const staticData = this.main?.staticData;
		if (this.trusted && this.appendOnly) {
			// The patch is in the row since recall's one call: nothing more is written.
			staticData![MARK_KEY] = this.nextMark;
		} else if (this.rewrite || this.trusted) {
			const entries: string[] = this.main ? [] : [WORKER_ROW];
			for (const [id, snapshot] of this.carried) entries.push(...stateEntries(id, snapshot));
			for (const [id, snapshot] of current) entries.push(...stateEntries(id, snapshot));
			this.counts.calls += 2;
			this.counts.values += entries.length + 1;
			await this.store.clearAllProcessedItems('node', OPTIONS);
			const token = randomUUID();
			if (this.main) entries.push(markEntry(token, entries.length));
			await this.store.checkProcessedAndRecord(entries, 'node', OPTIONS);
			if (staticData)
				staticData[MARK_KEY] = {
					token,
					entries: entries.length - 1,
					patches: 0,
					changedPatches: 0,
					patchEntries: 0,
				} satisfies PatchMark;
		}
		await this.main?.notebook.remember(current, unchecked);
		if (staticData && this.unconfirmed.length > 0) {
			const companies = savedCompanies(staticData);
			for (const id of this.unconfirmed) delete companies[id];
			staticData.companies = JSON.stringify(companies);
		}
	}
}
