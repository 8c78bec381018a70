// The pace's state apart from its rules (pace.ts, search.ts): both read it, so neither imports the other's types.

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
	/**
	 * Searching up from a first wave that admitted one (`told` and after), the pace before the last
	 * climb: the one the last admitted request went at (searchCeiling). Undefined otherwise.
	 */
	stepFrom: number | undefined;
	/**
	 * A search per round trip (search.ts `refillShown`) and the waves after it (search.ts `searchWave`):
	 * 'perRoundTrip' while it climbs, 'ended' from the wave that ends it, 'overshot' where a wave within a
	 * second of that one read only a floor of the limit (the pace searches on past its ceiling until the
	 * next wave). Undefined otherwise.
	 */
	searchSpell: 'perRoundTrip' | 'ended' | 'overshot' | undefined;
	/** When the wave that ended the last search from a lower bound came. */
	searchEndedAt: number;
	credit: number;
	creditCap: number;
	/** When `credit` was reckoned; may lie ahead (credit begins at a pause's end). */
	creditAt: number;
	/** The first wave, while its answers still measure it (see firstWaveAnswered). */
	firstWave: FirstWave | undefined;
	/** Others spend this limit too (count.ts `othersSpend`): its 429s may be theirs. */
	shared: boolean;
}

/**
 * What the first 429 wave measures the pace from: the answers to requests sent by its first 429 (`at`),
 * over the time they took including the pause (`rateSpanMs`) or, too few to measure a rate, over the
 * time since the last pause ended and the pause (`boundSpanMs`); `activeMs`, sending before the 429.
 */
export interface FirstWave {
	at: number;
	/** Answered by the 429. */
	told: number;
	answers: number;
	/** Answers after the 429 to requests sent by it: with `told`, all the wave admitted. */
	admittedAfter: number;
	rateSpanMs: number;
	boundSpanMs: number;
	activeMs: number;
}
