import {
	CATCH_UP_MS,
	END_OF_WORK_S,
	LOWER_BOUND_GROWTH_PER_SECOND,
	PROBE_GROWTH_PER_SECOND,
	RECOVERED_SHARE,
	RECOVERY_PER_ANSWER,
	SEARCH_GROWTH_PER_SECOND,
} from './constants';

/**
 * The mirror token bucket: the rate the registry admits, as learned from 429s, and the credit that
 * may be spent at once (the burst it allowed). Plain data, edited only on a transition's copy.
 */
export interface PaceState {
	/** Requests/s; undefined until a 429 taught a limit. */
	rate: number | undefined;
	/** The rate to climb back to after the last wave (what the registry took then). */
	ceiling: number | undefined;
	/**
	 * Where the rate is only a floor (a first wave admitted too few to measure one), that floor: the
	 * pace doubles each second from it until a wave. Undefined once a rate was measured.
	 */
	lowerBound: number | undefined;
	/**
	 * What a first wave that admitted too few to measure a rate showed the registry gives, a little
	 * less: no later wave paces below it (it would be slower than asking everybody at once each pause).
	 */
	floorRate: number;
	credit: number;
	creditCap: number;
	/** When `credit` was reckoned; may lie ahead (credit begins at a pause's end). */
	creditAt: number;
}

export const unknownPace = (): PaceState => ({
	rate: undefined,
	ceiling: undefined,
	lowerBound: undefined,
	floorRate: 0,
	credit: 0,
	creditCap: 1,
	creditAt: 0,
});

/**
 * Credit kept even where the registry holds no burst: a timer fires a little late, and without this
 * slack every late wake-up would be lost from the pace.
 */
export function catchUpCredit(pace: PaceState): number {
	return Math.max(1, ((pace.rate ?? 0) * CATCH_UP_MS) / 1000);
}

/** Whether reckoning the credit at `now` would change anything (most calls come at the same moment). */
export function creditDue(pace: PaceState, now: number): boolean {
	return (
		pace.rate !== undefined &&
		(now > pace.creditAt || pace.credit > Math.max(pace.creditCap, catchUpCredit(pace)))
	);
}

/** Adds the credit earned since it was last reckoned, up to the cap. */
export function refreshCredit(pace: PaceState, now: number): void {
	if (pace.rate === undefined) return;
	const cap = Math.max(pace.creditCap, catchUpCredit(pace));
	pace.credit = Math.min(cap, pace.credit + (Math.max(0, now - pace.creditAt) * pace.rate) / 1000);
	// Credit may be set to begin later (at a pause's end).
	pace.creditAt = Math.max(pace.creditAt, now);
}

/** When the pace allows the next start (refreshing the credit): at once while credit lasts. */
export function pacedStart(pace: PaceState, rate: number, now: number): number {
	refreshCredit(pace, now);
	return startOnCredit(pace, rate, now);
}

/** When the credit as reckoned allows the next start. */
export function startOnCredit(pace: PaceState, rate: number, now: number): number {
	if (pace.credit >= 1) return 0;
	return now + ((1 - pace.credit) * 1000) / rate;
}

/**
 * An admission: the pace climbs quickly back towards the last wave's rate, then slowly beyond it, so a
 * limit that rises is found again; with little work left (`workLeft` lookups) it stops probing.
 */
export function climb(pace: PaceState, workLeft: number): void {
	if (pace.rate === undefined) return;
	if (pace.ceiling !== undefined && pace.rate < RECOVERED_SHARE * pace.ceiling) {
		pace.rate += (pace.ceiling - pace.rate) * RECOVERY_PER_ANSWER;
		return;
	}
	// Near the end of the work a higher limit would gain nothing, and a 429 would cost its request a
	// whole Retry-After with nothing else left to send meanwhile: the pace stops probing.
	if (workLeft < pace.rate * END_OF_WORK_S) return;
	// A registry that admitted too few at once to measure (a burst of a handful) refuses at once any
	// pace beyond its rate, and each refusal costs its row a whole Retry-After: past the last wave's
	// rate, no probing.
	if (pace.floorRate > 0 && pace.ceiling !== undefined) return;

	// Beyond the last event's rate, probe slowly: a limit that rose is found again.
	const growth =
		pace.ceiling !== undefined
			? PROBE_GROWTH_PER_SECOND
			: pace.lowerBound !== undefined
				? LOWER_BOUND_GROWTH_PER_SECOND
				: SEARCH_GROWTH_PER_SECOND;
	pace.rate *= Math.pow(1 + growth, 1 / pace.rate);
}
