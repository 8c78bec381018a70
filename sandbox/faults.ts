/** Faults injected into otherwise good lookups. Shares are probabilities from 0 to 1. */
export interface FaultSettings {
	latencyMs: number;
	/** Uniform extra latency from 0 to this many milliseconds. */
	jitterMs: number;
	share500: number;
	share502: number;
	/** 503 with Retry-After: 1 (unless the Retry-After format is 'none'). */
	share503: number;
	share504: number;
	/** 200 held back `slowMs` first: a timeout for any client that waits less. */
	shareTimeout: number;
	/** Connection destroyed without a response (a reset). */
	shareDrop: number;
	/** 200 with a body that is not JSON. */
	shareMalformed: number;
	/** 200 with a record that breaks section 2.1 (status outside the enum, or a bad date). */
	shareContractBreak: number;
	/** How long the reserved slow id and shareTimeout take to answer. */
	slowMs: number;
	/**
	 * Undefined: every request rolls its own dice. A number: faults are transient per request target (path and
	 * query): the dice is rolled once per target, from the seed and the target alone, so the same targets fail
	 * whatever the order; a target picked for a fault fails its first `faultRepeats` requests, then succeeds.
	 */
	faultRepeats?: number;
	/** A 200 body is written a few bytes at a time over this many milliseconds (headers at once). */
	trickleMs?: number;
}

export const NO_FAULTS: FaultSettings = {
	latencyMs: 0,
	jitterMs: 0,
	share500: 0,
	share502: 0,
	share503: 0,
	share504: 0,
	shareTimeout: 0,
	shareDrop: 0,
	shareMalformed: 0,
	shareContractBreak: 0,
	slowMs: 5000,
};

/**
 * Reserved ids (country `de`) that always produce one fault, so a test can put exactly one fault on
 * exactly one row. They are well-formed, and no company has them.
 */
export const FAULT_IDS = {
	HRB99500: 'HTTP 500 InternalFailureException',
	HRB99504: 'HTTP 504 Gateway Timeout',
	HRB99429: 'HTTP 429 on every request, Retry-After 1',
	HRB99403: 'HTTP 403 AccessDeniedException, as when a plan does not cover a lookup',
	HRB99404: 'HTTP 404',
	HRB99418: 'HTTP 418, a status neither document lists',
	HRB99901: 'connection dropped without a response',
	HRB99902: 'HTTP 200 with a body that is not JSON',
	HRB99903: "HTTP 200 with status 'Dissolved', outside the enum of 2.1",
	HRB99904: "HTTP 200 with registrationDate '17/04/1998', not yyyy-mm-dd",
	HRB99905: 'answers after slowMs (5 s by default)',
} as const;
export type FaultId = keyof typeof FAULT_IDS;

/** The faults the dice can pick, in the order their shares stack up. */
type DiceFault =
	| '500'
	| '502'
	| '503'
	| '504'
	| 'timeout'
	| 'drop'
	| 'malformed'
	| 'status'
	| 'date';

export function mulberry32(seed: number): () => number {
	let state = seed >>> 0;
	return () => {
		state = (state + 0x6d2b79f5) >>> 0;
		let t = state;
		t = Math.imul(t ^ (t >>> 15), t | 1);
		t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	};
}

/** FNV-1a of the text, mixed with the seed: a per-target seed that does not depend on request order. */
function targetSeed(seed: number, target: string): number {
	let hash = 0x811c9dc5 ^ seed;
	for (let index = 0; index < target.length; index++) {
		hash ^= target.charCodeAt(index);
		hash = Math.imul(hash, 0x01000193);
	}
	return hash >>> 0;
}

/** Picks the fault (or none) from two dice values in [0, 1): the second splits contract breaks into status and date. */
function pick(faults: FaultSettings, dice: number, second: number): DiceFault | undefined {
	let threshold = 0;
	const rolled = (share: number) => share > 0 && dice < (threshold += share);
	if (rolled(faults.share500)) return '500';
	if (rolled(faults.share502)) return '502';
	if (rolled(faults.share503)) return '503';
	if (rolled(faults.share504)) return '504';
	if (rolled(faults.shareTimeout)) return 'timeout';
	if (rolled(faults.shareDrop)) return 'drop';
	if (rolled(faults.shareMalformed)) return 'malformed';
	if (rolled(faults.shareContractBreak)) return second < 0.5 ? 'status' : 'date';
	return undefined;
}

/** The seeded dice of the fault shares: per request, or once per target when `faultRepeats` is set. */
export class FaultDice {
	readonly random: () => number;
	/** Per target: its dice values and how many requests reached the dice. */
	private readonly targets = new Map<string, { dice: number; second: number; requests: number }>();

	constructor(private readonly seed: number) {
		this.random = mulberry32(seed);
	}

	roll(faults: FaultSettings, target: string): DiceFault | undefined {
		if (faults.faultRepeats === undefined) {
			// One value per request as before, so seeded runs repeat what they did.
			const fault = pick(faults, this.random(), 0);
			return fault === 'status' ? (this.random() < 0.5 ? 'status' : 'date') : fault;
		}
		let entry = this.targets.get(target);
		if (!entry) {
			const random = mulberry32(targetSeed(this.seed, target));
			entry = { dice: random(), second: random(), requests: 0 };
			this.targets.set(target, entry);
		}
		entry.requests += 1;
		if (entry.requests > faults.faultRepeats) return undefined;
		return pick(faults, entry.dice, entry.second);
	}

	/** Forgets which targets have failed how often (the dice of each stay the same). */
	forget(): void {
		this.targets.clear();
	}
}
