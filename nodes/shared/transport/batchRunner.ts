import { checkCompanyRecord, type CompanyRecord } from '../model/companyRecord';
import { lookupKeyId, type LookupKey } from '../model/lookupKey';
import { readRateLimitHeaders } from './rateControl/headers';
import { RateController, type Tenant, type TenantSettings } from './rateController';
import type { LookupFailure } from './registryError';
import {
	TOKEN_REFUSAL_STATUSES,
	type RegistryAnswer,
	type RegistryRequest,
} from './registryRequest';
import { parseRetryAfter } from './retryAfter';
import {
	backoffMs,
	CircuitBreaker,
	type BreakerGate,
	MAX_RATE_LIMITED_TRIES,
	rateLimitDelayMs,
	RetryBudget,
	TRANSIENT_STATUSES,
} from './retryPolicy';
import { TokenRenewal } from './tokenRenewal';
import { realClock, Waits, type Clock } from './wait';

export type LookupOutcome =
	| { kind: 'record'; record: CompanyRecord }
	| { kind: 'failed'; failure: LookupFailure }
	/** Not sent: the execution was cancelled, or stopped at another row's failure. */
	| { kind: 'cancelled' };

export interface BatchSettings extends TenantSettings {
	/** One controller per registry and client in this process: `${baseUrl} ${clientId}`. */
	registryKey: string;
	/** How long one lookup may wait for the registry's rate limit in total. */
	maxRateLimitWaitMs: number;
	/** Tries of one lookup that meets transient failures (1: no retries). */
	maxAttempts: number;
}

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

/** Lookups a worker pool holds in hand per allowed request in flight. */
const IN_HAND_PER_SLOT = 2;

/**
 * Looks up the keys of rows 0 … count - 1 for one execution, one outcome per row (undefined for a row
 * with no key). `keyAt` is called lazily, as workers take rows, so reading a big sheet's fields (n8n
 * evaluates each expression) overlaps with the lookups instead of delaying the first one. Identical
 * keys share one lookup; a pool of workers (twice the concurrency) takes the next row as one
 * finishes, so a 20,000-row sheet holds a few dozen lookups in hand, not 20,000; with
 * `stopAtFirstFailure`, the first failure cancels everything not yet sent. Each lookup passes the
 * circuit breaker and the rate controller, then is tried until it has an answer or the retry policy
 * gives up. Never throws.
 */
export async function runBatch(
	count: number,
	keyAt: (index: number) => LookupKey | undefined,
	settings: BatchSettings,
	context: BatchContext,
	{ stopAtFirstFailure }: { stopAtFirstFailure: boolean },
): Promise<Array<LookupOutcome | undefined>> {
	const outcomes = new Array<LookupOutcome | undefined>(count);
	const shared = new Map<string, Promise<LookupOutcome>>();
	const duplicates: Array<Promise<void>> = [];
	const stop = new AbortController();
	const onCancel = () => stop.abort();
	context.cancelSignal?.addEventListener('abort', onCancel, { once: true });
	if (context.cancelSignal?.aborted) stop.abort();
	let next = 0;
	const session = new LookupSession(settings, context, stop.signal, () => count - next);
	try {
		const worker = async () => {
			while (next < count) {
				const index = next++;
				const key = keyAt(index);
				if (!key) continue;
				const id = lookupKeyId(key);
				const pending = shared.get(id);
				if (pending) {
					duplicates.push(pending.then((outcome) => void (outcomes[index] = outcome)));
					continue;
				}
				const lookup = session.lookUp(key);
				shared.set(id, lookup);
				const outcome = await lookup;
				outcomes[index] = outcome;
				if (outcome.kind === 'failed' && stopAtFirstFailure) stop.abort();
			}
		};
		await Promise.all(
			Array.from({ length: Math.min(count, IN_HAND_PER_SLOT * settings.maxConcurrency) }, worker),
		);
		await Promise.all(duplicates);
	} finally {
		session.close();
		context.cancelSignal?.removeEventListener('abort', onCancel);
	}
	return outcomes;
}

/** What one execution's lookups share: its place at the rate controller, the token, the limits. */
class LookupSession {
	private readonly tenant: Tenant;
	private readonly renewal: TokenRenewal;
	private readonly breaker: CircuitBreaker;
	private readonly budget = new RetryBudget();
	/** Set when the credential failed: every later lookup fails the same way, without a request. */
	private credentialFailure: LookupFailure | undefined;
	/** The failure that tripped the breaker: every row not yet answered fails with it. */
	private downFailure: LookupFailure | undefined;
	private lastTransient: LookupFailure | undefined;
	private readonly waits: Waits;
	/** The credential read again before this execution's first request (see BatchContext). */
	private reloaded: Promise<void> | undefined;
	private readonly clock: Clock;

	constructor(
		private readonly settings: BatchSettings,
		private readonly context: BatchContext,
		private readonly signal: AbortSignal,
		rowsNotTaken: () => number,
	) {
		this.clock = context.clock ?? realClock;
		this.breaker = new CircuitBreaker(() => this.clock.now());
		this.tenant = RateController.for(settings.registryKey, this.clock).join({
			...settings,
			firstRequestAlone: !context.tokenWasStored,
			rowsNotTaken,
		});
		this.renewal = new TokenRenewal(context.tokenWasStored);
		this.waits = new Waits(signal, this.clock);
		signal.addEventListener(
			'abort',
			() => {
				this.tenant.cancelWaiting();
				this.breaker.stop();
			},
			{ once: true },
		);
	}

	private async wait(ms: number): Promise<boolean> {
		return await this.waits.wait(ms);
	}

	close(): void {
		this.tenant.leave();
	}

	async lookUp(key: LookupKey): Promise<LookupOutcome> {
		let attempt = 1;
		let rateLimited = 0;
		let rateLimitedSince: number | undefined;
		let tokenResends = 0;
		for (;;) {
			if (this.credentialFailure) return failed(this.credentialFailure);
			if (this.signal.aborted) return { kind: 'cancelled' };
			const gate = await this.breaker.gate(async (ms) => await this.wait(ms));
			if (this.credentialFailure) return failed(this.credentialFailure);
			if (gate.kind === 'tripped')
				return this.signal.aborted ? { kind: 'cancelled' } : failed(this.registryDown());
			await this.renewal.ready();
			// Only a lookup that met 429 itself spends its wait budget; the others sit out a (short) pause.
			const budgetEnds =
				rateLimitedSince === undefined
					? Number.POSITIVE_INFINITY
					: rateLimitedSince + this.settings.maxRateLimitWaitMs;
			const permit = await this.tenant.acquire(budgetEnds);
			if (permit.kind === 'cancelled') {
				if (gate.kind === 'probe') this.breaker.record(false, true);
				return { kind: 'cancelled' };
			}
			if (permit.kind === 'paused') {
				if (gate.kind === 'probe') this.breaker.record(false, true);
				const waitedMs = rateLimitedSince === undefined ? 0 : this.clock.now() - rateLimitedSince;
				return failed({
					kind: 'rate-limited',
					waitedMs,
					retryAfterMs: permit.until - this.clock.now(),
				});
			}
			if (this.credentialFailure || this.signal.aborted) {
				// Decided while this request queued: it is not sent.
				this.tenant.release({ sentAt: permit.sentAt });
				if (gate.kind === 'probe') this.breaker.record(true, true);
				continue;
			}
			if (this.renewal.renewing) {
				// A renewal began while this request queued: sending now would only meet another 401.
				this.tenant.release({ sentAt: permit.sentAt });
				if (gate.kind === 'probe') this.breaker.record(true, true);
				continue;
			}
			if (!this.context.tokenWasStored) await (this.reloaded ??= this.context.reloadCredential());
			const generation = this.renewal.current;
			let answer = await this.context.request(key, 'answer');
			this.tenant.release(report(permit.sentAt, answer, this.clock.now()));

			if (answer.kind === 'response' && TOKEN_REFUSAL_STATUSES.has(answer.status)) {
				const decision = this.renewal.on401(generation);
				if (decision === 'refused') return failed(this.refuseToken(answer));
				if (decision === 'resend') {
					if (gate.kind === 'probe') this.breaker.record(true, true);
					if (tokenResends++ < 3) continue;
					return failed(this.refuseToken(answer));
				}
				answer = await this.renewToken(key);
			}
			if (answer.kind === 'response' && !TOKEN_REFUSAL_STATUSES.has(answer.status))
				this.renewal.accept(generation);
			const transient = isTransient(answer);
			// Only a lookup's first try tells whether the registry is down: at the end of a sheet the
			// requests left are mostly retries of the few rows that keep failing.
			if (!transient || attempt === 1 || gate.kind === 'probe')
				this.breaker.record(!transient, gate.kind === 'probe');
			if (!transient && answer.kind === 'response' && answer.status !== 429) this.budget.refill();

			switch (answer.kind) {
				case 'cancelled':
					return { kind: 'cancelled' };
				case 'credential':
					this.credentialFailure ??= { kind: 'credential', message: answer.message };
					this.breaker.stop();
					return failed(this.credentialFailure);
				case 'token-refused':
					return failed(this.refuseToken(answer));
				case 'oversized':
					return failed(answer);
				case 'no-response': {
					const failure: LookupFailure = {
						kind: 'no-response',
						reason: answer.reason,
						code: answer.code,
						attempts: attempt,
					};
					const delay = this.retryDelay(failure, attempt, undefined, gate);
					if (delay === undefined) return failed(failure);
					if (!(await this.wait(delay))) return { kind: 'cancelled' };
					attempt += probeSpent(gate);
					continue;
				}
				case 'response':
					break;
			}
			const { status, headers, body } = answer;
			if (status === 200) {
				const check = checkCompanyRecord(body);
				return check.valid
					? { kind: 'record', record: check.record }
					: failed({ kind: 'contract', problem: check.problem });
			}
			if (status === 429) {
				rateLimitedSince ??= this.clock.now();
				rateLimited += 1;
				const retryAfterMs = parseRetryAfter(header(headers, 'retry-after'), this.clock.now());
				const delay = rateLimitDelayMs(retryAfterMs, rateLimited, this.context.random);
				const waitedMs = this.clock.now() - rateLimitedSince;
				// Real time counts: the wait, and the time spent queueing and asking.
				if (
					rateLimited >= MAX_RATE_LIMITED_TRIES ||
					waitedMs + delay > this.settings.maxRateLimitWaitMs
				) {
					return failed({ kind: 'rate-limited', waitedMs, retryAfterMs });
				}
				if (!(await this.wait(delay))) return { kind: 'cancelled' };
				continue;
			}
			if (status >= 300 && status < 400) {
				return failed({ kind: 'redirect', status, location: header(headers, 'location') });
			}
			if (TRANSIENT_STATUSES.has(status)) {
				const failure: LookupFailure = {
					kind: 'http',
					status,
					statusMessage: answer.statusMessage,
					body,
					attempts: attempt,
				};
				const delay = this.retryDelay(
					failure,
					attempt,
					status === 503
						? parseRetryAfter(header(headers, 'retry-after'), this.clock.now())
						: undefined,
					gate,
				);
				if (delay === undefined) return failed(failure);
				if (!(await this.wait(delay))) return { kind: 'cancelled' };
				attempt += probeSpent(gate);
				continue;
			}
			if (status === 403)
				return failed({
					kind: 'forbidden',
					body,
					grantedScopes: await this.context.grantedScopes(),
				});
			return failed({
				kind: 'http',
				status,
				statusMessage: answer.statusMessage,
				body,
				attempts: attempt,
			});
		}
	}

	/**
	 * The wait before trying a transiently failed lookup again, or undefined when it is final: out of
	 * attempts, out of the execution's retry budget, or asked (503 Retry-After) to wait past the budget.
	 */
	private retryDelay(
		failure: LookupFailure,
		attempt: number,
		retryAfterMs: number | undefined,
		gate: BreakerGate,
	): number | undefined {
		this.lastTransient = failure;
		// A failed probe is the breaker's, not its row's: with retries on, the row waits for the breaker's verdict.
		const heldByBreaker = gate.kind === 'probe' && this.settings.maxAttempts > 1;
		if (attempt >= this.settings.maxAttempts && !heldByBreaker) return undefined;
		if (retryAfterMs !== undefined && retryAfterMs > this.settings.maxRateLimitWaitMs)
			return undefined;
		if (!this.budget.take(failure.kind === 'no-response' && failure.reason === 'timeout'))
			return undefined;
		return Math.max(retryAfterMs ?? 0, backoffMs(attempt, this.context.random));
	}

	/** Sends again with the 401 left to n8n, which renews the token and repeats the request once. */
	private async renewToken(key: LookupKey): Promise<RegistryAnswer> {
		let answer: RegistryAnswer = { kind: 'cancelled' };
		try {
			const permit = await this.tenant.acquire();
			if (permit.kind !== 'go') return { kind: 'cancelled' };
			answer = await this.context.request(key, 'renew');
			this.tenant.release(report(permit.sentAt, answer, this.clock.now()));
			return answer;
		} finally {
			// Only an answer proves a new token is in use; a renewal that got none changes nothing.
			this.renewal.finish(
				answer.kind === 'token-refused'
					? 'refused'
					: answer.kind === 'response'
						? 'renewed'
						: 'unknown',
			);
		}
	}

	/** The token is refused for good; `refusal` is the answer that said so. */
	private refuseToken(refusal: { status: number; tokenBytes?: number }): LookupFailure {
		this.credentialFailure ??= {
			kind: 'token-refused',
			status: refusal.status,
			renewed: this.renewal.renewed,
			tokenBytes: refusal.tokenBytes,
		};
		// Nobody may be left waiting for a probe's verdict: every lookup now fails with this.
		this.breaker.stop();
		return this.credentialFailure;
	}

	private registryDown(): LookupFailure {
		this.downFailure ??= {
			kind: 'registry-down',
			last: this.lastTransient,
			...this.breaker.tripReport,
		};
		return this.downFailure;
	}
}

const failed = (failure: LookupFailure): LookupOutcome => ({ kind: 'failed', failure });

/** A failed probe asked on behalf of every row held by the breaker: it does not spend its row's attempts. */
const probeSpent = (gate: BreakerGate): number => (gate.kind === 'probe' ? 0 : 1);

function isTransient(answer: RegistryAnswer): boolean {
	return (
		answer.kind === 'no-response' ||
		(answer.kind === 'response' && TRANSIENT_STATUSES.has(answer.status))
	);
}

function report(sentAt: number, answer: RegistryAnswer, now: number) {
	if (answer.kind !== 'response') return { sentAt };
	// The controller acts on the budget left and its refill; a policy's limit and window are not evidence it needs.
	const { remaining, resetMs } = readRateLimitHeaders(answer.headers, sentAt);
	return {
		sentAt,
		status: answer.status,
		// On a 429 too: 0 says the count is the limit that refused; plenty left says it is another quota's.
		remaining,
		retryAfterMs:
			answer.status === 429
				? parseRetryAfter(header(answer.headers, 'retry-after'), now)
				: undefined,
		resetMs,
	};
}

function header(headers: Record<string, unknown>, name: string): string | undefined {
	const value = headers[name];
	return Array.isArray(value) ? String(value[0]) : typeof value === 'string' ? value : undefined;
}
