import type {
	ICredentialsDecrypted,
	IExecuteFunctions,
	IHttpRequestOptions,
	IN8nHttpFullResponse,
	IPollFunctions,
} from 'n8n-workflow';

import { executionCancelSignal, withExecutionCancelSignal } from '../executionCancelSignal';
import type { LookupKey } from '../model/lookupKey';
import { LOOKUP_CANCEL_SIGNAL } from './accessToken';
import { isBodyStream, readBoundedBody, type BodyRead } from './boundedBody';
import { displayUrl } from './serverText';
import { wait } from './wait';

export const CREDENTIAL_TYPE = 'companyRegistryApi';

/** What one lookup request gave. */
export type RegistryAnswer =
	| {
			kind: 'response';
			status: number;
			statusMessage?: string;
			headers: Record<string, unknown>;
			body: unknown;
			/** With a status that refuses the token (413, 431): the size of the token sent. */
			tokenBytes?: number;
	  }
	| { kind: 'no-response'; reason: 'timeout' | 'network'; code: string }
	/** 401, 413 or 431 even after n8n fetched a new token (only when sent to renew the token). */
	| { kind: 'token-refused'; status: number; tokenBytes: number }
	/** The credential's token exchange failed; its message already says what to fix. */
	| { kind: 'credential'; message: string }
	| { kind: 'cancelled' }
	/** An answer that is not in the Content-Encoding it names (gzip, br, deflate): it could not be read. */
	| { kind: 'undecodable'; status: number; code: string }
	/** Larger than MAX_ANSWER_BYTES: not read, its connection closed. */
	| Extract<BodyRead, { kind: 'oversized' }>;

/** How a request treats a 401: take it back as an answer, or let n8n renew the token and send again. */
export type On401 = 'answer' | 'renew';

export type RegistryRequest = (key: LookupKey, on401: On401) => Promise<RegistryAnswer>;

/**
 * Statuses that refuse the token itself: 401, and a token too large for the registry's (or a proxy's)
 * request headers, 431 Request Header Fields Too Large or 413. Each is worth one renewal: a new token
 * may be accepted, or smaller.
 */
export const TOKEN_REFUSAL_STATUSES: ReadonlySet<number> = new Set([401, 413, 431]);
const TOKEN_REFUSALS = [...TOKEN_REFUSAL_STATUSES];

export interface RequestSettings {
	/** The credential's Base URL without trailing slashes. */
	baseUrl: string;
	/** A deadline for the whole answer, body included. */
	timeoutMs: number;
}

/** Interface document, "Look up a company": the id always travels as one percent-encoded segment. */
export function lookupUrl(baseUrl: string, key: LookupKey): string {
	return `${baseUrl}/v1/company/${encodeURIComponent(key.countryCode)}/${encodeURIComponent(key.companyId)}`;
}

interface WrappedRequestError {
	cause?: {
		code?: string;
		name?: string;
		message?: string;
		isAxiosError?: boolean;
		response?: { status?: number; data?: unknown };
	};
	message?: string;
}

/**
 * The one HTTP call of a lookup, through n8n's httpRequestWithAuthentication so that n8n's
 * credentials, proxies and 401 token renewal apply. Redirects are never followed: the Bearer token
 * must not reach any origin but the Base URL. Every status comes back as an answer (only a 401 in
 * `renew` mode is left to n8n, which then fetches a new token and repeats the request once).
 *
 * The credential is read once per execution and handed to n8n with every request: n8n would otherwise
 * load and decrypt it from its database for each one (about 1.5 ms of CPU a request in a real n8n).
 * n8n still runs the token exchange and renewal on it, and writes a renewed token into it, so every
 * later request carries the new token.
 *
 * The body is read as a stream, at most MAX_ANSWER_BYTES of it (boundedBody.ts). Request Timeout is a
 * deadline for the whole answer, body included: n8n's own timeout only notices a silent connection.
 * n8n sets every request's abort signal to the execution's, so each request gets a context whose
 * cancel signal is its own, aborted at the deadline or when the execution stops: a request the node no
 * longer waits for is ended and its socket closed, not left to trickle on.
 */
export function registryRequest(
	context: IExecuteFunctions | IPollFunctions,
	settings: RequestSettings,
	credential: ICredentialsDecrypted,
): RegistryRequest {
	const executionSignal = executionCancelSignal(context);
	return async (key, on401) => {
		const qs: Record<string, string> = {};
		if (key.stateCode) qs.stateCode = key.stateCode;
		if (key.languageCode) qs.languageCode = key.languageCode;
		const request: IHttpRequestOptions = {
			method: 'GET',
			url: lookupUrl(settings.baseUrl, key),
			qs,
			json: true,
			encoding: 'stream',
			timeout: settings.timeoutMs,
			returnFullResponse: true,
			disableFollowRedirect: true,
			ignoreHttpStatusErrors: { ignore: true, except: on401 === 'renew' ? TOKEN_REFUSALS : [] },
		};
		const tokenBytes = () => String(credential.data?.accessToken ?? '').length;
		const abort = new AbortController();
		const stop = () => abort.abort();
		executionSignal?.addEventListener('abort', stop, { once: true });
		if (executionSignal?.aborted) stop();
		// n8n runs the credential's token exchange through `helpers.httpRequest`, which carries no abort
		// signal: this request's is added, so the deadline and a stopped execution end the exchange too.
		let tokenUrl: string | undefined;
		const helpers = Object.create(context.helpers, {
			httpRequest: {
				value: async (options: IHttpRequestOptions) => {
					tokenUrl = options.url;
					const signals = [
						abort.signal,
						...(options.abortSignal instanceof AbortSignal ? [options.abortSignal] : []),
					];
					return await context.helpers.httpRequest({
						...options,
						abortSignal: AbortSignal.any(signals),
					});
				},
			},
			// Its waits between tries too (accessToken.ts).
			[LOOKUP_CANCEL_SIGNAL]: { value: abort.signal },
		}) as typeof context.helpers;
		const ownSignal = Object.create(withExecutionCancelSignal(context, abort.signal), {
			helpers: { value: helpers },
		}) as typeof context;
		let expired = false;
		const sent = context.helpers.httpRequestWithAuthentication
			.call(ownSignal, CREDENTIAL_TYPE, request, {
				credentialsDecrypted: credential,
				preAuthenticationRetryStatusCode: TOKEN_REFUSALS,
			})
			.then(
				async (response): Promise<RegistryAnswer> => {
					const full = response as IN8nHttpFullResponse;
					const headers = full.headers as Record<string, unknown>;
					const status = full.statusCode;
					const read = await readBoundedBody(full.body, headers);
					// Only a success's body can be a record: a refusal's page over the cap (a CDN's 429, a
					// gateway's 503) is left unread, and its status and headers decide as for a short one.
					const unreadRefusal = read.kind === 'oversized' && (status < 200 || status >= 300);
					if (read.kind === 'oversized' && !unreadRefusal) return read;
					if (read.kind === 'interrupted' && isDecompressionError(read.code))
						// axios has removed the Content-Encoding header by now: the code says which decoder failed.
						return { kind: 'undecodable', status: full.statusCode, code: read.code };
					if (read.kind === 'interrupted')
						return expired
							? TIMED_OUT
							: abort.signal.aborted
								? { kind: 'cancelled' }
								: { kind: 'no-response', reason: 'network', code: read.code };
					const body = read.kind === 'read' ? read.body : undefined;
					// axios decodes one gzip, br or deflate and then drops the header: one left names what it did not.
					const encoding = headers['content-encoding'];
					if (
						status >= 200 &&
						status < 300 &&
						typeof body === 'string' &&
						typeof encoding === 'string' &&
						!/^\s*(identity)?\s*$/i.test(encoding)
					)
						return { kind: 'undecodable', status, code: `Content-Encoding ${encoding}` };
					const refusesToken = status === 413 || status === 431;
					return {
						kind: 'response',
						status,
						statusMessage: full.statusMessage,
						headers,
						body,
						...(refusesToken ? { tokenBytes: tokenBytes() } : {}),
					};
				},
				(error: unknown): RegistryAnswer =>
					expired && tokenUrl === undefined
						? TIMED_OUT
						: answerOfError(error as WrappedRequestError, on401, tokenBytes),
			);
		const timedOut = wait(settings.timeoutMs, abort.signal).then(
			async (passed): Promise<RegistryAnswer | undefined> => {
				if (!passed) return undefined;
				expired = true;
				abort.abort();
				if (tokenUrl === undefined) return TIMED_OUT;
				// The token exchange was under way: once aborted it ends at once, and tells whether it was what stalled.
				const answer = await sent;
				return answer.kind === 'credential'
					? {
							kind: 'credential',
							message: `The Auth URL ${displayUrl(tokenUrl)} did not finish its token answer within ${settings.timeoutMs / 1000} s (the Request Timeout); this row was not looked up`,
						}
					: TIMED_OUT;
			},
		);
		try {
			// An answer that settles after the deadline is not the answer: the deadline's reading of what stalled is.
			const sentInTime = sent.then((answer) => (expired ? undefined : answer));
			const first = await Promise.race([sentInTime, timedOut]);
			return first ?? (expired ? ((await timedOut) ?? TIMED_OUT) : await sent);
		} finally {
			abort.abort();
			executionSignal?.removeEventListener('abort', stop);
		}
	};
}

/** zlib's codes for a gzip or deflate stream that is none (Z_DATA_ERROR ...), and brotli's (ERR__ERROR_...). */
const isDecompressionError = (code: string) => /^Z_|^ERR__ERROR_/.test(code);

const TIMED_OUT: RegistryAnswer = { kind: 'no-response', reason: 'timeout', code: 'ETIMEDOUT' };

/** httpRequestWithAuthentication wraps every failure in a NodeApiError; the original is its cause. */
function answerOfError(
	error: WrappedRequestError,
	on401: On401,
	tokenBytes: () => number,
): RegistryAnswer {
	const cause = error.cause;
	// A refused renewal's body is a stream nobody reads: it is closed, not left open.
	const data = cause?.response?.data;
	if (isBodyStream(data)) data.destroy();
	const status = cause?.response?.status;
	if (status !== undefined) {
		// Only a token refusal is left to throw, and only when renewing: the fresh token was refused too.
		return on401 === 'renew' && TOKEN_REFUSAL_STATUSES.has(status)
			? { kind: 'token-refused', status, tokenBytes: tokenBytes() }
			: { kind: 'no-response', reason: 'network', code: `HTTP ${status}` };
	}
	if (
		cause?.code === 'ERR_CANCELED' ||
		cause?.name === 'CanceledError' ||
		cause?.name === 'AbortError'
	)
		return { kind: 'cancelled' };
	if (cause?.code === 'ECONNABORTED' || cause?.code === 'ETIMEDOUT')
		return { kind: 'no-response', reason: 'timeout', code: cause.code };
	if (cause?.isAxiosError || cause?.code)
		return { kind: 'no-response', reason: 'network', code: cause.code ?? 'no response' };
	// Not an HTTP failure: the credential's token exchange, whose message already says what to fix.
	return {
		kind: 'credential',
		message: cause?.message ?? error.message ?? 'The token exchange failed without a reason',
	};
}
