import {
	sleep,
	type IExecuteFunctions,
	type IHttpRequestOptions,
	type IN8nHttpFullResponse,
	type IPollFunctions,
} from 'n8n-workflow';

import { checkCompanyRecord, type CompanyRecord } from '../model/companyRecord';
import { lookupKeyId, type LookupKey } from '../model/lookupKey';
import type { LookupFailure } from './registryError';
import { RateController, type RateControlSettings } from './rateControl';
import { rateLimitDelayMs } from './retryAfter';

export const CREDENTIAL_TYPE = 'companyRegistryApi';

export interface RegistrySettings extends RateControlSettings {
	/** The credential's Base URL without trailing slashes. */
	baseUrl: string;
	timeoutMs: number;
	/** How long one lookup may wait on 429 answers in total before it fails with 429. */
	maxRateLimitWaitMs: number;
}

export type LookupOutcome = { record: CompanyRecord } | { failure: LookupFailure } | { cancelled: true };

/** One HTTP answer, or the reason there was none. */
type HttpAnswer =
	| { status: number; statusMessage?: string; headers: Record<string, unknown>; body: unknown }
	| { failure: LookupFailure };

/** What sending gives: an answer, or the execution's cancellation before the request left. */
type Answer = HttpAnswer | typeof CANCELLED;

const CANCELLED = Symbol('cancelled');

interface WrappedRequestError {
	cause?: {
		code?: string;
		message?: string;
		isAxiosError?: boolean;
		response?: { status?: number; statusText?: string; data?: unknown };
	};
	message?: string;
}

/** A token renewal under way: which lookup performs it, and when it is done. */
interface Renewal {
	by: LookupKey;
	done: Promise<void>;
	finish: () => void;
}

function newRenewal(by: LookupKey): Renewal {
	let finish = () => {};
	const done = new Promise<void>((resolve) => (finish = resolve));
	return { by, done, finish };
}

/** A lookup whose token keeps being refused gives up after this many fresh sends. */
const MAX_TOKEN_RESENDS = 3;

/** Section 4.2 path: the id always travels as one percent-encoded segment, so no input can add a step or a query. */
function lookupUrl(baseUrl: string, key: LookupKey): string {
	return `${baseUrl}/v1/company/${encodeURIComponent(key.countryCode)}/${encodeURIComponent(key.companyId)}`;
}

/**
 * The only place that talks to the registry's lookup endpoint, for one execution. Requests go through
 * n8n's httpRequestWithAuthentication, so credentials, proxies and n8n's token refresh apply; the
 * RateController decides when each may start.
 *
 * Token renewal: requests normally take a 401 back as an answer. The first request that meets one
 * renews the token for everybody by sending again with 401 left to n8n, which fetches a new token
 * (the credential's preAuthentication) and repeats the request; requests that met the 401 meanwhile
 * wait for that and resend. So a token revoked mid-batch costs one token request, not one per
 * request in flight.
 */
export class RegistryClient {
	private readonly rate: RateController;
	/** Set when the token exchange failed: it fails every later lookup of this execution the same way. */
	private credentialFailure: LookupFailure | undefined;
	private tokenGeneration = 0;
	private renewal: Renewal | undefined;
	private cancelled = false;

	constructor(
		private readonly context: IExecuteFunctions | IPollFunctions,
		private readonly settings: RegistrySettings,
	) {
		this.rate = new RateController(settings);
	}

	/**
	 * Looks up every key (entries that are not keys get no outcome), in input order. Identical keys share
	 * one request. A pool of workers, twice the concurrency, takes the next key as one finishes, so a
	 * 20,000-row sheet holds a few dozen lookups in hand, not 20,000. With `stopAtFirstFailure`, the first
	 * failure cancels the lookups not yet sent.
	 */
	async lookUpMany(
		keys: ReadonlyArray<LookupKey | unknown>,
		{ stopAtFirstFailure }: { stopAtFirstFailure: boolean },
	): Promise<Array<LookupOutcome | undefined>> {
		const unique = new Map<string, { key: LookupKey; outcome?: LookupOutcome }>();
		const ids = keys.map((key) => {
			if (!isLookupKey(key)) return undefined;
			const id = lookupKeyId(key);
			if (!unique.has(id)) unique.set(id, { key });
			return id;
		});
		const work = [...unique.values()];
		let next = 0;
		const worker = async () => {
			while (next < work.length) {
				const entry = work[next++];
				entry.outcome = await this.lookUp(entry.key);
				if ('failure' in entry.outcome && stopAtFirstFailure) this.cancelPending();
			}
		};
		await Promise.all(Array.from({ length: Math.min(work.length, 2 * this.settings.maxConcurrency) }, worker));
		return ids.map((id) => (id === undefined ? undefined : unique.get(id)!.outcome));
	}

	private cancelSignal(): AbortSignal | undefined {
		return 'getExecutionCancelSignal' in this.context ? this.context.getExecutionCancelSignal() : undefined;
	}

	/** Lookups that have not started yet end as cancelled (the node is about to stop on an error). */
	cancelPending(): void {
		this.cancelled = true;
	}

	/** Looks one company up, waiting out 429s within the Max Rate-Limit Wait budget. Never throws. */
	async lookUp(key: LookupKey): Promise<LookupOutcome> {
		let waitedMs = 0;
		let tokenResends = 0;
		for (let attempt = 0; ; ) {
			if (this.credentialFailure) return { failure: this.credentialFailure };
			if (this.cancelled || this.cancelSignal()?.aborted) return { cancelled: true };
			await this.renewal?.done;
			let answer = await this.send(key, 'answer');
			if (answer === CANCELLED) return { cancelled: true };
			if (!('failure' in answer) && answer.status === 401) {
				// This request claimed the renewal: it must complete it, for everybody waits on it.
				if (this.renewal?.by === key) {
					answer = await this.renewToken(key);
					if (answer === CANCELLED) return { cancelled: true };
				}
				// Another request renews the token (or already has): send again once it is done.
				else if (tokenResends++ < MAX_TOKEN_RESENDS) continue;
			}
			if ('failure' in answer) {
				// A rejected client id or an unreachable Auth URL will not mend within this execution.
				if (answer.failure.message !== undefined) this.credentialFailure = answer.failure;
				return answer;
			}
			if (answer.status === 200) {
				const check = checkCompanyRecord(answer.body);
				return check.valid ? { record: check.record } : { failure: { status: 200, message: check.problem } };
			}
			if (answer.status === 429) {
				const delayMs = rateLimitDelayMs(header(answer.headers, 'retry-after'), attempt++);
				if (waitedMs + delayMs > this.settings.maxRateLimitWaitMs) {
					return { failure: { status: 429, body: answer.body, waitedMs } };
				}
				await this.wait(delayMs);
				waitedMs += delayMs;
				continue;
			}
			const failure: LookupFailure = { status: answer.status, statusMessage: answer.statusMessage, body: answer.body };
			if (answer.status === 403) failure.grantedScopes = await this.grantedScopes();
			return { failure };
		}
	}

	/** Sends once more with 401 left to n8n, which then renews the token and repeats the request. */
	private async renewToken(key: LookupKey): Promise<Answer> {
		try {
			return await this.send(key, 'renew token');
		} finally {
			this.tokenGeneration += 1;
			const renewal = this.renewal;
			this.renewal = undefined;
			renewal?.finish();
		}
	}

	/** One request, paced by the rate controller. */
	private async send(key: LookupKey, on401: 'answer' | 'renew token'): Promise<Answer> {
		if (!(await this.rate.acquire(this.cancelSignal()))) return CANCELLED;
		// A renewal began while this request queued: sending now would only meet another 401.
		while (on401 === 'answer' && this.renewal) {
			this.rate.release({});
			await this.renewal.done;
			if (!(await this.rate.acquire(this.cancelSignal()))) return CANCELLED;
		}
		const generation = this.tokenGeneration;
		const answer = await this.request(key, on401);
		if (on401 === 'answer' && !('failure' in answer) && answer.status === 401) {
			// Claimed before the slot is released, so no queued request leaves with the refused token.
			if (!this.renewal && generation === this.tokenGeneration) this.renewal = newRenewal(key);
		}
		this.rate.release(
			'failure' in answer
				? { status: answer.failure.status }
				: {
						status: answer.status,
						remaining: numberHeader(answer.headers, 'x-ratelimit-remaining'),
						retryAfterMs:
							answer.status === 429 ? rateLimitDelayMs(header(answer.headers, 'retry-after'), 0, Date.now(), () => 1) : undefined,
					},
		);
		return answer;
	}

	private async request(key: LookupKey, on401: 'answer' | 'renew token'): Promise<HttpAnswer> {
		const qs: Record<string, string> = {};
		if (key.stateCode) qs.stateCode = key.stateCode;
		if (key.languageCode) qs.languageCode = key.languageCode;
		const request: IHttpRequestOptions = {
			method: 'GET',
			url: lookupUrl(this.settings.baseUrl, key),
			qs,
			json: true,
			timeout: this.settings.timeoutMs,
			returnFullResponse: true,
			// Statuses come back as answers. Only when renewing is 401 left to throw: that is what makes
			// n8n fetch a new token through the credential and send the request once more.
			ignoreHttpStatusErrors: { ignore: true, except: on401 === 'renew token' ? [401] : [] },
		};
		try {
			const response = (await this.context.helpers.httpRequestWithAuthentication.call(
				this.context,
				CREDENTIAL_TYPE,
				request,
			)) as IN8nHttpFullResponse;
			return {
				status: response.statusCode,
				statusMessage: response.statusMessage,
				headers: response.headers as Record<string, unknown>,
				body: response.body,
			};
		} catch (error) {
			return { failure: failureOf(error as WrappedRequestError) };
		}
	}

	/** The scopes in the current token's payload, for the 403 message. Read only, never verified. */
	private async grantedScopes(): Promise<string | undefined> {
		try {
			const credentials = await this.context.getCredentials(CREDENTIAL_TYPE);
			const payload = String(credentials.accessToken ?? '').split('.')[1] ?? '';
			const claims = JSON.parse(decodeBase64Url(payload)) as { scope?: unknown };
			return typeof claims.scope === 'string' ? claims.scope : undefined;
		} catch (error) {
			// An opaque token has no readable scope; the 403 message then says so.
			this.context.logger.debug('Company Registry: the access token has no readable scope', {
				reason: error instanceof Error ? error.name : 'unknown',
			});
			return undefined;
		}
	}

	/** n8n's sleep, in short steps, so that a cancelled execution does not sit out a long Retry-After. */
	private async wait(ms: number): Promise<void> {
		const signal = this.cancelSignal();
		const until = Date.now() + ms;
		while (Date.now() < until && !signal?.aborted && !this.cancelled) await sleep(Math.min(250, until - Date.now()));
	}
}

function isLookupKey(value: unknown): value is LookupKey {
	return typeof value === 'object' && value !== null && 'countryCode' in value && 'companyId' in value;
}

function numberHeader(headers: Record<string, unknown>, name: string): number | undefined {
	const value = Number(header(headers, name));
	return header(headers, name) !== undefined && Number.isFinite(value) ? value : undefined;
}

function header(headers: Record<string, unknown>, name: string): string | undefined {
	const value = headers[name];
	return Array.isArray(value) ? String(value[0]) : typeof value === 'string' ? value : undefined;
}

/** httpRequestWithAuthentication wraps every failure in a NodeApiError; the original is its cause. */
function failureOf(error: WrappedRequestError): LookupFailure {
	const cause = error.cause;
	if (cause?.response?.status !== undefined) {
		return { status: cause.response.status, statusMessage: cause.response.statusText, body: cause.response.data };
	}
	if (cause?.isAxiosError || cause?.code) return { networkCode: cause.code ?? 'no response' };
	// Not an HTTP failure: the credential's token exchange, whose message already says what to fix.
	return { message: cause?.message ?? error.message ?? 'The lookup failed without a reason' };
}

/** base64url → text. The payload of a JWT is ASCII JSON, so atob's byte string is enough. */
function decodeBase64Url(input: string): string {
	return atob(input.replace(/-/g, '+').replace(/_/g, '/'));
}
