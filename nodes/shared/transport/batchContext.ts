import type { TenantSettings } from './rateControl';
import type { RegistryRequest } from './registryRequest';
import type { Clock } from './wait';

/** What one execution's lookups are allowed: its share of the rate controller, the wait and the tries. */
export interface BatchSettings extends TenantSettings {
	/** One controller per registry and client in this process: `${baseUrl} ${clientId}`. */
	registryKey: string;
	/** How long one lookup may wait for the registry's rate limit in total. */
	maxRateLimitWaitMs: number;
	/** Tries of one lookup that meets transient failures (1: no retries). */
	maxAttempts: number;
}

/** What one execution's lookups use: the HTTP call, the credential, cancellation, time and chance. */
export interface BatchContext {
	/** The one HTTP call. */
	request: RegistryRequest;
	/** Whether the credential held a token when the execution began. */
	tokenWasStored: boolean;
	/** The execution's cancellation (n8n's), if any. */
	cancelSignal?: AbortSignal;
	/** The scopes of the current token, for a 403's message. */
	grantedScopes: () => Promise<string | undefined>;
	/**
	 * Reads the credential from n8n again: an execution that began without a token, while another one
	 * fetched it, then sends with that token instead of fetching its own.
	 */
	reloadCredential: () => Promise<void>;
	/** Where time comes from: the real clock unless a test or the simulation runs on a virtual one. */
	clock?: Clock;
	/** The jitter of retry delays: Math.random unless the simulation draws it from a seed. */
	random?: () => number;
}
