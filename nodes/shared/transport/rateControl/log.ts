/**
 * A list of what happened lately, oldest first, that a transition can extend and trim without copying
 * it, while every earlier state keeps seeing its own list: states share one array and each sees only its
 * [from, to) slice. Appending where another state already appended copies first (as Go's append does).
 */
export interface Log<T> {
	readonly items: T[];
	readonly from: number;
	readonly to: number;
}

export const emptyLog = <T>(): Log<T> => ({ items: [], from: 0, to: 0 });

export const logSize = <T>(log: Log<T>): number => log.to - log.from;

/** The oldest entry; only for a log that is not empty. */
export const oldest = <T>(log: Log<T>): T => log.items[log.from];

/** The newest entry; only for a log that is not empty. */
export const newest = <T>(log: Log<T>): T => log.items[log.to - 1];

export function append<T>(log: Log<T>, item: T): Log<T> {
	const size = logSize(log);
	// Another state's entries lie beyond ours, or most of the array is trimmed away: start a fresh array.
	if (log.items.length !== log.to || log.from > Math.max(64, size)) {
		const items = log.items.slice(log.from, log.to);
		items.push(item);
		return { items, from: 0, to: size + 1 };
	}
	log.items.push(item);
	return { items: log.items, from: log.from, to: log.to + 1 };
}

/** Without its oldest entries, as long as `drop` says so (but keeping at least `keep`). */
export function trim<T>(log: Log<T>, drop: (oldest: T) => boolean, keep = 0): Log<T> {
	let from = log.from;
	while (log.to - from > keep && drop(log.items[from])) from += 1;
	return from === log.from ? log : { items: log.items, from, to: log.to };
}

/** How many entries match. */
export function countWhere<T>(log: Log<T>, match: (entry: T) => boolean): number {
	let count = 0;
	for (let index = log.from; index < log.to; index++) if (match(log.items[index])) count += 1;
	return count;
}
