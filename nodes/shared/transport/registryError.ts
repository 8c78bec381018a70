import { NodeApiError, type INode, type JsonObject } from 'n8n-workflow';

import type { LookupKey } from '../model/lookupKey';
import { kilobytes } from './boundedBody';
import { serverMessage } from './serverMessage';
import { displayUrl, serverText } from './serverText';

/** A failed lookup as the transport saw it. */
export type LookupFailure =
	/** An HTTP answer the node cannot use (after `attempts` tries, for transient statuses). */
	| { kind: 'http'; status: number; statusMessage?: string; body: unknown; attempts?: number }
	/** No answer: a dropped or refused connection, or no complete answer within the Request Timeout. */
	| { kind: 'no-response'; reason: 'timeout' | 'network'; code: string; attempts: number }
	/** 429 beyond the Max Rate-Limit Wait: waited so far, and what the registry asked for last. */
	/** `status`: the refusal's, where a lookup met one (a 420 or 403 that says so is named, not called a 429). */
	/** `refusedThroughout`: the registry refused the execution's lookups from the first for that long (refusalStreak.ts). */
	| {
			kind: 'rate-limited';
			waitedMs: number;
			retryAfterMs?: number;
			status?: number;
			refusedThroughout?: boolean;
	  }
	| { kind: 'redirect'; status: number; location?: string }
	/** An answer larger than the node reads (after decompression): not a record, whatever it holds. */
	| { kind: 'oversized'; limitBytes: number; declaredBytes?: number }
	/** An answer not in the Content-Encoding it names: not read, whatever it holds. */
	| { kind: 'undecodable'; status: number; code: string }
	/** A 200 whose body breaks the company record contract. */
	| { kind: 'contract'; problem: string; body?: unknown }
	| { kind: 'forbidden'; body: unknown; grantedScopes?: string }
	/**
	 * The token was refused (401), or the request with it was too large (413, 431), for good: a token
	 * fetched for this execution before the registry ever accepted it, or a renewed one (`renewed`).
	 */
	| { kind: 'token-refused'; status: number; renewed: boolean; tokenBytes?: number }
	/** The token exchange failed; the credential's message says what to fix. */
	| { kind: 'credential'; message: string }
	/** The circuit breaker tripped: most recent lookups failed, and so did the probes after a pause. */
	| { kind: 'registry-down'; last?: LookupFailure; failed?: number; of?: number };

export interface ErrorContext {
	node: INode;
	itemIndex: number;
	key?: LookupKey;
	baseUrl: string;
	timeoutMs: number;
	maxRateLimitWaitMs: number;
	/** Secrets that server text must never carry into a message: the client secret, the tokens. */
	secrets: ReadonlyArray<string | undefined>;
}

/** A JSON object with no record field: not a record at all. */
const holdsNoRecord = (body: unknown) =>
	typeof body === 'object' && body !== null && !('isRegistered' in body);

const seconds = (ms: number) =>
	ms >= 10_000 ? `${Math.round(ms / 1000)} s` : `${Math.round(ms / 100) / 10} s`;

function duration(ms: number): string {
	if (ms < 120_000) return seconds(ms);
	if (ms < 2 * 3_600_000) return `${Math.round(ms / 60_000)} min`;
	return `${Math.round(ms / 3_600_000)} h`;
}

function tries(attempts: number | undefined): string {
	return attempts && attempts > 1 ? ` (tried ${attempts} times)` : '';
}

/**
 * The one place that turns a failed lookup into the error a user reads. Everything the server said
 * passes `serverText` (secrets removed, controls escaped, length capped); the NodeApiError is built
 * from these plain fields, never from the raw request, so no token or secret can travel with it.
 */
export function registryError(failure: LookupFailure, context: ErrorContext): NodeApiError {
	const { message, description, httpCode } = describeFailure(failure, context);
	const plain: JsonObject = {
		message,
		...(description ? { description } : {}),
		...(httpCode ? { httpCode } : {}),
	};
	return new NodeApiError(context.node, plain, {
		message,
		description,
		httpCode,
		itemIndex: context.itemIndex,
	});
}

export function describeFailure(
	failure: LookupFailure,
	context: Omit<ErrorContext, 'node' | 'itemIndex'>,
): { message: string; description?: string; httpCode?: string } {
	const safe = (text: string) => serverText(text, context.secrets);
	const baseUrl = displayUrl(context.baseUrl);
	const key = context.key;
	const about = key
		? `Lookup of ${safe(`${key.countryCode}/${key.companyId}`)}${key.stateCode ? ` (state ${key.stateCode})` : ''}`
		: 'The lookup';
	const said = (body: unknown) => {
		const text = serverMessage(body);
		return text ? ` The registry said: ${safe(text)}` : '';
	};

	switch (failure.kind) {
		case 'credential':
			return { message: safe(failure.message) };
		case 'token-refused': {
			const httpCode = String(failure.status);
			if (failure.status === 413 || failure.status === 431) {
				const size =
					failure.tokenBytes !== undefined ? kilobytes(failure.tokenBytes) : 'of unknown size';
				return {
					message: failure.renewed
						? `The registry refused the request as too large (HTTP ${failure.status}), also with a new access token: the token is ${size}`
						: `The registry refused the request as too large (HTTP ${failure.status}): the access token the token endpoint just issued is ${size}`,
					description:
						"An access token is normally one or two KB; the registry, or a proxy before it, does not take request headers this large, so no lookup of this run can succeed. Check the credential's Auth URL and Audience, and ask the registry operator why its tokens are this large.",
					httpCode,
				};
			}
			const check =
				"Check the credential's Base URL and Audience (the token must be for {Base URL}/v1/), and that the client is enabled.";
			return failure.renewed
				? {
						message: 'The registry rejected the access token, also after fetching a new one',
						description: `The token endpoint issued a new token and the registry rejected it too (HTTP ${httpCode}), so no lookup of this run can succeed. ${check}`,
						httpCode,
					}
				: {
						message: `The registry rejected the access token the token endpoint had just issued (HTTP ${httpCode})`,
						description: `A token fetched for this run was refused before the registry accepted any, so no lookup of this run can succeed. ${check}`,
						httpCode,
					};
		}
		case 'registry-down': {
			const last = failure.last ? describeFailure(failure.last, context).message : 'no answer';
			const share = failure.of
				? ` ${failure.failed} of its last ${failure.of} answers were errors, and it still gave errors after a pause.`
				: '';
			return {
				message: `The Company Registry at ${baseUrl} seems to be down; this row was not looked up`,
				description: `The last error: ${last}.${share} The rest of this run was not sent, so the registry is not hammered. Run it again later.`,
			};
		}
		case 'no-response':
			if (failure.reason === 'timeout') {
				return {
					message: `The Company Registry did not answer within ${seconds(context.timeoutMs)}${tries(failure.attempts)}`,
					description: `${about}. If the registry is slow, raise the Request Timeout (Seconds) option.`,
				};
			}
			// Node's HTTP parser refused what came back: something answered, and its answer is the problem. Not
			// well-formed HTTP is also what a Base URL whose port leads to another service (mail, a database) gets.
			if (failure.code.startsWith('HPE_'))
				return {
					message: `The registry's answer could not be read as HTTP${tries(failure.attempts)}`,
					description: `${about}: ${
						failure.code === 'HPE_HEADER_OVERFLOW'
							? 'its headers are larger than Node.js accepts (16 KB unless n8n is started with --max-http-header-size). The registry, or something between it and n8n, sent them; check with its operator.'
							: `it is not well-formed HTTP (${safe(failure.code)}). Check that the credential's Base URL names the registry's scheme and port (a port of another service answers this way); if it does, the registry or something between it and n8n sent it: check with its operator.`
					}`,
				};
			// The network code goes in the description: n8n replaces messages that contain one.
			return {
				message: `Could not reach the Company Registry at ${baseUrl}${tries(failure.attempts)}`,
				description: `${about} got no answer (${safe(failure.code)}). Check the credential's Base URL and the network between n8n and the registry.`,
			};
		case 'rate-limited': {
			const asked =
				failure.retryAfterMs !== undefined && failure.retryAfterMs > context.maxRateLimitWaitMs
					? ` The registry asks to wait ${duration(failure.retryAfterMs)}, longer than the Max Rate-Limit Wait of ${seconds(context.maxRateLimitWaitMs)}: a quota may be spent.`
					: '';
			const status = failure.status ?? 429;
			const waited = failure.refusedThroughout
				? `${about} stopped: the registry refused every lookup of this execution for ${duration(failure.waitedMs)}, from the first, so none of those not yet answered waits longer.`
				: `${about} waited ${seconds(failure.waitedMs)}.`;
			return {
				message: `The registry kept answering ${refusalName(status)} beyond the Max Rate-Limit Wait of ${seconds(context.maxRateLimitWaitMs)}`,
				description: `${waited}${asked} Raise the Max Rate-Limit Wait (Seconds) option, lower Max Requests per Second, or turn on the node's Retry On Fail setting so n8n runs it again later.`,
				httpCode: String(status),
			};
		}
		case 'redirect': {
			const target = failure.location ? ` to ${displayUrl(safe(failure.location))}` : '';
			return {
				message: `The registry answered with a redirect (HTTP ${failure.status})${target}, which the node does not follow`,
				description: `${about}. The access token is only ever sent to the credential's Base URL (${baseUrl}). If the registry has moved, set the Base URL to its new address.`,
				httpCode: String(failure.status),
			};
		}
		case 'oversized': {
			const size =
				failure.declaredBytes !== undefined
					? ` (Content-Length ${failure.declaredBytes} bytes)`
					: ' after decompression';
			return {
				message: `The registry's answer is larger than ${kilobytes(failure.limitBytes)}${size}; it was not read (a company record is under 2 KB)`,
				description: `${about}. Nothing of the answer was passed on. If the Base URL is right, the registry or something between it and n8n sends answers that are no company record.`,
			};
		}
		case 'undecodable':
			if (failure.code.startsWith('Content-Encoding '))
				return {
					message: `The registry's answer is in a Content-Encoding the node cannot read (HTTP ${failure.status})`,
					description: `${about}. Its ${safe(failure.code)} is not one coding n8n's HTTP client decodes (gzip, br or deflate, and zstd on Node.js 22.15 and later); nothing of it was passed on.`,
				};
			return {
				message: `The registry's answer could not be decompressed: it is not in the Content-Encoding it names (HTTP ${failure.status})`,
				// The decoder's code goes in the description: n8n replaces messages that contain an error code.
				description: `${about}. The registry, or something between it and n8n, labelled its answer gzip, br or deflate and it was not (${safe(failure.code)}); nothing of it was passed on.`,
			};
		case 'contract':
			return {
				message: `The registry's answer is not a valid company record: ${safe(failure.problem)}`,
				// An object with no record in it may be a refusal sent with 200: its reason is the one text that
				// says what went wrong. A record's own fields are no message.
				description: `${about}. The record was not passed on.${holdsNoRecord(failure.body) ? said(failure.body) : ''}`,
				httpCode: '200',
			};
		case 'forbidden':
			return {
				message:
					"The credential's plan or token scope does not include company data (read:company)",
				description: `Granted scopes: ${failure.grantedScopes ? safe(failure.grantedScopes) : 'none'}. Ask the registry operator to add company data to the plan.${said(failure.body)}`,
				httpCode: '403',
			};
		case 'http':
			return {
				...describeStatus(failure, about, baseUrl, said, safe),
				httpCode: String(failure.status),
			};
	}
}

function describeStatus(
	failure: Extract<LookupFailure, { kind: 'http' }>,
	about: string,
	baseUrl: string,
	said: (body: unknown) => string,
	safe: (text: string) => string,
): { message: string; description?: string } {
	const { status } = failure;
	switch (status) {
		case 400: {
			const text = serverMessage(failure.body);
			return {
				message: `The registry rejected the input: ${text ? safe(text) : 'Bad Request'}`,
				description: `${about}. Not retried: check the row's Country and the characters in its Company ID.`,
			};
		}
		case 401:
			return {
				message: 'The registry rejected the access token, also after fetching a new one',
				description:
					"n8n asked the token endpoint for a new token and the registry still refused it. Check the credential's Base URL and Audience (the token must be for {Base URL}/v1/), and that the client is enabled.",
			};
		case 404:
			return {
				message: `The registry has no lookup endpoint at ${baseUrl}/v1/company/… (HTTP 404)`,
				// A registry that answers an unknown id with 404 says so in its text: shown, so the row tells.
				description: `${about}. Check the credential's Base URL: it is the API host without /v1, e.g. https://api.verifiet.com.${said(failure.body)}`,
			};
		case 500:
			return {
				message: `The registry could not process the lookup (HTTP 500 Internal Server Error)${tries(failure.attempts)}`,
				description: `${about}. The problem is on the registry's side; try again later.${said(failure.body)}`,
			};
		case 502:
		case 503:
			return {
				message: `The registry is unavailable (HTTP ${status}${status === 502 ? ' Bad Gateway' : ' Service Unavailable'})${tries(failure.attempts)}`,
				description: `${about}. The problem is on the registry's side; try again later.${said(failure.body)}`,
			};
		case 504:
			return {
				message: `The registry timed out behind its gateway (HTTP 504 Gateway Timeout)${tries(failure.attempts)}`,
				description: `${about}. The registry was too slow to answer; try again later.`,
			};
		default: {
			// A reason phrase is short: cut it at 60 characters, and it too may echo a secret.
			const statusMessage = failure.statusMessage
				? ` ${safe(failure.statusMessage).slice(0, 60)}`
				: '';
			return {
				message: `The registry answered HTTP ${status}${statusMessage}${tries(failure.attempts)}`,
				description: `${about}.${said(failure.body)}`,
			};
		}
	}
}

/** A refusal for the rate limit as the registry said it (answerReport.ts refusesForRateLimit). */
function refusalName(status: number): string {
	if (status === 429) return '429 Too Many Requests';
	if (status === 420) return '420 Enhance Your Calm';
	return `${status}, its rate-limit budget spent,`;
}
