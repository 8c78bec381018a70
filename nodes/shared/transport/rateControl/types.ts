/** What one request's try tells the controller. */
export interface RequestReport {
	/** When the request left: 429s from requests sent before the last congestion event belong to it. */
	sentAt: number;
	/** The HTTP status, or undefined when no answer came. */
	status?: number;
	/** What the registry says is left of its budget, in any dialect (rateControl/headers); never negative. */
	remaining?: number;
	/** For a 429: how long the registry asked to wait, where it said so. */
	retryAfterMs?: number;
	/** In how many ms after `sentAt` the registry says its budget is refilled (rateControl/headers). */
	resetMs?: number;
	/** That reset was told as a time (Unix seconds), rounded up to the registry clock's second (rateControl/headers). */
	resetToldAsTime?: boolean;
	/** What the registry says its budget holds when full, where it says so (rateControl/headers). */
	limit?: number;
}

export interface TenantSettings {
	/** Upper bound on this execution's requests in flight. */
	maxConcurrency: number;
	/**
	 * The credential holds no token yet: the first request goes alone, so that one token is fetched
	 * and stored before the others start.
	 */
	firstRequestAlone?: boolean;
	/** Optional user cap for this execution; undefined for none. */
	maxRequestsPerSecond?: number;
	/** How many of this execution's rows no lookup has taken yet (undefined: unknown, many). */
	rowsNotTaken?: () => number;
	/**
	 * How long one lookup may wait for the registry's rate limit: a window whose reset is further away
	 * (a spent daily quota) fails the waiting lookups at once instead of holding them.
	 */
	maxRateLimitWaitMs?: number;
}

export type Acquired =
	| { kind: 'go'; sentAt: number }
	| { kind: 'cancelled' }
	| { kind: 'paused'; until: number }
	/** Taken out of the queue without a permit (see Tenant.setAside): it may ask again later. */
	| { kind: 'setAside' };
