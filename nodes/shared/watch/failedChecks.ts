import { z } from 'zod';

import type { CompanyRow } from '../lookupPipeline';
import type { LookupKey } from '../model/lookupKey';
import { isoDay, MAX_TIME_MS, watchKey } from './snapshot';

/**
 * Per company whose checks fail: since when (ms since 1970), and when that was last reported. A company
 * checked again keeps only `reported`, for one interval: a company failing on and off is not reported
 * once per spell.
 */
const timeSchema = z.number().int().min(0).max(MAX_TIME_MS).optional();
const failingEntrySchema = z.object({ since: timeSchema, reported: timeSchema });
type Failing = Record<string, z.infer<typeof failingEntrySchema>>;

/** The saved record, entry by entry: an entry that does not hold (tampered, another version's) is dropped alone. */
function loadFailing(saved: unknown): Failing {
	// No prototype: a saved key '__proto__' stays a key.
	const failing: Failing = Object.create(null);
	if (typeof saved !== 'object' || saved === null || Array.isArray(saved)) return failing;
	for (const [id, entry] of Object.entries(saved)) {
		const parsed = failingEntrySchema.safeParse(entry);
		if (parsed.success) failing[id] = parsed.data;
	}
	return failing;
}

export interface FailedCheck {
	key: LookupKey;
	itemIndex: number;
	row: Extract<CompanyRow, { kind: 'failed' }>;
	/** Since when this company's checks fail (this check, where not known before). */
	since: Date;
	/** The day of its last successful check, where known. */
	lastCheckedDay?: number;
}

/**
 * The trigger's record of companies whose checks fail, in its static data: a state machine per company
 * (checked → failing, reported → failing, quiet → reported again once `intervalMs` has passed → checked,
 * recently reported → checked, forgotten once `intervalMs` has passed since the report).
 * Returns the failed checks to report now: a failure at least `intervalMs` after the company's last report
 * (so the first of a spell, unless an earlier spell was reported within the interval), then one per
 * interval while it lasts; none when the interval is 0. A company taken off the list leaves it at once.
 */
export function failedChecksToReport(
	staticData: Record<string, unknown>,
	failed: ReadonlyArray<Omit<FailedCheck, 'since'>>,
	listed: ReadonlySet<string>,
	now: Date,
	intervalMs: number,
): FailedCheck[] {
	const before = loadFailing(staticData.failing);
	const next: Failing = {};
	const report: FailedCheck[] = [];
	const seen = new Set<string>();
	for (const check of failed) {
		const id = watchKey(check.key);
		if (seen.has(id)) continue;
		seen.add(id);
		const earlier = Object.hasOwn(before, id) ? before[id] : {};
		// A spell starts where the company was checked (or not known) before.
		const entry = { since: earlier.since ?? now.getTime(), reported: earlier.reported };
		if (
			intervalMs > 0 &&
			(entry.reported === undefined || now.getTime() - entry.reported >= intervalMs)
		) {
			entry.reported = now.getTime();
			report.push({ ...check, since: new Date(entry.since) });
		}
		next[id] = entry.reported === undefined ? { since: entry.since } : entry;
	}
	// Companies checked this run are not failing; their last report is kept for one interval.
	for (const [id, { reported }] of Object.entries(before)) {
		if (seen.has(id) || reported === undefined || now.getTime() - reported >= intervalMs) continue;
		next[id] = { reported };
	}
	// Companies no longer listed are forgotten.
	for (const id of Object.keys(next)) if (!listed.has(id)) delete next[id];
	staticData.failing = next;
	return report;
}

/** The item of a company that could not be checked, as the trigger and Watch for Changes output it. */
export function checkFailedItemJson(check: FailedCheck, now: Date) {
	const { error, cause } = check.row;
	return {
		event: 'checkFailed',
		error: {
			message: error.message,
			kind: cause ?? 'unknown',
			...(error.description ? { description: error.description } : {}),
		},
		lookup: { ...check.key },
		lastCheckedOn: check.lastCheckedDay !== undefined ? isoDay(check.lastCheckedDay) : null,
		failingSince: check.since.toISOString(),
		failingForHours: Math.round(((now.getTime() - check.since.getTime()) / 3_600_000) * 10) / 10,
		detectedAt: now.toISOString(),
	};
}

/** The item of a row that names no company it could look up (bad input): the same shape, without a lookup. */
export function badInputItemJson(row: Extract<CompanyRow, { kind: 'failed' }>, now: Date) {
	const { error } = row;
	return {
		event: 'checkFailed',
		error: {
			message: error.message,
			kind: 'input',
			...(error.description ? { description: error.description } : {}),
		},
		lookup: null,
		lastCheckedOn: null,
		failingSince: now.toISOString(),
		failingForHours: 0,
		detectedAt: now.toISOString(),
	};
}
