import { z } from 'zod';

import { isBlank, type CompanyRecord } from '../model/companyRecord';
import type { LookupKey } from '../model/lookupKey';

/**
 * What is remembered of one company between executions, in the workflow's static data. Short field
 * names keep a 50,000-company list small: about 120 bytes a company with a name and an address.
 */
/**
 * The latest time a Date holds (ECMAScript: 8.64e15 ms after 1970), and that as a day. Numbers loaded from
 * static data (an old version's, a hand-edited or an imported workflow's) are held to it: a larger one
 * would throw a RangeError when formatted, in every run.
 */
export const MAX_TIME_MS = 8.64e15;
export const MAX_DAY = MAX_TIME_MS / 86_400_000;

export const companySnapshotSchema = z.object({
	/** 'A' Active, 'I' Inactive, 'N' not registered. */
	s: z.enum(['A', 'I', 'N']),
	/** Official name, when registered. */
	n: z.string().optional(),
	/** Registered address, when registered and known. */
	a: z.string().optional(),
	/** The last day the company was looked up, in days since 1970-01-01 (UTC). */
	d: z.number().int().nonnegative().max(MAX_DAY),
});

export type CompanySnapshot = z.infer<typeof companySnapshotSchema>;

/** What was known of a company before; the last check's day is not known where only n8n's processed-items store remembered it. */
export type PreviousSnapshot = Omit<CompanySnapshot, 'd'> & { d?: number };

export type WatchedField = 'registration' | 'status' | 'officialName' | 'registeredAddress';

export type WatchEvent =
	| 'firstSeen'
	| 'deregistered'
	| 'reregistered'
	| 'turnedInactive'
	| 'turnedActive'
	| 'detailsChanged';

export interface CompanyChange {
	event: WatchEvent;
	changedFields: WatchedField[];
	changes: Partial<
		Record<WatchedField, { previous: string | boolean | null; current: string | boolean | null }>
	>;
}

export const dayNumber = (time: Date): number => Math.floor(time.getTime() / 86_400_000);

export const FIRST_SEEN: CompanyChange = { event: 'firstSeen', changedFields: [], changes: {} };

/** `%` and `|` percent-encoded, so that an id holding `|` cannot pose as an id with a language. */
const keyPart = (text: string) =>
	// Most ids hold neither: no new string for them.
	text.includes('%') || text.includes('|') ? text.replace(/%/g, '%25').replace(/\|/g, '%7C') : text;

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
	const s = record.status === 'Active' ? 'A' : 'I';
	// Two literals, not a spread: a spread builds a scratch object per company of a 100,000-company list.
	// A blank address is the register's way of writing none (companyRecord.ts): remembered as none.
	return record.registeredAddress !== undefined && !isBlank(record.registeredAddress)
		? { s, n: record.officialName, a: record.registeredAddress, d: day }
		: { s, n: record.officialName, d: day };
}

/**
 * Text that may read otherwise in another form: not ASCII (Unicode has composed and decomposed forms of
 * one letter), white space other than single spaces, or a space at either end.
 */
const MAY_HAVE_ANOTHER_FORM = /[^\x21-\x7e ]| {2}|^ | $/;

/**
 * The form a name or address is compared in: Unicode NFC, each run of white space one space, trimmed.
 * A registry may answer the same text composed or decomposed (several back ends, a cache, a migration), or
 * with a line break or a space moved: the person who gets the alert reads no change. Most names and
 * addresses are plain ASCII: the regex test spares them the normalising.
 */
export function canonicalText(text: string): string {
	return MAY_HAVE_ANOTHER_FORM.test(text)
		? text.normalize('NFC').replace(/\s+/g, ' ').trim()
		: text;
}

/**
 * Whether two names or addresses (or their absence) read the same: the same text, or the same canonical
 * form but for letter case. A registry that moves its names from capitals (Companies House keeps them so)
 * to Title Case in one migration changes every company's name, and the person who gets the alert reads
 * no change. Compared case-folded (`caseFolded`, below); n8n's processed-items store holds the
 * hashes of that form (processedItemsMemory.ts).
 */
export function sameText(before: string | undefined, after: string | undefined): boolean {
	if (before === after) return true;
	return before !== undefined && after !== undefined && caseFolded(before) === caseFolded(after);
}

/**
 * The one fold of letter case for names and addresses. Lower case, not upper: upper case merges different
 * letters (`Maße` and `Masse` are both `MASSE`, Turkish `ı` and `i` both `I`), hiding a real change; lower
 * case keeps `ß` and `ı` themselves and only expands `İ` (to `i` and a combining dot, apart from `i`). It
 * knows no locale: docs/watch.md says what it reports (Turkish `BİLGİ` → `Bilgi`, Greek capitals without
 * tonos → Title Case with it).
 */
export const caseFolded = (text: string) => canonicalText(text).toLowerCase();

const statusName = (snapshot: Pick<CompanySnapshot, 's'>) =>
	snapshot.s === 'A' ? 'Active' : snapshot.s === 'I' ? 'Inactive' : null;

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
	// The common case, without building a change: most companies of a long list are as they were.
	if (
		previous.s === current.s &&
		sameText(previous.n, current.n) &&
		sameText(previous.a, current.a) &&
		!detailsChanged?.officialName &&
		!detailsChanged?.registeredAddress
	)
		return undefined;
	const change: CompanyChange = { event: 'detailsChanged', changedFields: [], changes: {} };
	const compare = (
		field: Exclude<WatchedField, 'registration'>,
		before: string | null,
		after: string | null,
	) => {
		// Shown as the registry sent them; compared in their canonical form.
		const changed =
			field === 'status' || !detailsChanged
				? !sameText(before ?? undefined, after ?? undefined)
				: detailsChanged[field];
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

/** A company found changed (or seen first), with the input row it was found on. */
export interface FoundChange {
	key: LookupKey;
	record: CompanyRecord;
	change: CompanyChange;
	previous?: PreviousSnapshot;
	itemIndex: number;
}

export const isoDay = (day: number) => new Date(day * 86_400_000).toISOString().slice(0, 10);

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
