/**
 * What an answer's rate-limit headers say, whatever their dialect: the registry's budget left now, when
 * it is refilled, and the limit it enforces. A field is absent where no header said it readably.
 */
export interface RateLimitReading {
	/** Requests the registry says are left in its budget (never negative). */
	remaining?: number;
	/** In how many ms after the request left the budget is refilled (0 to a day). */
	resetMs?: number;
	/**
	 * The reset was told as a time of day (Unix seconds), not as seconds from the request: rounded up to
	 * the registry clock's second, it holds the part of a second the request reached the registry in.
	 */
	resetToldAsTime?: boolean;
	/** Requests the budget holds when full. */
	limit?: number;
	/** The window the limit applies to, in ms. */
	windowMs?: number;
}

export type Headers = Record<string, unknown>;

/** A reset further ahead than this is no reset of a rate limit a sheet can wait for: ignored. */
export const LONGEST_RESET_MS = 86_400_000;
/** Every dialect tells a reset in whole seconds, rounded up: the budget may be back up to this much sooner. */
export const RESET_RESOLUTION_MS = 1_000;
/** Longer header values are nobody's rate limit: read no further (every parser here is linear anyway). */
export const LONGEST_FIELD_CHARS = 1_024;
/** Past this a number is no count (RFC 8941 integers have at most 15 digits). */
const LONGEST_NUMBER_DIGITS = 15;

/**
 * A header's text, repeated lines joined as HTTP joins them (RFC 9110 5.3); undefined where absent or
 * too long to be a rate limit's.
 */
export function fieldText(headers: Headers, name: string): string | undefined {
	const value = headers[name];
	const text = Array.isArray(value)
		? value.map(String).join(', ')
		: typeof value === 'string'
			? value
			: undefined;
	return text !== undefined && text.length <= LONGEST_FIELD_CHARS ? text : undefined;
}

/**
 * A count in a plain header (X-RateLimit-Remaining: 42): a non-negative decimal number. Told more than
 * once (repeated lines, or one line "5, 5"), the values must agree: where they differ, which one the
 * registry enforces is unknowable, so none is taken. Words, NaN, negatives, exponents: no count.
 */
export function countField(headers: Headers, name: string): number | undefined {
	const text = fieldText(headers, name);
	if (text === undefined) return undefined;
	let agreed: number | undefined;
	for (const part of text.split(',')) {
		const value = plainNumber(part.trim());
		if (value === undefined || (agreed !== undefined && value !== agreed)) return undefined;
		agreed = value;
	}
	return agreed;
}

/** Digits, optionally a fraction: what a count or a number of seconds looks like. */
function plainNumber(text: string): number | undefined {
	const dot = text.indexOf('.');
	const whole = dot === -1 ? text : text.slice(0, dot);
	const fraction = dot === -1 ? '' : text.slice(dot + 1);
	if (
		!isDigits(whole) ||
		whole.length > LONGEST_NUMBER_DIGITS ||
		(dot !== -1 && !isDigits(fraction))
	)
		return undefined;
	return Number(text);
}

const isDigits = (text: string): boolean =>
	text.length > 0 && [...text].every((char) => char >= '0' && char <= '9');

/** Seconds from now, in ms, where they are a reset a sheet can wait for. */
export function secondsToResetMs(seconds: number | undefined): number | undefined {
	if (seconds === undefined) return undefined;
	const ms = seconds * 1000;
	return ms >= 0 && ms <= LONGEST_RESET_MS ? ms : undefined;
}
