import type {
	ICredentialDataDecryptedObject,
	IHttpRequestOptions,
	IN8nHttpFullResponse,
	ICredentialTestRequest,
	ICredentialType,
	IHttpRequestHelper,
	Icon,
	INodeProperties,
} from 'n8n-workflow';
import { z } from 'zod';

import {
	audienceFor,
	lookupCancelSignalOf,
	tokenIssuedFor,
	withoutTrailingSlashes,
} from '../nodes/shared/transport/accessToken';
import { refusesForRateLimit, retryAfterOf } from '../nodes/shared/transport/answerReport';
import { kilobytes, readBoundedBody, type BodyRead } from '../nodes/shared/transport/boundedBody';
import { displayUrl, serverText } from '../nodes/shared/transport/serverText';
import { TRANSIENT_STATUSES } from '../nodes/shared/transport/retryPolicy';
import { wait } from '../nodes/shared/transport/wait';

/**
 * Interface document, "Token response": only access_token is used. The other fields are not checked:
 * token endpoints write them in other types (Azure AD v1 sends expires_in as a string, others null or a
 * scope list), and refusing the whole answer for a field nobody reads would break the credential.
 */
const tokenResponseSchema = z.object({ access_token: z.string().min(1) });

/** An OAuth error answer (RFC 6749 5.2). */
const oauthErrorSchema = z.object({ error: z.string(), error_description: z.string().optional() });

/**
 * OAuth error codes (RFC 6749 5.2, RFC 8707, Auth0's access_denied) that name the client, its grant, its
 * scope or the audience: a refusal no wait mends.
 */
const CLIENT_REFUSAL_CODES = new Set([
	'access_denied',
	'invalid_audience',
	'invalid_client',
	'invalid_grant',
	'invalid_request',
	'invalid_scope',
	'invalid_target',
	'unauthorized_client',
	'unsupported_grant_type',
]);

/**
 * A token endpoint's refusal for its rate limit, read as the lookups read one (answerReport.ts), except
 * that a 403 whose OAuth code names the client or audience is that refusal whatever its headers say: auth
 * servers (Auth0 among them) send X-RateLimit-* on every answer, so the one that spends the budget reads
 * Remaining 0 whatever refused it.
 */
function refusesTokenForRateLimit(
	status: number,
	headers: Record<string, unknown>,
	body: unknown,
): boolean {
	const parsed = oauthErrorSchema.safeParse(body);
	if (status === 403 && parsed.success && CLIENT_REFUSAL_CODES.has(parsed.data.error)) return false;
	return refusesForRateLimit(status, headers);
}

/** Every redirect status axios would follow. */
const REDIRECT_STATUSES = [300, 301, 302, 303, 307, 308];

interface HttpFailure {
	response?: { status?: number; data?: unknown; body?: unknown; headers?: Record<string, unknown> };
}

/**
 * A token request that failed, told in words a user can act on. Built from the status and the OAuth
 * error code; what the server wrote passes `serverText`, so a server that echoes the request body
 * cannot put the client secret into the message. The failed request itself is never attached.
 */
function tokenExchangeError(
	error: unknown,
	tokenUrl: string,
	audience: string,
	secret: string,
): Error {
	const failure = (error ?? {}) as HttpFailure;
	const status = failure.response?.status;
	const safe = (text: string) => serverText(text, [secret]);
	const shownUrl = displayUrl(tokenUrl);
	if (status === undefined) {
		// No network error code in the text: n8n swaps messages containing one for a generic sentence.
		return new Error(
			`Could not reach the Auth URL ${shownUrl} to get an access token. Check the credential's Auth URL and that n8n can reach that host.`,
		);
	}
	if (status >= 300 && status < 400) {
		return new Error(
			`The token endpoint ${shownUrl} answered with a redirect (HTTP ${status}), which is not followed: the client secret is only ever sent to the Auth URL. Set the Auth URL to the address that issues tokens.`,
		);
	}
	const data = failure.response?.data ?? failure.response?.body;
	const parsed = oauthErrorSchema.safeParse(data);
	const code = parsed.success ? safe(parsed.data.error) : undefined;
	const headers = failure.response?.headers ?? {};
	// As the lookups read it (answerReport.ts): a 429, a 420, a 403 whose headers say the budget is spent
	// or when to try again. Neither the client nor the audience is to blame: the user can only wait.
	if (refusesTokenForRateLimit(status, headers, data)) {
		const asked = retryAfterOf(headers, Date.now());
		return new Error(
			`The token endpoint ${shownUrl} refused the token request for its rate limit (HTTP ${status}${code ? ` ${code}` : ''})${asked ? `, asking to wait ${Math.ceil(asked / 1000)} s` : ''}. Run the workflow again later, or ask the registry operator about the token endpoint's limit.`,
		);
	}
	if (
		code === 'invalid_client' ||
		code === 'unauthorized_client' ||
		(status === 401 && code === undefined)
	) {
		return new Error(
			`The token endpoint ${shownUrl} rejected the Client ID or Client Secret (HTTP ${status}${code ? ` ${code}` : ''}). Check both values, as issued by the registry operator.`,
		);
	}
	if (
		code === 'access_denied' ||
		code === 'invalid_target' ||
		code === 'invalid_audience' ||
		status === 403
	) {
		return new Error(
			`The token endpoint ${shownUrl} refused the audience '${safe(audience)}' (HTTP ${status}${code ? ` ${code}` : ''}). The audience must be the API address with its version, e.g. https://api.verifiet.com/v1/; leave Audience empty to use {Base URL}/v1/.`,
		);
	}
	const detail =
		parsed.success && parsed.data.error_description
			? `: ${safe(parsed.data.error_description)}`
			: '';
	return new Error(
		`The token request to ${shownUrl} failed with HTTP ${status}${code ? ` ${code}` : ''}${detail}`,
	);
}

function tokenDeadlineError(tokenUrl: string, timeoutMs: number): Error {
	return new Error(
		`The Auth URL ${displayUrl(tokenUrl)} did not finish its token answer within ${timeoutMs / 1000} s. Check the credential's Auth URL and that this host answers.`,
	);
}

/** Tries of the token request that meets a transient failure: a 5xx, a 429, a dropped connection. */
const TOKEN_ATTEMPTS = 3;
/** The wait before the second try; doubled before the third. */
const TOKEN_BACKOFF_MS = 250;
/**
 * A Client ID or Client Secret as sent: without the white space a paste brings at its ends (a password
 * manager's or a terminal's line break). No operator issues an id or a secret that starts or ends in it.
 */
const pastedValue = (value: unknown) => (typeof value === 'string' ? value.trim() : value);

/** One try of the token request: the answer read (at most MAX_ANSWER_BYTES), or what it threw. */
type TokenTry =
	| { answer: { status: number; headers: Record<string, unknown>; body: BodyRead } }
	| { thrown: unknown };

const isSuccess = (status: number) => status >= 200 && status < 300;

async function exchangeOnce(
	helper: IHttpRequestHelper,
	tokenUrl: string,
	audience: string,
	credentials: ICredentialDataDecryptedObject,
	signal: AbortSignal,
): Promise<TokenTry> {
	try {
		const response = (await helper.helpers.httpRequest({
			method: 'POST',
			url: tokenUrl,
			headers: { 'content-type': 'application/json' },
			body: {
				client_id: pastedValue(credentials.clientId),
				client_secret: pastedValue(credentials.clientSecret),
				audience,
				grant_type: 'client_credentials',
			},
			json: true,
			// The body holds the client secret: it goes to the Auth URL and nowhere else.
			disableFollowRedirect: true,
			// Read as a stream, and only so far (boundedBody.ts): every status comes back to be read.
			encoding: 'stream',
			returnFullResponse: true,
			ignoreHttpStatusErrors: true,
			timeout: CompanyRegistryApi.tokenTimeoutMs,
			abortSignal: signal,
		})) as IN8nHttpFullResponse;
		const status = response.statusCode;
		const headers = response.headers as Record<string, unknown>;
		const body = await readBoundedBody(response.body, headers, undefined, signal);
		// Only a success's body can hold the token: a refusal's page over the cap (a CDN's 429, a gateway's
		// 503) is left unread, and its status and headers decide, as for a short one and as for a lookup.
		const unreadRefusal = body.kind === 'oversized' && !isSuccess(status);
		return {
			answer: { status, headers, body: unreadRefusal ? { kind: 'read', body: undefined } : body },
		};
	} catch (error) {
		return { thrown: error };
	}
}

/**
 * No answer (a dropped or refused connection), one that broke off, or a transient status. A thrown
 * request never carries an answer (`ignoreHttpStatusErrors` returns every status), so it is worth another
 * try within the deadline, unless it was cancelled: the deadline's end is reported before this is asked,
 * and what else cancels it is the lookup's own signal, which registryRequest.ts adds to the token request
 * (its Request Timeout passed, the execution stopped). axios marks every cancelled request ERR_CANCELED.
 */
function isTransient(result: TokenTry): boolean {
	if ('thrown' in result) return (result.thrown as { code?: unknown }).code !== 'ERR_CANCELED';
	const { status, headers, body } = result.answer;
	return (
		body.kind === 'interrupted' ||
		(body.kind === 'read' &&
			(TRANSIENT_STATUSES.has(status) || refusesTokenForRateLimit(status, headers, body.body)))
	);
}

/**
 * The wait before the next try: the backoff, or as long as the answer asks (Retry-After on a refusal for
 * the rate limit or a 503, as a lookup waits it out), whichever is longer.
 */
function waitBeforeTry(result: TokenTry, attempt: number): number {
	const backoff = TOKEN_BACKOFF_MS * 2 ** (attempt - 1);
	if ('thrown' in result) return backoff;
	const { status, headers } = result.answer;
	// Asked only of a transient answer: a 403 whose OAuth code names the client or audience is none.
	const asks = status === 503 || refusesForRateLimit(status, headers);
	return Math.max(backoff, (asks ? retryAfterOf(headers, Date.now()) : undefined) ?? 0);
}

/** The access token of a try's answer, or the error that says what went wrong. */
function tokenOf(
	result: TokenTry,
	tokenUrl: string,
	audience: string,
	secret: string,
): { accessToken: string } {
	if ('thrown' in result) throw tokenExchangeError(result.thrown, tokenUrl, audience, secret);
	const { status, body } = result.answer;
	if (body.kind === 'oversized') {
		throw new Error(
			`The token endpoint ${displayUrl(tokenUrl)} answered with more than ${kilobytes(body.limitBytes)}${body.declaredBytes !== undefined ? ` (Content-Length ${body.declaredBytes} bytes)` : ' after decompression'}; a token answer is a few KB. Check the credential's Auth URL.`,
		);
	}
	if (body.kind === 'interrupted') throw tokenExchangeError({}, tokenUrl, audience, secret);
	if (!isSuccess(status)) {
		throw tokenExchangeError(
			{ response: { status, data: body.body, headers: result.answer.headers } },
			tokenUrl,
			audience,
			secret,
		);
	}
	const token = tokenResponseSchema.safeParse(body.body);
	if (!token.success) {
		throw new Error(`The token endpoint ${displayUrl(tokenUrl)} answered without an access_token`);
	}
	return { accessToken: token.data.access_token };
}

export class CompanyRegistryApi implements ICredentialType {
	/**
	 * A token exchange whose whole answer, body included, has not arrived within this long has failed
	 * (axios's own timeout only notices a silent connection, not a trickling one). Tests shorten it.
	 */
	static tokenTimeoutMs = 30_000;

	/** The wait between tries of the token request: n8n's sleep (wait.ts). Tests record it. */
	static tokenRetryWait: (ms: number, signal: AbortSignal) => Promise<boolean> = wait;

	name = 'companyRegistryApi';

	displayName = 'Company Registry API';

	documentationUrl =
		'https://github.com/n8n-nodes-company-registry/n8n-nodes-company-registry#credentials';

	icon: Icon = {
		light: 'file:../nodes/CompanyRegistry/companyRegistry.svg',
		dark: 'file:../nodes/CompanyRegistry/companyRegistry.dark.svg',
	};

	properties: INodeProperties[] = [
		{
			displayName: 'Client ID',
			name: 'clientId',
			type: 'string',
			default: '',
			required: true,
			description: 'Issued by the registry operator. For the sandbox registry: demo-client.',
		},
		{
			displayName: 'Client Secret',
			name: 'clientSecret',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			required: true,
			description: 'Issued with the Client ID. For the sandbox registry: demo-secret.',
		},
		{
			displayName: 'Base URL',
			name: 'baseUrl',
			type: 'string',
			default: 'https://api.verifiet.com',
			required: true,
			description: 'Address of the API host, without /v1',
		},
		{
			displayName: 'Auth URL',
			name: 'authUrl',
			type: 'string',
			default: 'https://login.verifiet.com',
			required: true,
			description:
				'Address of the host that issues tokens; the token is requested from {Auth URL}/oauth/token',
		},
		{
			displayName: 'Audience',
			name: 'audience',
			type: 'string',
			default: '',
			placeholder: 'e.g. https://api.verifiet.com/v1/',
			description: 'Token audience. Leave empty to use {Base URL}/v1/.',
		},
		{
			// Filled by preAuthentication; n8n stores it and asks for a new one after a 401.
			displayName: 'Access Token',
			name: 'accessToken',
			type: 'hidden',
			typeOptions: { expirable: true, password: true },
			default: '',
		},
		{
			// Filled by preAuthentication with the token, and kept with it when the credential is edited (a
			// password field, like the token): a token is sent only where it was asked for (accessToken.ts).
			displayName: 'Token Issued for',
			name: 'tokenIssuedFor',
			type: 'hidden',
			typeOptions: { password: true },
			default: '',
		},
	];

	/** "Obtain an access token": the client-credentials exchange. n8n calls it when the token is empty or was refused. */
	async preAuthentication(this: IHttpRequestHelper, credentials: ICredentialDataDecryptedObject) {
		const tokenUrl = `${withoutTrailingSlashes(String(credentials.authUrl))}/oauth/token`;
		const audience = audienceFor(credentials);
		const issuedFor = tokenIssuedFor(credentials);
		const secret = String(pastedValue(credentials.clientSecret) ?? '');
		const timeoutMs = CompanyRegistryApi.tokenTimeoutMs;
		const endsAt = Date.now() + timeoutMs;
		// The deadline, for every try together, ends the request, or destroys its body if the headers came:
		// no socket is left open.
		const deadline = new AbortController();
		// A lookup's cancel (its Request Timeout, a stopped execution) reaches the requests through n8n's
		// helper (registryRequest.ts), and the waits between them through this.
		const lookupCancel = lookupCancelSignalOf(this);
		const waitEnds = lookupCancel
			? AbortSignal.any([deadline.signal, lookupCancel])
			: deadline.signal;
		let expired = false;
		void wait(timeoutMs, deadline.signal).then((passed) => {
			expired = passed;
			if (passed) deadline.abort();
		});
		try {
			for (let attempt = 1; ; attempt++) {
				const answer = await exchangeOnce(this, tokenUrl, audience, credentials, deadline.signal);
				if (expired) throw tokenDeadlineError(tokenUrl, timeoutMs);
				// An auth server's blip (a 5xx, a refusal for its rate limit, a dropped connection) must not
				// fail every row of a sheet. A wait that ends at or past the deadline would only end at it:
				// the answer (with how long it asked) is told at once instead.
				const waitMs = waitBeforeTry(answer, attempt);
				if (
					isTransient(answer) &&
					attempt < TOKEN_ATTEMPTS &&
					waitMs < endsAt - Date.now() &&
					(await CompanyRegistryApi.tokenRetryWait(waitMs, waitEnds))
				)
					continue;
				// n8n stores every field returned: the token and what it was asked for.
				return { ...tokenOf(answer, tokenUrl, audience, secret), tokenIssuedFor: issuedFor };
			}
		} finally {
			deadline.abort();
		}
	}

	/**
	 * The Bearer header, set directly rather than by an expression: n8n evaluates a generic
	 * `authenticate` in its expression sandbox for every request (about 0.4 ms of CPU each).
	 */
	async authenticate(
		credentials: ICredentialDataDecryptedObject,
		requestOptions: IHttpRequestOptions,
	): Promise<IHttpRequestOptions> {
		return {
			...requestOptions,
			headers: {
				...requestOptions.headers,
				Authorization: `Bearer ${String(credentials.accessToken ?? '')}`,
			},
		};
	}

	/**
	 * A real lookup, so that "Test" proves the exchange, the audience and the read:company scope at once.
	 * n8n's CredentialsTester sends it through httpRequestWithAuthentication, which follows redirects
	 * and re-sends Authorization to any origin unless told not to: it carries the Bearer token, so it
	 * follows none, and a redirect gets a message saying why.
	 */
	test: ICredentialTestRequest = {
		request: {
			baseURL: '={{$credentials.baseUrl.trim().replace(/\\/+$/, "")}}',
			url: '/v1/company/de/HRB12345',
			disableFollowRedirect: true,
			sendCredentialsOnCrossOriginRedirect: false,
		},
		// n8n's type lists one kind of rule; its CredentialsTester reads each rule by its own type, responseCode
		// rules on a failed status and responseSuccessBody rules on a 2xx, so both kinds go in one list.
		rules: [
			...REDIRECT_STATUSES.map((status) => ({
				type: 'responseCode' as const,
				properties: {
					value: status,
					message: `The registry answered with a redirect (HTTP ${status}), which the Test does not follow: the access token is only ever sent to the Base URL. If the registry has moved, set the Base URL to its new address.`,
				},
			})),
			{
				// n8n takes any 2xx as success: a web site or another API that answers 200 to every path would pass.
				type: 'responseSuccessBody' as const,
				properties: {
					key: 'isRegistered',
					value: undefined,
					message:
						'The Base URL answered the Test lookup with no company record (no isRegistered field): check that the Base URL is the registry API host without /v1, e.g. https://api.verifiet.com.',
				},
			},
		] as ICredentialTestRequest['rules'],
	};
}
