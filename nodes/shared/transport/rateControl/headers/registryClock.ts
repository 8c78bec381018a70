/**
 * Within this, a registry's Date header cannot tell a clock off ours from its own whole seconds and the
 * answer's way here: a time it tells is read against our clock, to the millisecond. Beyond it the
 * registry's clock is off ours (never synchronised, its local time written as GMT), and a time it tells
 * means "so long after my Date".
 */
export const CLOCKS_AGREE_WITHIN_MS = 5_000;

/**
 * How far the registry's clock is ahead of ours (negative: behind), from the Date of an answer that
 * arrived at `now`: 0 where the two agree within CLOCKS_AGREE_WITHIN_MS or no Date is told readably. A
 * time the registry tells (a Retry-After date, a reset as Unix time) is on its clock: less this, on ours,
 * as HTTP caches read Expires against Date (RFC 9111 4.2.1). Its Date is stamped before the answer
 * arrives and rounded down to its second: a time read so is never early, at most that late.
 */
export function registryClockAheadMs(registryDate: string | undefined, now: number): number {
	const told = httpDate(registryDate);
	return told !== undefined && Math.abs(told - now) > CLOCKS_AGREE_WITHIN_MS ? told - now : 0;
}

/** An HTTP date in ms; only something that reads like a date: Date.parse would take '-5' for the year -5. */
export function httpDate(value: string | undefined): number | undefined {
	if (value === undefined || !/[A-Za-z]{3}/.test(value)) return undefined;
	const date = Date.parse(value);
	return Number.isNaN(date) ? undefined : date;
}
