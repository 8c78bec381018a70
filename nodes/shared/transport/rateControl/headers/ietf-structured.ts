import { fieldText, secondsToResetMs, type Headers, type RateLimitReading } from './reading';
import { parseList, type BareItem } from './structuredList';

/**
 * The IETF httpapi draft 08 and later: structured fields (RFC 8941) naming each policy,
 * `RateLimit-Policy: "default";q=100;w=60` (quota q per window w seconds) and
 * `RateLimit: "default";r=50;t=30` (r left, refilled in t seconds). Where several policies are told,
 * the one with least left is the one that refuses next: its figures are the reading.
 */
export function readIetfStructured(headers: Headers): RateLimitReading {
	const limits = namedItems(headers, 'ratelimit', ['r', 't']);
	const policies = namedItems(headers, 'ratelimit-policy', ['q', 'w']);
	const binding = bindingLimit(limits);
	const policy = binding !== undefined ? policies.get(binding.name) : tightestPolicy(policies);
	return {
		remaining: binding?.figures.r,
		resetMs: secondsToResetMs(binding?.figures.t),
		limit: policy?.q,
		windowMs: policy?.w === undefined || policy.w === 0 ? undefined : policy.w * 1000,
	};
}

type Figures = Partial<Record<string, number>>;

/** The least left, and of equals the later refill; where none tells what is left, the first that tells a refill. */
function bindingLimit(
	limits: Map<string, Figures>,
): { name: string; figures: Figures } | undefined {
	let found: { name: string; figures: Figures } | undefined;
	for (const [name, figures] of limits) {
		if (figures.r === undefined) continue;
		const better =
			found === undefined ||
			figures.r < found.figures.r! ||
			(figures.r === found.figures.r && (figures.t ?? 0) > (found.figures.t ?? 0));
		if (better) found = { name, figures };
	}
	if (found !== undefined) return found;
	for (const [name, figures] of limits) if (figures.t !== undefined) return { name, figures };
	return undefined;
}

/** With no RateLimit to say which policy binds: the lowest rate (quota per window second). */
function tightestPolicy(policies: Map<string, Figures>): Figures | undefined {
	let found: Figures | undefined;
	const rate = (figures: Figures) => figures.q! / Math.max(1, figures.w ?? 1);
	for (const figures of policies.values())
		if (figures.q !== undefined && (found === undefined || rate(figures) < rate(found)))
			found = figures;
	return found;
}

/**
 * A field's items by policy name, each with the named figures that are non-negative integers (the
 * draft's only form: nonsense, decimals and negatives are no figure). A policy told twice with
 * different figures (repeated lines that disagree) is dropped: which one holds is unknowable.
 */
function namedItems(headers: Headers, field: string, keys: string[]): Map<string, Figures> {
	const text = fieldText(headers, field);
	const items = text === undefined ? undefined : parseList(text);
	const named = new Map<string, Figures>();
	const contradicted = new Set<string>();
	for (const item of items ?? []) {
		if (typeof item.value !== 'string') continue;
		const figures: Figures = {};
		for (const key of keys) figures[key] = count(item.params.get(key));
		const told = named.get(item.value);
		if (told !== undefined && keys.some((key) => told[key] !== figures[key]))
			contradicted.add(item.value);
		named.set(item.value, figures);
	}
	for (const name of contradicted) named.delete(name);
	return named;
}

const count = (value: BareItem | undefined): number | undefined =>
	typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? value : undefined;
