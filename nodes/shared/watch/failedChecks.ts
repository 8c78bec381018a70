import { z } from 'zod';

import type { CompanyRow } from '../lookupPipeline';
import type { LookupKey } from '../model/lookupKey';
import { isoDay, watchKey } from './snapshot';

/** Per company whose checks fail: since when (ms since 1970), and when that was last reported. */
const failingSchema = z.record(
	z.string(),
	z.object({ since: z.number(), reported: z.number().optional() }),
);
type Failing = z.infer<typeof failingSchema>;

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
 * (checked → failing, reported → failing, quiet → reported again once `intervalMs` has passed → checked).
 * Returns the failed checks to report now: the first failure of a spell, then one per interval while it
 * lasts; none when the interval is 0. A company checked again, or taken off the list, leaves it.
 */
export function failedChecksToReport(
	staticData: Record<string, unknown>,
	failed: ReadonlyArray<Omit<FailedCheck, 'since'>>,
	listed: ReadonlySet<string>,
	now: Date,
	intervalMs: number,
): FailedCheck[] {
	const parsed = failingSchema.safeParse(staticData.failing);
	const before: Failing = parsed.success ? parsed.data : {};
	const next: Failing = {};
	const report: FailedCheck[] = [];
	const seen = new Set<string>();
	for (const check of failed) {
		const id = watchKey(check.key);
		if (seen.has(id)) continue;
		seen.add(id);
		const entry = Object.hasOwn(before, id) ? { ...before[id] } : { since: now.getTime() };
		if (
			intervalMs > 0 &&
			(entry.reported === undefined || now.getTime() - entry.reported >= intervalMs)
		) {
			entry.reported = now.getTime();
			report.push({ ...check, since: new Date(entry.since) });
		}
		next[id] = entry;
	}
	// Companies checked this run, or no longer listed, are not failing.
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
