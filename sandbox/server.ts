import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';

import { COUNTRIES, US_STATES } from '../nodes/shared/model/countries.generated';
import { TokenSigner } from './jwt';
import { RateLimiter, type RateLimitSettings } from './rateLimiter';
import { Registry, type CompanyChange, type StoredCompany } from './registry';

/** A client the token endpoint knows (interface document 2.3). */
export interface SandboxClient {
	clientId: string;
	clientSecret: string;
	/** Space-separated, as in the token response (2.4). */
	scope: string;
	/** Token lifetime in seconds; 2,592,000 (30 days) unless set (3.2). */
	expiresIn?: number;
}

/** Faults injected into otherwise good lookups. Shares are probabilities from 0 to 1. */
export interface FaultSettings {
	latencyMs: number;
	/** Uniform extra latency from 0 to this many milliseconds. */
	jitterMs: number;
	share500: number;
	share504: number;
	/** Connection destroyed without a response. */
	shareDrop: number;
	/** 200 with a body that is not JSON. */
	shareMalformed: number;
	/** 200 with a record that breaks section 2.1 (status outside the enum, or a bad date). */
	shareContractBreak: number;
	/** How long the reserved slow id takes to answer. */
	slowMs: number;
}

export type RetryAfterFormat = 'seconds' | 'http-date' | 'none';
export type RateLimitHeaders = 'always' | '429-only';

export interface SandboxOptions {
	/** 4010 when undefined; 0 picks any free port. */
	port?: number;
	clients?: SandboxClient[];
	rateLimit?: Partial<RateLimitSettings>;
	faults?: Partial<FaultSettings>;
	/** How 429s give Retry-After: seconds (default), an HTTP date, or not at all. */
	retryAfterFormat?: RetryAfterFormat;
	/** X-RateLimit-* on every lookup (default), or only on 429s as some services do. */
	rateLimitHeaders?: RateLimitHeaders;
	/** Seed for the fault dice, so a run can be repeated. */
	seed?: number;
	/** Companies instead of companies.json. */
	companies?: StoredCompany[];
}

export interface SandboxCounters {
	/** Every request to POST /oauth/token, answered or refused. */
	tokenRequests: number;
	tokensIssued: number;
	/** Every request to the lookup route, by the status it got; dropped connections under 0. */
	lookupsByStatus: Record<number, number>;
	lookups: number;
}

export interface Sandbox {
	baseUrl: string;
	authUrl: string;
	audience: string;
	port: number;
	counters: SandboxCounters;
	resetCounters(): void;
	changeCompany(key: { country: string; companyId: string; state?: string }, change: CompanyChange): void;
	revokeAllTokens(): void;
	/** Raw request targets (path and query) of the last 1,000 lookups, oldest first. */
	lookupLog: string[];
	/** Called after each lookup is counted, with the running count: lets a test act mid-execution. */
	onLookup(listener: ((count: number) => void) | undefined): void;
	setRateLimit(settings: Partial<RateLimitSettings>): void;
	setFaults(settings: Partial<FaultSettings>): void;
	setRetryAfterFormat(format: RetryAfterFormat): void;
	setRateLimitHeaders(mode: RateLimitHeaders): void;
	close(): Promise<void>;
}

export const DEMO_CLIENT: SandboxClient = {
	clientId: 'demo-client',
	clientSecret: 'demo-secret',
	scope: 'read:company read:aml',
};
/** A client whose plan lacks company data: lookups answer 403. */
export const AML_ONLY_CLIENT: SandboxClient = {
	clientId: 'aml-only-client',
	clientSecret: 'aml-only-secret',
	scope: 'read:aml',
};

/** Public service notes, "Rate limits": 100 requests per second with bursts up to 1000. */
export const DEFAULT_RATE_LIMIT: RateLimitSettings = { ratePerSecond: 100, burst: 1000 };

const NO_FAULTS: FaultSettings = {
	latencyMs: 0,
	jitterMs: 0,
	share500: 0,
	share504: 0,
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
type FaultId = keyof typeof FAULT_IDS;

const COUNTRY_CODES = new Set(COUNTRIES.map((country) => country.code));
const US_STATE_CODES = new Set(US_STATES.map((state) => state.code));

/**
 * Allowed company ids (our documented choice): 1 to 40 characters of ASCII letters, digits, spaces,
 * `.`, `-` and `/`, starting and ending with a letter or digit, without `..` or `//`.
 */
const COMPANY_ID = /^(?!.*(\.\.|\/\/))[A-Za-z0-9](?:[A-Za-z0-9 .\-/]{0,38}[A-Za-z0-9])?$/;
/** languageCode: a BCP 47 primary language subtag, optionally with a region (`en`, `pt-BR`). */
const LANGUAGE_CODE = /^[a-z]{2,3}(?:-[A-Za-z0-9]{2,8})?$/;
const RATE_LIMIT_MESSAGE = 'Rate limit exceeded. Please wait and try again later.';
const LOOKUP_PATH = /^\/v1\/company\/([^/]*)\/([^/]*)$/;

class HttpFailure extends Error {
	constructor(
		readonly status: number,
		readonly body: Record<string, unknown>,
		readonly headers: Record<string, string> = {},
	) {
		super(String(body.message ?? body.error_description ?? status));
	}
}

const invalidInput = (message: string) =>
	new HttpFailure(400, { error: 'InvalidInputException', message });

function mulberry32(seed: number): () => number {
	let state = seed >>> 0;
	return () => {
		state = (state + 0x6d2b79f5) >>> 0;
		let t = state;
		t = Math.imul(t ^ (t >>> 15), t | 1);
		t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	};
}

const sleep = async (ms: number) => await new Promise((resolve) => setTimeout(resolve, ms));

function sendJson(
	response: ServerResponse,
	status: number,
	body: unknown,
	headers: Record<string, string> = {},
): void {
	const payload = JSON.stringify(body);
	response.writeHead(status, {
		'content-type': 'application/json; charset=utf-8',
		'content-length': Buffer.byteLength(payload),
		...headers,
	});
	response.end(payload);
}

async function readBody(request: IncomingMessage, limit = 64 * 1024): Promise<string> {
	const chunks: Buffer[] = [];
	let size = 0;
	for await (const chunk of request) {
		size += (chunk as Buffer).length;
		if (size > limit) throw new HttpFailure(413, { error: 'invalid_request', error_description: 'The request body is too large' });
		chunks.push(chunk as Buffer);
	}
	return Buffer.concat(chunks).toString('utf8');
}

/** The record of section 2.1 for a registered company, in the language asked for where it has one. */
function registeredRecord(company: StoredCompany, languageCode: string | undefined) {
	const translation = languageCode
		? company.translations?.[languageCode] ?? company.translations?.[languageCode.split('-')[0]]
		: undefined;
	const registeredAddress = translation?.registeredAddress ?? company.registeredAddress;
	return {
		isRegistered: true,
		officialName: translation?.officialName ?? company.officialName,
		status: company.status,
		registrationDate: company.registrationDate,
		...(registeredAddress !== undefined ? { registeredAddress } : {}),
	};
}

/** Rule 2.1: an unknown company carries the literal `N/A` in the four other fields. */
const NOT_REGISTERED = {
	isRegistered: false,
	officialName: 'N/A',
	status: 'N/A',
	registrationDate: 'N/A',
	registeredAddress: 'N/A',
} as const;

export async function startSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
	const clients = new Map(
		(options.clients ?? [DEMO_CLIENT, AML_ONLY_CLIENT]).map((client) => [client.clientId, client]),
	);
	const signer = new TokenSigner();
	const registry = new Registry(options.companies);
	const limiter = new RateLimiter({ ...DEFAULT_RATE_LIMIT, ...options.rateLimit });
	let faults: FaultSettings = { ...NO_FAULTS, ...options.faults };
	let retryAfterFormat: RetryAfterFormat = options.retryAfterFormat ?? 'seconds';
	let rateLimitHeaders: RateLimitHeaders = options.rateLimitHeaders ?? 'always';
	const random = mulberry32(options.seed ?? 20261121);
	/** Token ids still valid; revoking all tokens empties it. */
	const liveTokenIds = new Set<string>();
	const counters: SandboxCounters = { tokenRequests: 0, tokensIssued: 0, lookups: 0, lookupsByStatus: {} };
	let baseUrl = '';
	let audience = '';

	const lookupLog: string[] = [];
	let lookupListener: ((count: number) => void) | undefined;
	const countLookup = (status: number) => {
		counters.lookups += 1;
		counters.lookupsByStatus[status] = (counters.lookupsByStatus[status] ?? 0) + 1;
		lookupListener?.(counters.lookups);
	};

	async function handleToken(request: IncomingMessage, response: ServerResponse): Promise<void> {
		counters.tokenRequests += 1;
		if (request.method !== 'POST') {
			throw new HttpFailure(405, { error: 'invalid_request', error_description: 'Use POST' }, { allow: 'POST' });
		}
		const raw = await readBody(request);
		const contentType = request.headers['content-type'] ?? '';
		let body: Record<string, unknown>;
		try {
			if (contentType.includes('application/x-www-form-urlencoded')) {
				body = Object.fromEntries(new URLSearchParams(raw));
			} else {
				const parsed: unknown = JSON.parse(raw);
				if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error('not an object');
				body = parsed as Record<string, unknown>;
			}
		} catch {
			throw new HttpFailure(400, {
				error: 'invalid_request',
				error_description: 'The request body must be a JSON object (section 4.1)',
			});
		}
		for (const field of ['grant_type', 'client_id', 'client_secret', 'audience']) {
			if (typeof body[field] !== 'string' || body[field] === '') {
				throw new HttpFailure(400, {
					error: 'invalid_request',
					error_description: `Missing required parameter: ${field}`,
				});
			}
		}
		if (body.grant_type !== 'client_credentials') {
			throw new HttpFailure(400, {
				error: 'unsupported_grant_type',
				error_description: 'Only the client_credentials grant is supported',
			});
		}
		const client = clients.get(body.client_id as string);
		if (!client || client.clientSecret !== body.client_secret) {
			// One answer for an unknown client and a wrong secret: no hint which one it was.
			throw new HttpFailure(401, { error: 'invalid_client', error_description: 'Client authentication failed' });
		}
		if (body.audience !== audience) {
			throw new HttpFailure(403, {
				error: 'access_denied',
				error_description: `Service not enabled within domain: ${String(body.audience)}`,
			});
		}
		const now = Math.floor(Date.now() / 1000);
		const expiresIn = client.expiresIn ?? 2_592_000;
		const jti = randomUUID();
		liveTokenIds.add(jti);
		counters.tokensIssued += 1;
		const accessToken = signer.sign({
			iss: `${baseUrl}/`,
			sub: `${client.clientId}@clients`,
			aud: audience,
			iat: now,
			exp: now + expiresIn,
			scope: client.scope,
			gty: 'client-credentials',
			jti,
		});
		sendJson(
			response,
			200,
			{ access_token: accessToken, scope: client.scope, expires_in: expiresIn, token_type: 'Bearer' },
			{ 'cache-control': 'no-store', pragma: 'no-cache' },
		);
	}

	function authorize(request: IncomingMessage) {
		const header = request.headers.authorization;
		const match = header ? /^Bearer ([^\s]+)$/i.exec(header) : null;
		if (!match) {
			// RFC 6750 3.1: a request with no credentials gets a challenge without an error code.
			throw new HttpFailure(
				401,
				{ error: 'UnauthorizedException', message: 'A Bearer access token is required' },
				{ 'www-authenticate': 'Bearer realm="company-registry"' },
			);
		}
		const invalid = (reason: string) =>
			new HttpFailure(
				401,
				{ error: 'UnauthorizedException', message: reason },
				{ 'www-authenticate': `Bearer realm="company-registry", error="invalid_token", error_description="${reason}"` },
			);
		const check = signer.verify(match[1]);
		if (!check.valid) throw invalid(check.reason);
		const { claims } = check;
		if (claims.exp <= Date.now() / 1000) throw invalid('The access token expired');
		if (claims.aud !== audience) throw invalid('The access token is for another audience');
		if (!liveTokenIds.has(claims.jti)) throw invalid('The access token was revoked');
		return claims;
	}

	function retryAfterHeader(seconds: number): Record<string, string> {
		if (retryAfterFormat === 'none') return {};
		if (retryAfterFormat === 'http-date') {
			// An HTTP date has whole seconds: round up so the client never comes back too early.
			return { 'retry-after': new Date((Math.floor(Date.now() / 1000) + seconds + 1) * 1000).toUTCString() };
		}
		return { 'retry-after': String(seconds) };
	}

	function rateLimited(seconds: number, remaining: number, limit: number): HttpFailure {
		return new HttpFailure(429, { message: RATE_LIMIT_MESSAGE }, {
			...retryAfterHeader(seconds),
			'x-ratelimit-limit': String(limit),
			'x-ratelimit-remaining': String(remaining),
		});
	}

	async function handleLookup(
		request: IncomingMessage,
		response: ServerResponse,
		url: URL,
		match: RegExpExecArray,
	): Promise<void> {
		if (request.method !== 'GET') {
			throw new HttpFailure(405, { error: 'MethodNotAllowedException', message: 'Use GET' }, { allow: 'GET' });
		}
		const claims = authorize(request);
		const scopes = claims.scope.split(' ');
		if (!scopes.includes('read:company')) {
			throw new HttpFailure(403, {
				error: 'AccessDeniedException',
				message: `The token's scope does not include read:company (granted: ${claims.scope}); the plan must include company data`,
			});
		}
		const clientId = claims.sub.replace(/@clients$/, '');
		const decision = limiter.take(clientId);
		const limits = limiter.limits;
		if (!decision.allowed) throw rateLimited(decision.retryAfterSeconds, 0, limits.burst);
		const rateHeaders: Record<string, string> =
			rateLimitHeaders === 'always'
				? { 'x-ratelimit-limit': String(limits.burst), 'x-ratelimit-remaining': String(decision.remaining) }
				: {};

		const delay = faults.latencyMs + (faults.jitterMs > 0 ? random() * faults.jitterMs : 0);
		if (delay > 0) await sleep(delay);

		let countryCode: string;
		let companyId: string;
		try {
			countryCode = decodeURIComponent(match[1]);
			companyId = decodeURIComponent(match[2]);
		} catch {
			throw invalidInput('The path is not correctly percent-encoded');
		}
		if (!COUNTRY_CODES.has(countryCode)) {
			throw invalidInput(
				`countryCode '${countryCode}' is not an assigned ISO 3166-1 alpha-2 code in lowercase (section 2.2)`,
			);
		}
		if (!COMPANY_ID.test(companyId)) {
			throw invalidInput(
				'companyId has invalid characters or length: allowed are 1 to 40 letters, digits, spaces, ".", "-" and "/", starting and ending with a letter or digit',
			);
		}
		const stateCode = url.searchParams.get('stateCode') ?? undefined;
		if (countryCode === 'us') {
			if (!stateCode) throw invalidInput("stateCode is required when countryCode is 'us' (section 2.2)");
			if (!US_STATE_CODES.has(stateCode)) {
				throw invalidInput(`stateCode '${stateCode}' is not a lowercase ISO 3166-2 US state code`);
			}
		}
		const languageCode = url.searchParams.get('languageCode') ?? undefined;
		if (languageCode !== undefined && !LANGUAGE_CODE.test(languageCode)) {
			throw invalidInput(`languageCode '${languageCode}' is not a language code such as 'en' or 'pt-BR'`);
		}

		const reserved = countryCode === 'de' ? (companyId.toUpperCase() as FaultId) : undefined;
		const fault = reserved && reserved in FAULT_IDS ? reserved : undefined;
		const dice = random();
		let threshold = 0;
		const rolled = (share: number) => share > 0 && dice < (threshold += share);

		if (fault === 'HRB99500' || (!fault && rolled(faults.share500))) {
			throw new HttpFailure(500, { error: 'InternalFailureException', message: 'The service could not process the request' });
		}
		if (fault === 'HRB99504' || (!fault && rolled(faults.share504))) {
			throw new HttpFailure(504, { message: 'Gateway Timeout' });
		}
		if (fault === 'HRB99429') throw rateLimited(1, 0, limits.burst);
		if (fault === 'HRB99403') {
			throw new HttpFailure(403, { error: 'AccessDeniedException', message: 'The plan does not cover this lookup' });
		}
		if (fault === 'HRB99404') throw new HttpFailure(404, { error: 'NotFoundException', message: 'Not Found' });
		if (fault === 'HRB99418') throw new HttpFailure(418, { message: "I'm a teapot" });
		if (fault === 'HRB99901' || (!fault && rolled(faults.shareDrop))) {
			countLookup(0);
			request.socket.destroy();
			return;
		}
		if (fault === 'HRB99902' || (!fault && rolled(faults.shareMalformed))) {
			countLookup(200);
			response.writeHead(200, { 'content-type': 'application/json; charset=utf-8', ...rateHeaders });
			response.end('{"isRegistered": true, "officialName": "Trunc');
			return;
		}
		const contractBreak = !fault && rolled(faults.shareContractBreak) ? (random() < 0.5 ? 'status' : 'date') : undefined;
		if (fault === 'HRB99903' || contractBreak === 'status') {
			countLookup(200);
			sendJson(response, 200, { ...registeredRecord(loadExample(registry), undefined), status: 'Dissolved' }, rateHeaders);
			return;
		}
		if (fault === 'HRB99904' || contractBreak === 'date') {
			countLookup(200);
			sendJson(response, 200, { ...registeredRecord(loadExample(registry), undefined), registrationDate: '17/04/1998' }, rateHeaders);
			return;
		}
		if (fault === 'HRB99905') await sleep(faults.slowMs);

		const company = registry.find(countryCode, companyId, stateCode);
		countLookup(200);
		sendJson(response, 200, company ? registeredRecord(company, languageCode) : NOT_REGISTERED, rateHeaders);
	}

	const server: Server = createServer((request, response) => {
		const url = new URL(request.url ?? '/', 'http://sandbox.invalid');
		if (url.pathname === '/.well-known/jwks.json') {
			sendJson(response, 200, signer.jwks());
			return;
		}
		const lookupMatch = LOOKUP_PATH.exec(url.pathname);
		if (url.pathname !== '/oauth/token') {
			lookupLog.push(request.url ?? '');
			if (lookupLog.length > 1000) lookupLog.shift();
		}
		const handled =
			url.pathname === '/oauth/token'
				? handleToken(request, response)
				: lookupMatch
					? handleLookup(request, response, url, lookupMatch)
					: Promise.reject(new HttpFailure(404, { error: 'NotFoundException', message: `No route for ${url.pathname}` }));
		handled.catch((error: unknown) => {
			const failure =
				error instanceof HttpFailure
					? error
					: new HttpFailure(500, { error: 'InternalFailureException', message: 'The sandbox failed unexpectedly' });
			if (url.pathname !== '/oauth/token') countLookup(failure.status);
			if (!response.headersSent && !response.destroyed) sendJson(response, failure.status, failure.body, failure.headers);
		});
	});
	server.keepAliveTimeout = 30_000;

	await new Promise<void>((resolve, reject) => {
		server.once('error', reject);
		server.listen(options.port ?? 4010, '127.0.0.1', () => resolve());
	});
	const port = (server.address() as AddressInfo).port;
	baseUrl = `http://127.0.0.1:${port}`;
	audience = `${baseUrl}/v1/`;

	return {
		baseUrl,
		authUrl: baseUrl,
		audience,
		port,
		counters,
		resetCounters() {
			counters.tokenRequests = 0;
			counters.tokensIssued = 0;
			counters.lookups = 0;
			counters.lookupsByStatus = {};
		},
		changeCompany(key, change) {
			registry.change(key.country, key.companyId, key.state, change);
		},
		revokeAllTokens() {
			liveTokenIds.clear();
		},
		lookupLog,
		onLookup(listener) {
			lookupListener = listener;
		},
		setRateLimit(settings) {
			limiter.update(settings);
		},
		setFaults(settings) {
			faults = { ...faults, ...settings };
		},
		setRetryAfterFormat(format) {
			retryAfterFormat = format;
		},
		setRateLimitHeaders(mode) {
			rateLimitHeaders = mode;
		},
		async close() {
			server.closeAllConnections();
			await new Promise<void>((resolve) => server.close(() => resolve()));
		},
	};
}

/** The record that contract-breaking faults distort: the documented German example. */
function loadExample(registry: Registry): StoredCompany {
	return registry.find('de', 'HRB12345') as StoredCompany;
}
