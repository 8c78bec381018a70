import { z } from 'zod';

import type { CompanyRecord } from './companyRecord';
import type { LookupKey } from './lookupKey';

/**
 * What is remembered of one company between executions, in the workflow's static data. Short field
 * names keep a 50,000-company list small: about 120 bytes a company with a name and an address.
 */
const companySnapshotSchema = z.object({
	/** 'A' Active, 'I' Inactive, 'N' not registered. */
	s: z.enum(['A', 'I', 'N']),
	/** Official name, when registered. */
	n: z.string().optional(),
	/** Registered address, when registered and known. */
	a: z.string().optional(),
	/** The last day the company was looked up, in days since 1970-01-01 (UTC). */
	d: z.number().int().nonnegative(),
});

export type CompanySnapshot = z.infer<typeof companySnapshotSchema>;

/** What was known of a company before; the last check's day is not known where only n8n's processed-items store remembered it. */
export type PreviousSnapshot = Omit<CompanySnapshot, 'd'> & { d?: number };

/** The static data a watch keeps: one snapshot per company key. */
export interface WatchState {
	companies?: Record<string, CompanySnapshot>;
}

/**
 * Checks the state n8n loaded (it may be old, hand-edited or corrupt) and mends it in place: entries
 * that are not snapshots are dropped, so their companies start a new baseline instead of producing a
 * false change or crashing every run. Returns how many entries were dropped (the whole list counts one).
 */
function repairWatchState(state: Record<string, unknown>): number {
	const companies = state.companies;
	if (companies === undefined) return 0;
	if (typeof companies !== 'object' || companies === null || Array.isArray(companies)) {
		state.companies = {};
		return 1;
	}
	let dropped = 0;
	for (const [key, snapshot] of Object.entries(companies as Record<string, unknown>)) {
		if (!companySnapshotSchema.safeParse(snapshot).success) {
			delete (companies as Record<string, unknown>)[key];
			dropped += 1;
		}
	}
	return dropped;
}

export type WatchedField = 'registration' | 'status' | 'officialName' | 'registeredAddress';

export type WatchEvent = 'firstSeen' | 'deregistered' | 'reregistered' | 'turnedInactive' | 'turnedActive' | 'detailsChanged';

export interface CompanyChange {
	event: WatchEvent;
	changedFields: WatchedField[];
	changes: Partial<Record<WatchedField, { previous: string | boolean | null; current: string | boolean | null }>>;
}

export const dayNumber = (time: Date): number => Math.floor(time.getTime() / 86_400_000);

/**
 * The watch state in n8n's static data, checked and mended (see repairWatchState); what was dropped is
 * said once in n8n's log.
 */
export function loadWatchState(staticData: Record<string, unknown>, logger: { warn(message: string, meta?: object): void }): WatchState {
	const dropped = repairWatchState(staticData);
	if (dropped > 0) {
		logger.warn('Company Registry: the saved watch state had entries that are not company snapshots; they were dropped and start a new baseline', { dropped });
	}
	return staticData as WatchState;
}

/**
 * Hands the updated state back to n8n. n8n notices changes to static data only through the objects it
 * handed out: writes inside a `companies` object created later (or kept by a long-lived active
 * workflow) would not be saved, and after a restart a change would be reported again. Assigning the
 * list marks the state changed, so n8n saves it whole.
 */
export function saveWatchState(staticData: Record<string, unknown>, state: WatchState): void {
	staticData.companies = state.companies ?? {};
}

/** `%` and `|` percent-encoded, so that an id holding `|` cannot pose as an id with a language. */
const keyPart = (text: string) => text.replace(/%/g, '%25').replace(/\|/g, '%7C');

/**
 * The key a company is remembered under: readable in the static data, one per country, state, id and
 * language, and never the same for two different lookups (`de/X|en` is id X in English; id `X|en`
 * is `de/X%7Cen`). Ids without `%` or `|` keep the key earlier versions gave them.
 */
export function watchKey(key: LookupKey): string {
	const state = key.stateCode ? `:${key.stateCode}` : '';
	const language = key.languageCode ? `|${keyPart(key.languageCode)}` : '';
	return `${key.countryCode}${state}/${keyPart(key.companyId)}${language}`;
}

export function snapshotOf(record: CompanyRecord, day: number): CompanySnapshot {
	if (!record.isRegistered) return { s: 'N', d: day };
	return {
		s: record.status === 'Active' ? 'A' : 'I',
		n: record.officialName,
		...(record.registeredAddress !== undefined ? { a: record.registeredAddress } : {}),
		d: day,
	};
}

const statusName = (snapshot: Pick<CompanySnapshot, 's'>) => (snapshot.s === 'A' ? 'Active' : snapshot.s === 'I' ? 'Inactive' : null);

/**
 * What changed between the last snapshot and the current one, or undefined when nothing did.
 * Leaving or re-entering the register is one change ("registration"), not four.
 */
export function compareSnapshots(
	previous: PreviousSnapshot,
	current: CompanySnapshot,
	/** Where only n8n's processed-items store knows: whether the name and address changed (their old values may not be known). */
	detailsChanged?: { officialName: boolean; registeredAddress: boolean },
): CompanyChange | undefined {
	const wasRegistered = previous.s !== 'N';
	const isRegistered = current.s !== 'N';
	if (wasRegistered !== isRegistered) {
		return {
			event: isRegistered ? 'reregistered' : 'deregistered',
			changedFields: ['registration'],
			changes: { registration: { previous: wasRegistered, current: isRegistered } },
		};
	}
	if (!isRegistered) return undefined;
	const change: CompanyChange = { event: 'detailsChanged', changedFields: [], changes: {} };
	const compare = (field: Exclude<WatchedField, 'registration'>, before: string | null, after: string | null) => {
		const changed = field === 'status' || !detailsChanged ? before !== after : detailsChanged[field];
		if (!changed) return;
		change.changedFields.push(field);
		change.changes[field] = { previous: before, current: after };
	};
	compare('status', statusName(previous), statusName(current));
	compare('officialName', previous.n ?? null, current.n ?? null);
	compare('registeredAddress', previous.a ?? null, current.a ?? null);
	if (change.changedFields.length === 0) return undefined;
	if (change.changes.status) change.event = current.s === 'I' ? 'turnedInactive' : 'turnedActive';
	return change;
}

/** Drops companies not looked up for more than `days` days; returns them, by key. */
export function forgetUnseen(state: WatchState, today: number, days: number): Array<[string, CompanySnapshot]> {
	if (!state.companies || days <= 0) return [];
	const forgotten: Array<[string, CompanySnapshot]> = [];
	for (const [key, snapshot] of Object.entries(state.companies)) {
		if (today - snapshot.d > days) {
			delete state.companies[key];
			forgotten.push([key, snapshot]);
		}
	}
	return forgotten;
}

/** Drops remembered companies whose key is not among `keys` (a watchlist that lost some entries). */
export function keepOnly(state: WatchState, keys: LookupKey[]): void {
	if (!state.companies) return;
	const listed = new Set(keys.map(watchKey));
	for (const id of Object.keys(state.companies)) if (!listed.has(id)) delete state.companies[id];
}

/**
 * Compares each looked-up company with what the state remembers, updates the state, and returns the
 * changes (and first sightings, when asked for). Several rows for one company count once.
 */
export interface FoundChange {
	key: LookupKey;
	record: CompanyRecord;
	change: CompanyChange;
	previous?: PreviousSnapshot;
	/** The input row the change was found on. */
	itemIndex: number;
}

export function detectChanges(
	state: WatchState,
	lookups: ReadonlyArray<{ key: LookupKey; record: CompanyRecord; itemIndex: number }>,
	options: { now: Date; reportFirstSightings: boolean },
): FoundChange[] {
	const companies = (state.companies ??= {});
	const today = dayNumber(options.now);
	const seen = new Set<string>();
	const found: FoundChange[] = [];
	for (const { key, record, itemIndex } of lookups) {
		const id = watchKey(key);
		if (seen.has(id)) continue;
		seen.add(id);
		const previous = companies[id];
		const current = snapshotOf(record, today);
		companies[id] = current;
		if (!previous) {
			if (options.reportFirstSightings) {
				found.push({ key, record, itemIndex, change: { event: 'firstSeen', changedFields: [], changes: {} } });
			}
			continue;
		}
		const change = compareSnapshots(previous, current);
		if (change) found.push({ key, record, change, previous, itemIndex });
	}
	return found;
}

const isoDay = (day: number) => new Date(day * 86_400_000).toISOString().slice(0, 10);

/** The JSON of one change item, as both the Watch for Changes operation and the trigger output it. */
export function changeItemJson(
	found: Pick<FoundChange, 'key' | 'record' | 'change' | 'previous'>,
	now: Date,
) {
	const { previous } = found;
	return {
		event: found.change.event,
		changedFields: found.change.changedFields,
		changes: found.change.changes,
		company: { ...found.record },
		...(previous
			? {
					previous: {
						isRegistered: previous.s !== 'N',
						status: statusName(previous),
						officialName: previous.n ?? null,
						registeredAddress: previous.a ?? null,
						lastCheckedOn: previous.d !== undefined ? isoDay(previous.d) : null,
					},
				}
			: {}),
		lookup: { ...found.key },
		detectedAt: now.toISOString(),
	};
}
