import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

import { Chaos, type ChaosSettings } from './chaos';
import { FaultDice, NO_FAULTS, type FaultSettings } from './faults';
import { HttpFailure, sendJson } from './http';
import { TokenSigner } from './jwt';
import { RateLimiter, type RateLimitSettings } from './limiters';
import { LOOKUP_PATH, lookupEndpoint } from './lookupEndpoint';
import { Registry, type CompanyChange, type StoredCompany } from './registry';
import type {
	CompanyFault,
	Behaviour,
	EchoSettings,
	RateLimitHeaders,
	RedirectSettings,
	RegistryDown,
	RetryAfterFormat,
	SandboxCounters,
} from './state';
import { tokenEndpoint, type SandboxClient } from './tokenEndpoint';

export { FAULT_IDS, type FaultSettings } from './faults';
export { MISBEHAVIOURS, type ChaosSettings, type Misbehaviour } from './chaos';
export type { LimiterFamily, RateLimitSettings } from './limiters';
export type {
	CompanyFault,
	EchoSettings,
	RateLimitHeaders,
	RedirectSettings,
	RegistryDown,
	RetryAfterFormat,
	SandboxCounters,
} from './state';
export type { SandboxClient } from './tokenEndpoint';

export interface SandboxOptions {
	/** 4010 when undefined; 0 picks any free port. */
	port?: number;
	clients?: SandboxClient[];
	rateLimit?: Partial<RateLimitSettings>;
	faults?: Partial<FaultSettings>;
	/** How 429s give Retry-After: seconds (default), an HTTP date, or not at all. */
	retryAfterFormat?: RetryAfterFormat;
	/** X-RateLimit-* on every lookup (default), only on 429s as some services do, or never (bare 429s). */
	rateLimitHeaders?: RateLimitHeaders;
	/** Seed for the fault dice, so a run can be repeated. */
	seed?: number;
	/** Companies instead of companies.json. */
	companies?: StoredCompany[];
}

export interface Sandbox {
	baseUrl: string;
	authUrl: string;
	audience: string;
	port: number;
	counters: SandboxCounters;
	resetCounters(): void;
	changeCompany(
		key: { country: string; companyId: string; state?: string },
		change: CompanyChange,
	): void;
	revokeAllTokens(): void;
	/** Raw request targets (path and query) of the last 10,000 lookups, oldest first. */
	lookupLog: string[];
	/**
	 * Every lookup's arrival, status and answer, once `traceLookups(true)` (a real run's story, request
	 * by request, to set beside bench:sim's: test:n8n's scale check writes it when asked).
	 */
	lookupTrace: LookupTraceEntry[];
	traceLookups(on: boolean): void;
	/** Called after each lookup is counted, with the running count: lets a test act mid-execution. */
	onLookup(listener: ((count: number) => void) | undefined): void;
	/** Merges into the limits; may switch the family. Every client restarts with a full allowance. */
	setRateLimit(settings: Partial<RateLimitSettings>): void;
	setFaults(settings: Partial<FaultSettings>): void;
	/** One company fails every request with `fault` until set to undefined (its lookups in any language and state). */
	setCompanyFault(
		key: { country: string; companyId: string },
		fault: CompanyFault | undefined,
	): void;
	setRetryAfterFormat(format: RetryAfterFormat): void;
	setRateLimitHeaders(mode: RateLimitHeaders): void;
	/** Every 429 carries exactly this raw Retry-After ('0', '-5', a past date...); undefined ends it. */
	setRetryAfterOverride(value: string | undefined): void;
	/** 'refuse': lookup and token connections destroyed unanswered; '503': every lookup 503; undefined: up. */
	setRegistryDown(mode: RegistryDown | undefined): void;
	setRedirect(target: RedirectSettings | undefined): void;
	setEcho(mode: EchoSettings | undefined): void;
	/** Every lookup answers 401 invalid_token; tokens are still issued. */
	setPermanent401(on: boolean): void;
	/** The chaos registry (sandbox/chaos.ts): every request draws a misbehaviour from the seed; undefined ends it. */
	setChaos(settings: ChaosSettings | undefined): void;
	/** Every access token the token endpoint issued. */
	issuedTokens: string[];
	/** Connections open at the server now. */
	openSockets(): number;
	/** Back to the options the sandbox started with: limits (allowance full), faults, headers, overrides, echo, redirect, down, 401. Not counters. */
	resetAll(): void;
	close(): Promise<void>;
}

/** One lookup as the sandbox saw it: epoch ms with sub-millisecond precision. */
export interface LookupTraceEntry {
	/** When the request reached the handler (the limiter decides then). */
	arrivedAt: number;
	/** When the answer was written out; undefined when the connection was dropped. */
	answeredAt?: number;
	/** The status sent (0 for a dropped connection). */
	status: number;
}

/** Epoch ms with the monotonic clock's precision. */
const preciseNow = () => performance.timeOrigin + performance.now();

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

const LOOKUP_LOG_SIZE = 10_000;

export async function startSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
	const clients = new Map(
		(options.clients ?? [DEMO_CLIENT, AML_ONLY_CLIENT]).map((client) => [client.clientId, client]),
	);
	const signer = new TokenSigner();
	const registry = new Registry(options.companies);
	const initialLimits: RateLimitSettings = { ...DEFAULT_RATE_LIMIT, ...options.rateLimit };
	const limiter = new RateLimiter(initialLimits);
	const initialBehaviour = (): Behaviour => ({
		faults: { ...NO_FAULTS, ...options.faults },
		retryAfterFormat: options.retryAfterFormat ?? 'seconds',
		rateLimitHeaders: options.rateLimitHeaders ?? 'always',
		retryAfterOverride: undefined,
		echo: undefined,
		redirect: undefined,
		down: undefined,
		permanent401: false,
		companyFaults: new Map(),
		chaos: undefined,
	});
	// One object the endpoints hold on to: setters change its fields, never replace it.
	const behaviour = initialBehaviour();
	const dice = new FaultDice(options.seed ?? 20261121);
	const liveTokenIds = new Set<string>();
	const counters: SandboxCounters = {
		tokenRequests: 0,
		tokensIssued: 0,
		lookups: 0,
		lookupsByStatus: {},
	};
	let baseUrl = '';
	let audience = '';
	const origin = () => ({ baseUrl, audience });

	const lookupLog: string[] = [];
	const lookupTrace: LookupTraceEntry[] = [];
	let tracing = false;
	let lookupListener: ((count: number) => void) | undefined;
	const countLookup = (status: number) => {
		counters.lookups += 1;
		counters.lookupsByStatus[status] = (counters.lookupsByStatus[status] ?? 0) + 1;
		lookupListener?.(counters.lookups);
	};

	const issuedTokens: string[] = [];
	const handleToken = tokenEndpoint({
		clients,
		signer,
		liveTokenIds,
		counters,
		behaviour,
		origin,
		issuedTokens,
	});
	const handleLookup = lookupEndpoint({
		signer,
		liveTokenIds,
		registry,
		limiter,
		dice,
		behaviour,
		origin,
		countLookup,
	});

	const server: Server = createServer((request, response) => {
		const url = new URL(request.url ?? '/', 'http://sandbox.invalid');
		if (url.pathname === '/.well-known/jwks.json') {
			sendJson(response, 200, signer.jwks());
			return;
		}
		const isToken = url.pathname === '/oauth/token';
		const lookupMatch = LOOKUP_PATH.exec(url.pathname);
		if (!isToken) {
			lookupLog.push(request.url ?? '');
			if (lookupLog.length > LOOKUP_LOG_SIZE) lookupLog.shift();
		}
		if (tracing && lookupMatch) {
			const entry: LookupTraceEntry = { arrivedAt: preciseNow(), status: 0 };
			lookupTrace.push(entry);
			response.once('finish', () => {
				entry.answeredAt = preciseNow();
				entry.status = response.statusCode;
			});
		}
		if (behaviour.down === 'refuse' && (isToken || lookupMatch)) {
			if (isToken) counters.tokenRequests += 1;
			else countLookup(0);
			request.socket.destroy();
			return;
		}
		const handled = isToken
			? handleToken(request, response)
			: lookupMatch
				? handleLookup(request, response, url, lookupMatch)
				: Promise.reject(
						new HttpFailure(404, {
							error: 'NotFoundException',
							message: `No route for ${url.pathname}`,
						}),
					);
		handled.catch((error: unknown) => {
			const failure =
				error instanceof HttpFailure
					? error
					: new HttpFailure(500, {
							error: 'InternalFailureException',
							message: 'The sandbox failed unexpectedly',
						});
			if (!isToken) countLookup(failure.status);
			if (!response.headersSent && !response.destroyed)
				sendJson(response, failure.status, failure.body, failure.headers);
		});
	});
	server.keepAliveTimeout = 30_000;
	const sockets = new Set<Socket>();
	server.on('connection', (socket) => {
		sockets.add(socket);
		socket.on('close', () => sockets.delete(socket));
	});

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
		lookupTrace,
		traceLookups(on) {
			tracing = on;
		},
		onLookup(listener) {
			lookupListener = listener;
		},
		setRateLimit(settings) {
			limiter.update(settings);
		},
		setFaults(settings) {
			behaviour.faults = { ...behaviour.faults, ...settings };
		},
		setCompanyFault(key, fault) {
			const path = `/v1/company/${key.country}/${key.companyId}`;
			if (fault) behaviour.companyFaults.set(path, fault);
			else behaviour.companyFaults.delete(path);
		},
		setRetryAfterFormat(format) {
			behaviour.retryAfterFormat = format;
		},
		setRateLimitHeaders(mode) {
			behaviour.rateLimitHeaders = mode;
		},
		setRetryAfterOverride(value) {
			behaviour.retryAfterOverride = value;
		},
		setRegistryDown(mode) {
			behaviour.down = mode;
		},
		setRedirect(target) {
			behaviour.redirect = target;
		},
		setEcho(mode) {
			behaviour.echo = mode;
		},
		setPermanent401(on) {
			behaviour.permanent401 = on;
		},
		setChaos(settings) {
			behaviour.chaos = settings ? new Chaos(settings) : undefined;
		},
		issuedTokens,
		openSockets: () => sockets.size,
		resetAll() {
			limiter.replace(initialLimits);
			Object.assign(behaviour, initialBehaviour());
			dice.forget();
		},
		async close() {
			server.closeAllConnections();
			await new Promise<void>((resolve) => server.close(() => resolve()));
		},
	};
}
