import { randomUUID } from 'node:crypto';

import type { Recollection, Recollections, RowMark, StaticDataMemory, WatchMemory } from './memory';
import { sameText, type CompanySnapshot, type PreviousSnapshot } from './snapshot';
import { BLOCK_SIZE, blocksOf, pushRowOf, type Blocks } from './storeBlocks';
import {
	detailsUnknownEntry,
	earlierEntries,
	entriesCount,
	entriesOf,
	entry,
	foldedOf,
	heldAlone,
	pushEntriesOf,
	RowEntries,
	sameSnapshot,
	statusEntry,
	STATUSES,
	type TextField,
} from './storeEntries';
import {
	allHeld,
	Asked,
	FOLDED_QUESTIONS_MAX_SHARE,
	foldedQuestions,
	otherStatuses,
	probed,
	type Held,
} from './storeQuestions';
import {
	nextPatch,
	NO_PATCHES,
	PATCH_LIMITS,
	PatchReading,
	patchQuestions,
	ROW_PATCHED,
	trustQuestions,
	trustsRow,
	unchangedIn,
	type PatchedState,
	type PatchLimits,
	type RowPatches,
} from './storePatches';
import {
	rowEmptiedEntry,
	rowEntry,
	STORE_CAPACITY,
	StoreRow,
	type ProcessedItemsStore,
} from './storeRow';

/**
 * The watch's memory in n8n's processed-items store (the deduplication helpers, kept in n8n's database).
 * Why: a queue-mode worker of n8n 2.41.1 starts every execution without the saved static data, and
 * overlapping runs overwrite each other's static data (last writer wins).
 *
 * Its parts, one concern a file: the store's row, its calls, its marks and a failed run's undo
 * (storeRow.ts); the entries a company has in it and their earlier forms (storeEntries.ts); the block
 * entries of a worker's row (storeBlocks.ts); what steps 1 and 2 ask and what the answers say
 * (storeQuestions.ts). Here: the run, which reads once, compares, and writes the memory anew (n8n's
 * removeProcessed is quadratic over a run; storeRow.ts), three entries a registered company (its status,
 * its name, its address; one not registered: its status), and a block entry per 10 companies (their
 * entries in one text, before them):
 *   1. records each block entry, then the three entries of each company whose block the store did not
 *      hold: those it held all are unchanged, and of the others it says which of status, name and
 *      address changed (a block held: its companies are unchanged);
 *   2. for the few that are not, asks the statuses it may have had, and whether only its status was known
 *      (and the static data's name and address, where n8n loaded it and they are not the current ones);
 *   3. clears the row and records the current entries, company by company.
 * A company's entries go in one order, status first: n8n drops the oldest first, so a company whose
 * status entry survived kept its name and address entries too, and a block that survived kept its
 * companies' entries (storeBlocks.ts says why blocks).
 * A worker asks its blocks before it counts the row (a count reads the whole row): a run that finds some
 * held and others not writes the row anew and needs no count; one that finds none held counts, to tell an
 * empty row (a first run: nothing more is asked) from one that holds others; one that finds all held
 * counts at the end if it is still quiet (the row may hold more than it would write). Its block texts are
 * made from the snapshots: a quiet run makes no entries. One whose status entry was dropped is
 * unknown: a new baseline, never a false change. Step 2 asks the status again where step 1 found it: n8n
 * may have trimmed it since (step 1 records too), and with it what step 2 would find.
 * Why three, not fewer: a worker must tell which of status, name and address changed, and know the
 * company when name and address changed together; two entries ([id, status, name], [id, status,
 * address]) would then know neither the company nor its status (a lost alert), and a status entry with
 * one fingerprint of the rest could not tell the name from the address. The earlier version wrote a
 * whole-record entry before these three (a quicker step 1 for a worker, 400,000 entries at 100,000
 * companies instead of 300,000): a row it wrote holds every entry asked here, so an upgrade loses nothing
 * (its blocks are not held: every company is asked, as before, and the row written anew with blocks).
 *
 * What each value costs (n8n 2.41.1, measured in bench/watch.ts): an MD5 hash each (about 3 µs), and each
 * call the whole row (parsed, a Set of it built, written back). So a run passes few values in few calls.
 * The row's mark: a run on a main process writes the row with a random token last (`["row written",
 * token, entries, notAsSaved]`, kept longest by the trimming) and saves that mark in the static data with
 * the companies. A later run whose static data holds that mark, and whose row still holds it, knows the
 * row is exactly that run's: no other run wrote it since (every write clears the row first, so the
 * token goes), and the row holds each company's entries as the static data's snapshot says (except `notAsSaved`:
 * those not named then, whose entries were a status at most). Such a run asks in step 1 only the mark
 * and the companies whose record differs from the static data (what the row would answer for the
 * others is known: held), and takes the previous snapshot of those from the static data instead of
 * step 2. The row it writes is as complete as ever: a worker reading it afterwards knows all it knew
 * before (the seal tried earlier wrote fewer entries, and a worker then missed name and address changes).
 * Where the mark is missing (a worker wrote the row since, a run's static data was lost, the row was
 * emptied), the rest of step 1 is asked: the run then costs what it did without the mark (and, where the
 * row held none of it, a count tells an emptied row from one that holds others). The changed companies'
 * entries are still recorded in step 1, so of two overlapping runs only one reports a change, as
 * before. A row too long for the store's capacity gets no mark (n8n would trim what the mark vouches for).
 *
 * Patches (storePatches.ts): such a run does not write the row anew at all where it may patch it. In the
 * call that asks the mark it appends its patch (the companies that differ from the static data, tagged
 * with the patch's number) and asks that no run appended or read since; trusted, it is done: one call on
 * the row, some 5,000 values at 100,000 companies with 1% changed, where step 3 wrote 300,000. Every
 * other run asks whether the row holds patches and, where it does, each company's last state in them;
 * it writes the row anew, which drops them.
 *
 * A row found empty (a run that died between its clear and its write, a write and its write-back that both
 * failed, a failed run's undo past its bound, a row cleared by hand): its static data is the memory only
 * where the row holds the entry a failed run's undo leaves where it found the row as the static data's mark
 * says (storeRow.ts, rowEmptiedEntry). Else a worker, or a run whose save was lost, may have reported from
 * the row before it was emptied, and the static data would report those changes again (found with the
 * memory's own capacity: a worker whose write failed after its clear on a trimmed row had nothing to write
 * back): every company starts a new baseline, on a main process too.
 */
export class ProcessedItemsMemory implements WatchMemory {
	/** What `remember` writes for companies this run could not check (or did not name): their previous entries. */
	private carried: string[] = [];
	/** The companies not named now whose entries in the row are not the static data's snapshot (a status at most). */
	private notAsSaved: string[] = [];
	/** The blocks of the companies named now, where recall built them (a worker's run): step 3 writes them. */
	private blocks: Blocks | undefined;
	/**
	 * The last successful run's entries of the companies found changed, as far as recall learned them: with
	 * the unchanged companies' entries (the same as this run's), written back if step 3 fails after the clear.
	 */
	private previousOfChanged = new Map<string, string[]>();
	/** The companies step 1 found changed (or all, in a new store). */
	private changed: Pick<ReadonlySet<string>, 'has'> = new Set<string>();
	/** Whether the store's row already holds exactly what step 3 would write (nothing changed, nothing to drop). */
	private rowIsCurrent = false;
	/** How many entries the store held before this run (-1: not known; asked only where the row may stay as it is). */
	private heldBefore = 0;
	/** The node's row in the store, and the undo of a run that fails. */
	private readonly row: StoreRow;
	/** The mark to save where this run appended its patch (storePatches.ts): nothing more is written. */
	private appended: RowMark | undefined;

	/**
	 * `notebook`: the static data, where n8n loaded it; it adds old names, addresses and days the store
	 * cannot give. `maxEntries`: the row's capacity (tests give a few companies' worth, standing for 500,000).
	 */
	constructor(
		store: ProcessedItemsStore,
		private readonly notebook?: StaticDataMemory,
		maxEntries = STORE_CAPACITY,
		/** When a patched row is written anew (storePatches.ts); tests set smaller ones. */
		private readonly limits: PatchLimits = PATCH_LIMITS,
	) {
		this.row = new StoreRow(store, maxEntries);
	}

	async recall(
		current: ReadonlyMap<string, CompanySnapshot>,
		unchecked: readonly string[],
	): Promise<Recollections> {
		const saved = (id: string) => this.notebook?.saved(id);
		const mark = this.notebook?.rowMark;
		const patches = mark?.patches;
		this.appended = undefined;
		// The mark's companies a patch has named since are in the row as the static data says (or not at all).
		const settled = new Set(patches?.settled);
		const notAsSavedBefore = new Set(mark?.notAsSaved.filter((id) => !settled.has(id)));
		/** The static data's snapshot of a company, where the marked row holds exactly its entries. */
		const asInRow = (id: string) => (mark && !notAsSavedBefore.has(id) ? saved(id) : undefined);
		// Neither list names a company named now (the detector's and the static data's `kept` leave them out).
		const absent = [...new Set([...unchecked, ...(this.notebook?.kept(current) ?? [])])];
		this.row.start(entriesCount(current) + current.size / BLOCK_SIZE + 3 * absent.length);
		const count = async () => await this.row.count();
		// A store with no entries at all: a first run, a watch saved by an earlier version (static data
		// only), or a row emptied since (staticDataIsMemory below says when the static data is still the
		// memory: only after a failed run's undo that found the mark). Nothing is asked of it. A mark says the
		// row was written (and, if it still holds the mark, what it holds): no count is needed. A worker
		// asks its blocks first and counts only where that can tell something (below); a main process
		// without its mark (a first run, a lost save) counts first: a first run then asks no blocks.
		const countFirst = !mark && this.notebook !== undefined;
		this.heldBefore = mark ? mark.entries : countFirst ? await count() : -1;
		let storeIsNew = this.heldBefore === 0 && !mark;
		// No static data to vouch for the row (a worker): first the blocks, then the entries of the
		// companies whose block the row does not hold. A block held: its companies are as it says.
		// A main process's first run (its row empty, no mark) writes none either: its next run has the mark,
		// and its blocks were some 40 MB of texts, slices and bounds at 100,000 companies that a worker
		// would use only if queue mode came later (it then asks every company once, as after a marked run).
		this.blocks = mark || storeIsNew ? undefined : blocksOf(current);
		/** Block entries the store did not hold (recorded now). */
		const blockNew =
			this.blocks && !storeIsNew ? await this.row.ask(this.blocks.texts) : new Set<string>();
		// A worker's row that held none of the blocks may be empty: a count tells (the row then holds the
		// blocks alone; beyond the store's capacity n8n trimmed what it held, and every company is unknown
		// either way). One that held some and not others is written anew: what it held is not needed; one
		// that held all is counted at the end, if the run is still quiet.
		if (this.heldBefore < 0 && blockNew.size === this.blocks!.texts.length) {
			this.heldBefore = (await count()) - blockNew.size;
			storeIsNew = this.heldBefore === 0;
		}

		// 1. The entries of each company named now, and the static data's of those not checked. Those the
		// marked row holds as the static data says are asked only if the row turns out not to be it.
		const asked = new Asked(!storeIsNew);
		// Their entries are made only if asked: most of a long list.
		const deferred: string[] = [];
		if (this.blocks && !storeIsNew) {
			for (const [index, block] of this.blocks.texts.entries())
				if (blockNew.has(block)) asked.addBlock(this.blocks, index, current);
		} else {
			for (const [id, now] of current) {
				const before = asInRow(id);
				if (before && sameSnapshot(before, now)) deferred.push(id);
				else asked.add(id, now);
			}
		}
		const absentAsked = new Asked(!storeIsNew);
		const absentDeferred: string[] = [];
		/** Companies not named now and not in the static data: only a status can be known of them. */
		const absentUnsaved: string[] = [];
		for (const id of absent) {
			const before = saved(id);
			if (!before) absentUnsaved.push(id);
			else if (asInRow(id)) absentDeferred.push(id);
			else absentAsked.add(id, before);
		}
		// Most companies are unchanged: the few new entries are what a run has to look at.
		// A new store holds nothing: asking it would only add entries step 3 clears again.
		this.previousOfChanged = new Map();
		const markEntry = mark ? rowEntry(mark) : undefined;
		// The patch this run appends where its static data vouches for the row (none: the row is written anew).
		const patch =
			mark && patches
				? this.patchToAppend(mark, patches, asked, current, unchecked, notAsSavedBefore)
				: undefined;
		// Whether the row may hold patches the static data does not vouch for (a main process's row, or one
		// this run writes anew): step 1 asks whether it holds any, a call after it which patches named
		// companies and whether one named each company, and step 2 a patched company's state in them
		// (storePatches.ts). A worker asks wherever it asks a company: a patched row holds no block, but a
		// worker killed after asking its blocks leaves them held (the companies they speak for are as that
		// worker saw them; the others may be patched).
		let patchAsked =
			(patches !== undefined && patches.count > 0 && !patch) ||
			(this.blocks !== undefined && !storeIsNew && blockNew.size + absent.length > 0);
		// A worker with few companies asked (its blocks mostly held) asks step 2's questions of every one of
		// them in step 1's call: one call on the whole row fewer, for three values more a company asked (a
		// patched row's questions come after, in step 2).
		const folded =
			!this.notebook &&
			!storeIsNew &&
			asked.ids.length <= current.size * FOLDED_QUESTIONS_MAX_SHARE;
		// Whether the row is exactly the static data's: its mark, the patches the mark counts, none after.
		// A patch of its marker alone (a quiet run's) needs no proof that no reader asked since.
		const quiet = patch !== undefined && patch.entries.length === 1;
		// A mark without patches (a row with blocks, or an earlier version's) is asked as one with none yet:
		// a run that asked the mark and died records it again, and its markers with it.
		const trust = mark ? trustQuestions(patches ?? NO_PATCHES, quiet) : [];
		const first = storeIsNew
			? []
			: patch
				? [...new Set([markEntry!, ...patch.entries, ...trust])]
				: [
						...(markEntry ? [markEntry] : []),
						...trust,
						...asked.entries,
						...absentAsked.entries,
						...otherStatuses(absentAsked),
						...(patchAsked && !trust.includes(ROW_PATCHED) ? [ROW_PATCHED] : []),
						...(folded ? foldedQuestions(asked, absentUnsaved) : []),
					];
		const firstNew = await this.row.ask(first);
		const rowAsMarked =
			markEntry !== undefined &&
			!firstNew.has(markEntry) &&
			trustsRow(patches ?? NO_PATCHES, quiet, (entry) => firstNew.has(entry));
		if (rowAsMarked) this.row.markHeld(mark!);
		if (patch && rowAsMarked) {
			// The row is the static data's, and now holds this run's patch: nothing more is asked or written.
			this.appended = patch.next;
			return this.patchedRecollections(current, patch.differ);
		}
		/** Whether the row was emptied by a failed run that found it as the static data's mark says. */
		let emptiedAsMarked = false;
		if (markEntry && !rowAsMarked) {
			// Another run wrote the row since (a worker, a run whose static data was lost), or patched it: all is
			// asked (a patch asked none of the companies' entries), and the patches.
			const [from, absentFrom, absentIdsFrom] = patch
				? [0, 0, 0]
				: [asked.entries.length, absentAsked.entries.length, absentAsked.ids.length];
			for (const id of deferred) asked.add(id, current.get(id)!);
			for (const id of absentDeferred) absentAsked.add(id, saved(id)!);
			const emptied = rowEmptiedEntry(mark!);
			// Whether the row holds patches (unless step 1 asked: its own patch says so too).
			const rest = [
				...asked.entries.slice(from),
				...absentAsked.entries.slice(absentFrom),
				...otherStatuses(absentAsked, absentIdsFrom),
				...(first.includes(ROW_PATCHED) ? [] : [ROW_PATCHED]),
				emptied,
			];
			patchAsked = true;
			const restNew = await this.row.ask(rest);
			emptiedAsMarked = !restNew.has(emptied);
			for (const entry of restNew) if (entry !== emptied) firstNew.add(entry);
			deferred.length = 0;
			absentDeferred.length = 0;
			// Nothing held, not even the mark: the row may have been empty (a crash after the clear), or held
			// the emptied entry alone; it holds that entry now either way. A count of recorded + 1 tells that
			// only below the capacity: a row trimmed to it held more.
			const recorded = first.length + rest.length - 1;
			if (firstNew.size === recorded && recorded + 1 < this.row.capacity)
				storeIsNew = (await count()) === recorded + 1;
		}
		/**
		 * Whether the static data is the memory of a row found empty: only where the row was emptied by a
		 * failed run that found it as the static data's mark says (and still held it before its clear). Else
		 * the row was emptied since (a run that died between its clear and its write, a write and its
		 * write-back both failing, a failed run's undo), and a worker or a run whose save was lost may have
		 * reported from it meanwhile: every company starts a new baseline, never a change reported again.
		 * Static data without a mark cannot tell (an earlier version saved none where a worker wrote the
		 * row, or none at all): a first run on the store after static data alone is a new baseline too.
		 */
		const staticDataIsMemory = emptiedAsMarked;
		const isNew = (entry: string) => storeIsNew || firstNew.has(entry);
		// A row that holds patches: which named companies, and whether one named each company asked (their
		// answers count as step 1's: an entry this run's own patch recorded is new).
		const rowPatched = patchAsked && !storeIsNew && !isNew(ROW_PATCHED);
		if (rowPatched) {
			const questions = patchQuestions([...asked.ids, ...absentAsked.ids, ...absentUnsaved]);
			for (const entry of await this.row.ask(questions)) firstNew.add(entry);
		}
		const reading = rowPatched ? new PatchReading(isNew) : undefined;
		/**
		 * Companies whose flag says a patch named them: their last state is there, not in the untagged entries.
		 * Step 2 asks both (a killed reader's question leaves a flag no patch wrote: `latest` tells).
		 */
		const patchedNamed: string[] = [];
		const patchedAbsent: string[] = [];
		/** The companies named now whose entries were not all held, with what was. */
		const changed = new Map<string, Held>();
		/**
		 * Names and addresses step 1 found not held: step 2 asks them in the forms earlier versions wrote too
		 * (earlierEntries: a row they wrote holds one); held, so is the field.
		 */
		const asCame: Array<{ entry: string; held: Held; field: TextField }> = [];
		// Not registered: no name or address, so none asked. A new store holds no form and is asked nothing:
		// made for every company of a first run, they cost it 0.4-0.6 s at 100,000 companies.
		const askAsCame = (id: string, snapshot: Omit<CompanySnapshot, 'd'>, held: Held) => {
			if (storeIsNew) return;
			if (!held.name)
				for (const name of earlierEntries(id, 'name', snapshot.n))
					asCame.push({ entry: name, held, field: 'name' });
			if (!held.address)
				for (const address of earlierEntries(id, 'address', snapshot.a))
					asCame.push({ entry: address, held, field: 'address' });
		};
		/** A changed company whose previous snapshot the static data holds, the row being as marked. */
		const fromNotebook = (id: string) => rowAsMarked && asInRow(id) !== undefined;
		asked.walk(isNew, (id, now, held) => {
			const vouched = fromNotebook(id);
			if (!vouched && reading?.patched(id)) patchedNamed.push(id);
			// On a patchable row the static data is its last state, whatever untagged entries say (a patch since
			// may have set it back to what they say: A, B, A).
			if (allHeld(held) && !(vouched && patches)) return;
			changed.set(id, held);
			// Its previous snapshot is the static data's, compared as `sameText` does: no form to ask.
			if (!vouched) askAsCame(id, now, held);
		});
		const carriedWhole: string[] = [...absentDeferred];
		/**
		 * Companies not named now, with the status step 1 found of each held alone (every status was asked in
		 * its call: a run killed after it leaves them all held, never the static data's alone), and what it
		 * held. Step 2 asks every status again, and that one must still be held.
		 */
		const absentHeld = new Map<string, { status: CompanySnapshot['s'] | undefined; held: Held }>();
		absentAsked.walk(isNew, (id, before, held) => {
			if (reading?.patched(id)) patchedAbsent.push(id);
			absentHeld.set(id, { status: heldAlone((status) => !isNew(statusEntry(id, status))), held });
			askAsCame(id, before, held);
		});
		for (const id of absentUnsaved) if (reading?.patched(id)) patchedAbsent.push(id);

		// 2. For the rest: the statuses that may have been, whether only the status was known, and the
		// static data's name and address where they are not the current ones.
		const questions: string[] = [];
		/** The static data's name or address, in this version's form and the earlier ones' (their rows hold those). */
		const askOld = (id: string, field: TextField, text: string | undefined) => {
			questions.push(entry(id, field, foldedOf(text)), ...earlierEntries(id, field, text));
		};
		if (!storeIsNew && !folded) {
			for (const [id, held] of changed) {
				if (fromNotebook(id)) continue;
				const now = current.get(id)!;
				const before = saved(id);
				for (const status of probed(now.s, held.status)) questions.push(statusEntry(id, status));
				questions.push(detailsUnknownEntry(id));
				if (before && before.s !== 'N') {
					if (now.s === 'N' || !sameText(before.n, now.n)) askOld(id, 'name', before.n);
					if (now.s === 'N' || !sameText(before.a, now.a)) askOld(id, 'address', before.a);
				}
			}
			// Companies not named now: every status. Of those step 1 asked, again where it found one alone (the
			// calls since may have trimmed it: n8n drops the oldest entries past the capacity); all three, so
			// that a run killed after this call leaves no status alone that the trimming took.
			const foundAlone = [...absentHeld.keys()].filter((id) => absentHeld.get(id)!.status);
			for (const id of [...foundAlone, ...absentUnsaved])
				for (const status of STATUSES) questions.push(statusEntry(id, status));
			for (const { entry: asItCame } of asCame) questions.push(asItCame);
		}
		if (!storeIsNew) {
			for (const id of patchedNamed)
				questions.push(...reading!.questions(id, current.get(id), saved(id)));
			for (const id of patchedAbsent) questions.push(...reading!.questions(id, saved(id)));
		}
		const secondNew = await this.row.ask(questions);
		// Every entry step 3 would write was held (unchanged companies hold their three: the status entry is
		// written first, so n8n's trimming never leaves it without the others), and the row holds no more.
		this.rowIsCurrent =
			!storeIsNew && blockNew.size === 0 && firstNew.size === 0 && secondNew.size === 0;
		// All held: the row holds what step 3 would write, unless it holds more (companies no longer named).
		if (this.rowIsCurrent && this.heldBefore < 0) this.heldBefore = await count();
		// Only entries asked in step 2 (folded: in step 1, as the row was before it) are looked up here.
		const questionsNew = folded ? firstNew : secondNew;
		const answers = { has: (entry: string) => !storeIsNew && !questionsNew.has(entry) };
		// A field held as it came is held: a company whose every field is held so is unchanged.
		for (const { entry: asItCame, held, field } of asCame)
			if (answers.has(asItCame)) held[field] = true;
		for (const [id, held] of changed) if (allHeld(held) && !fromNotebook(id)) changed.delete(id);
		/** The status step 2 found of a company, given the one step 1 asked and whether it was held. */
		const statusOf = (id: string, asked: CompanySnapshot['s'] | undefined, wasHeld: boolean) =>
			heldAlone((status) => answers.has(statusEntry(id, status)), probed(asked, wasHeld));
		/** Companies not named now whose details the row does not hold as the static data says: their status, where known. */
		const statusOnly = new Map<string, CompanySnapshot['s'] | undefined>();
		for (const [id, { status, held }] of absentHeld) {
			// Known where step 2 still finds it.
			const found =
				status !== undefined && answers.has(statusEntry(id, status)) ? status : undefined;
			if (allHeld(held) && found === saved(id)!.s) carriedWhole.push(id);
			else statusOnly.set(id, found);
		}
		for (const id of absentUnsaved) statusOnly.set(id, statusOf(id, undefined, false));

		// A patched company's last state: its latest patch's (a run's own patch is no other run's). Those whose
		// flag no patch wrote (no patch named them) are read from the untagged entries, as any other.
		const patchNew = (entry: string) => firstNew.has(entry) || secondNew.has(entry);
		const namedInPatch = (id: string) => reading!.latest(id, patchNew) !== undefined;
		const patchedStates = new Map<string, PatchedState | undefined>();
		for (const id of patchedNamed)
			if (namedInPatch(id))
				patchedStates.set(id, reading!.state(id, patchNew, current.get(id), saved(id)));
		const patchedAbsentStates = new Map<string, PatchedState | undefined>();
		for (const id of patchedAbsent)
			if (namedInPatch(id)) patchedAbsentStates.set(id, reading!.state(id, patchNew, saved(id)));
		// Those a patch named are carried as their latest patch says, not as their untagged entries do.
		const carriedAsSaved = carriedWhole.filter((id) => !patchedAbsentStates.has(id));
		for (const id of patchedAbsentStates.keys()) statusOnly.delete(id);

		const known = new Map<string, Recollection>();
		/**
		 * A changed company's recollection, from its status in the row and what the row held of its current
		 * name and address (`held`); `oldHeld`: whether the row holds the static data's name or address.
		 */
		const recollect = (
			id: string,
			now: CompanySnapshot,
			before: CompanySnapshot | undefined,
			status: CompanySnapshot['s'],
			held: Pick<Held, 'name' | 'address'>,
			detailsUnknown: boolean,
			oldHeld: (field: TextField, text: string | undefined) => boolean,
		) => {
			const registeredNow = now.s !== 'N';
			const nameChanged = !detailsUnknown && status !== 'N' && !(registeredNow && held.name);
			const addressChanged = !detailsUnknown && status !== 'N' && !(registeredNow && held.address);
			// The static data's old value where the row confirms it was the last one (step 2 asked it unless
			// it is the current one, which step 1 found missing).
			const old = (field: 'n' | 'a', entryField: TextField) => {
				if (!before || before.s === 'N' || (registeredNow && sameText(before[field], now[field])))
					return undefined;
				return oldHeld(entryField, before[field]) ? before[field] : undefined;
			};
			const oldName = nameChanged ? old('n', 'name') : now.n;
			const oldAddress = addressChanged ? old('a', 'address') : now.a;
			const previous: PreviousSnapshot = {
				s: status,
				// Not registered: no name or address, as the static data's snapshot has none.
				...(status !== 'N' ? { n: oldName, a: oldAddress } : {}),
				...(before ? { d: before.d } : {}),
			};
			known.set(id, {
				previous,
				detailsChanged: { officialName: nameChanged, registeredAddress: addressChanged },
			});
			const detailsKnown =
				!detailsUnknown &&
				(!nameChanged || oldName !== undefined) &&
				(!addressChanged || oldAddress !== undefined);
			this.previousOfChanged.set(
				id,
				// Not registered: its status entry alone, whatever the details.
				status === 'N' || detailsKnown
					? entriesOf(id, { s: status, n: oldName, a: oldAddress })
					: [statusEntry(id, status), detailsUnknownEntry(id)],
			);
		};
		for (const [id, held] of changed) {
			if (patchedStates.has(id)) continue;
			const now = current.get(id)!;
			const before = saved(id);
			if (before && fromNotebook(id)) {
				// The row holds this snapshot's entries: the static data says all the row would, and more.
				known.set(id, { previous: before });
				this.previousOfChanged.set(id, entriesOf(id, before));
				continue;
			}
			const status = storeIsNew ? undefined : statusOf(id, now.s, held.status);
			if (status === undefined) {
				// Unknown to the store. Only where the store holds nothing and the static data vouches for it.
				if (storeIsNew && before && staticDataIsMemory) known.set(id, { previous: before });
				continue;
			}
			recollect(
				id,
				now,
				before,
				status,
				held,
				answers.has(detailsUnknownEntry(id)),
				(field, text) =>
					[entry(id, field, foldedOf(text)), ...earlierEntries(id, field, text)].some(answers.has),
			);
		}
		const changedIds = new Set(changed.keys());
		for (const [id, state] of patchedStates) {
			const now = current.get(id)!;
			const before = saved(id);
			if (state && unchangedIn(state, now)) {
				changedIds.delete(id);
				continue;
			}
			// None (dropped in that patch, or statuses that make no state): unknown, a new baseline.
			changedIds.add(id);
			if (state)
				recollect(id, now, before, state.status, state, false, (field) =>
					field === 'name' ? state.oldName : state.oldAddress,
				);
		}
		// A new store: every company named is, and `current` says which (a copy was a 100,000-id Set).
		this.changed = storeIsNew ? current : changedIds;

		this.carried = [];
		for (const id of carriedAsSaved) pushEntriesOf(this.carried, id, saved(id)!);
		// A new store holds no status: `statusOnly` knows none.
		for (const [id, status] of statusOnly) {
			if (status === 'N') this.carried.push(statusEntry(id, 'N'));
			else if (status !== undefined)
				this.carried.push(statusEntry(id, status), detailsUnknownEntry(id));
		}
		this.notAsSaved = [...statusOnly.keys()];
		for (const [id, state] of patchedAbsentStates) {
			const before = saved(id);
			if (before && state && unchangedIn(state, before)) pushEntriesOf(this.carried, id, before);
			else {
				// Its status at most: its details in the row are not the static data's.
				if (state) this.carried.push(statusEntry(id, state.status));
				if (state && state.status !== 'N') this.carried.push(detailsUnknownEntry(id));
				this.notAsSaved.push(id);
			}
		}
		// An unchanged company is compared with itself (a change is never shown against it): made when asked for.
		const changedNow = this.changed;
		return {
			get: (id) => {
				if (changedNow.has(id)) return known.get(id);
				const now = current.get(id);
				return now && { previous: now };
			},
		};
	}

	/**
	 * The patch a run whose static data vouches for the row appends (storePatches.ts): the companies named
	 * now that differ from the static data (`asked`: the rest are as the static data says), and those it
	 * drops; none where the row is to be written anew (nextPatch's limits, or a company named now whose
	 * entries in the row are a status at most).
	 */
	private patchToAppend(
		mark: RowMark,
		patches: RowPatches,
		asked: Asked,
		current: ReadonlyMap<string, CompanySnapshot>,
		unchecked: readonly string[],
		notAsSaved: ReadonlySet<string>,
	): { entries: string[]; differ: string[]; next: RowMark } | undefined {
		if (asked.ids.some((id) => notAsSaved.has(id))) return undefined;
		const notebook = this.notebook!;
		const states = asked.ids.map((id, index) => [id, asked.snapshots[index]] as const);
		// The static data's that `remember` forgets, and those the row holds a status of that nobody tried.
		const tried = new Set(unchecked);
		const dropped = notebook.forgotten(current, unchecked);
		for (const id of notAsSaved)
			if (!current.has(id) && !tried.has(id) && !notebook.saved(id)) dropped.push(id);
		const settled = dropped.filter((id) => notAsSaved.has(id));
		const next = nextPatch(
			mark.entries,
			patches,
			{ states, dropped, settled },
			this.limits,
			this.row.capacity,
		);
		return (
			next && { entries: next.entries, differ: asked.ids, next: { ...mark, patches: next.patches } }
		);
	}

	/** What a run that appended its patch recalls: the static data's snapshot of each company that differs. */
	private patchedRecollections(
		current: ReadonlyMap<string, CompanySnapshot>,
		differ: readonly string[],
	): Recollections {
		const changed = new Set(differ);
		this.changed = changed;
		return {
			get: (id) => {
				// One the static data does not hold: new, a baseline.
				if (changed.has(id)) {
					const previous = this.notebook!.saved(id);
					return previous && { previous };
				}
				const now = current.get(id);
				return now && { previous: now };
			},
		};
	}

	async remember(
		current: ReadonlyMap<string, CompanySnapshot>,
		unchecked: readonly string[],
	): Promise<void> {
		// `current` is what recall was given. Its entries are made only when the row is written.
		// Blocks only where recall made them, where no mark vouched for a row that held something (a worker's
		// run; a main process's after another wrote its row): a run the mark vouches for asks none, and
		// writing them cost a main process 0.15-0.3 s a run at 100,000 companies. A worker after it asks
		// every company once; a marked run after a row with blocks writes it anew once.
		const blocks = this.blocks;
		const count = this.carried.length + entriesCount(current) + (blocks?.texts.length ?? 0);
		// The patch is in the row since recall's one call: only the mark changes.
		if (this.appended) this.notebook!.markRow(this.appended);
		// Nothing changed and nothing is to be dropped: the row stays as it is (a quiet run writes nothing). A
		// worker's or an unmarked run's: a run the mark vouches for appends a patch, or finds its markers new
		// and writes the row anew, so a row kept is never one it may mark.
		else if (this.rowIsCurrent && count === this.heldBefore) this.notebook?.markRow(undefined);
		else {
			// The mark's entry too, if any (below): one place more than `count`.
			const row = new RowEntries(count + 1);
			for (const carried of this.carried) row.push(carried);
			if (blocks) pushRowOf(row, blocks);
			else current.forEach((snapshot, id) => pushEntriesOf(row, id, snapshot));
			// 3. Written anew: entries of companies no longer named, and old values, go with the old row.
			await this.row.clear();
			// The row's mark last: n8n's trimming drops the oldest first. A row too long to hold all is not marked.
			const next =
				this.notebook && count < this.row.capacity
					? {
							token: randomUUID(),
							entries: count,
							notAsSaved: this.notAsSaved,
							// A row with blocks is never patched: a block held speaks for its companies' entries.
							...(blocks ? {} : { patches: { count: 0, changed: 0, entries: 0, settled: [] } }),
						}
					: undefined;
			const entries = row.values;
			// Without a mark the last place goes (shortened in place, not copied).
			if (next) row.push(rowEntry(next));
			else entries.length = count;
			await this.row.write(entries).catch(async (error: unknown) => {
				// The row is gone: the last run's entries, as recall learned them, are written back.
				await this.row.write(this.previousEntries(current)).catch(() => undefined);
				throw error;
			});
			this.notebook?.markRow(next);
		}
		// The notebook changes only once the store has answered.
		await this.notebook?.remember(current, unchecked);
	}

	/** The last run's entries as recall learned them: the unchanged companies' are this run's. */
	private previousEntries(current: ReadonlyMap<string, CompanySnapshot>): string[] {
		const entries = [...this.carried];
		for (const [id, snapshot] of current) {
			const previous = this.previousOfChanged.get(id);
			if (previous) entries.push(...previous);
			else if (!this.changed.has(id)) pushEntriesOf(entries, id, snapshot);
		}
		return entries;
	}
}
