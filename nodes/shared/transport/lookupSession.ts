import { checkCompanyRecord } from '../model/companyRecord';
import type { LookupKey } from '../model/lookupKey';
import type { BatchContext, BatchSettings } from './batchContext';
import { RateController, type Tenant } from './rateControl';
import type { LookupFailure } from './registryError';
import { TOKEN_REFUSAL_STATUSES, type RegistryAnswer } from './registryRequest';
import { header, refusesForRateLimit, report, retryAfterOf } from './answerReport';
import { decideRetry, failed, firstTry } from './retryDecision';
import type { LookupOutcome, TokenRefusal, Tries, TryResult } from './retryDecision';
import {
	backoffMs,
	CircuitBreaker,
	isTransient,
	rateLimitDelayMs,
	RetryBudget,
	TRANSIENT_STATUSES,
} from './retryPolicy';
import { RefusalStreak } from './refusalStreak';
import { TokenRenewal } from './tokenRenewal';
import { realClock, Waits, type Clock } from './wait';

const CANCELLED: LookupOutcome = { kind: 'cancelled' };
const final = (outcome: LookupOutcome): TryResult => ({ kind: 'final', outcome });

/**
 * What one execution's lookups share: its place at the rate controller, the token, the limits. A
 * lookup is tries (`attempt`: the breaker, the rate controller, the one HTTP call, the token) and,
 * after each, a pure decision (retryDecision.ts) whether and when to try again.
 */
export class LookupSession {
	private readonly tenant: Tenant;
	private readonly renewal: TokenRenewal;
	private readonly breaker: CircuitBreaker;
	private readonly budget = new RetryBudget();
	/** Gives up every lookup not yet answered where the registry refuses them all from the start. */
	private readonly streak: RefusalStreak;
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
		this.streak = new RefusalStreak(settings.maxRateLimitWaitMs);
		this.tenant = RateController.for(settings.registryKey, this.clock, context.random).join({
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
		let tries = firstTry();
		for (;;) {
			const result = await this.attempt(key, tries);
			const decision = decideRetry(result, tries, this.settings, this.clock.now());
			switch (decision.kind) {
				case 'finish':
					return decision.outcome;
				case 'refuseToken':
					return this.refuseToken(decision.refusal);
				case 'again':
					break;
				case 'wait':
					if (!(await this.wait(decision.ms))) return CANCELLED;
					break;
				case 'backOff': {
					if (!this.budget.take(decision.timeout)) return failed(decision.failure);
					const backoff = backoffMs(decision.backoffAttempt, this.context.random);
					if (!(await this.wait(Math.max(decision.retryAfterMs ?? 0, backoff)))) return CANCELLED;
					break;
				}
			}
			tries = decision.tries;
		}
	}

	/** One try: past the breaker and the rate controller, the request, and the token it needed. */
	private async attempt(key: LookupKey, tries: Tries): Promise<TryResult> {
		const ended = this.credentialFailure ?? this.streak.failure(this.clock.now());
		if (ended) return final(failed(ended));
		if (this.signal.aborted) return final(CANCELLED);
		const gate = await this.breaker.gate(async (ms) => await this.wait(ms));
		if (this.credentialFailure) return final(failed(this.credentialFailure));
		if (gate.kind === 'tripped')
			return final(this.signal.aborted ? CANCELLED : failed(this.registryDown()));
		const probe = gate.kind === 'probe';
		await this.renewal.ready();
		// Only a lookup that met 429 itself spends its wait budget; the others sit out a (short) pause.
		const permit = await this.tenant.acquire(
			tries.rateLimitedSince === undefined
				? Number.POSITIVE_INFINITY
				: tries.rateLimitedSince + this.settings.maxRateLimitWaitMs,
		);
		if (permit.kind === 'cancelled' || permit.kind === 'paused') {
			this.breaker.notSent(probe);
			return permit.kind === 'cancelled'
				? final(CANCELLED)
				: { kind: 'paused', until: permit.until };
		}
		// Decided while this request queued (the credential failed, the execution stopped or gave its lookups
		// up, or a token renewal began, when sending now would only meet another 401): it is not sent.
		const renewing = permit.kind === 'setAside' || this.renewal.renewing;
		if (this.credentialFailure || this.signal.aborted || renewing || this.streak.givenUp) {
			if (permit.kind === 'go') this.tenant.release({ sentAt: permit.sentAt });
			this.breaker.notSent(probe);
			return { kind: 'unsent' };
		}
		if (!this.context.tokenWasStored) await (this.reloaded ??= this.context.reloadCredential());
		const generation = this.renewal.current;
		let answer = await this.context.request(key, 'answer');
		const tokenRefused = answer.kind === 'response' && TOKEN_REFUSAL_STATUSES.has(answer.status);
		const decision = tokenRefused ? this.renewal.on401(generation) : undefined;
		// The lookups queued behind this one would only meet the same 401: they give way to the renewal,
		// holding no permit, so its resend takes the next start instead of waiting behind their turns.
		if (decision === 'renew') this.tenant.setAside();
		this.released(permit.sentAt, answer);

		if (answer.kind === 'response' && decision !== undefined) {
			if (decision === 'refused') return final(this.refuseToken(answer));
			// 'resend': sent with a token another lookup renewed meanwhile; another try sends with the new one.
			let refusal: TokenRefusal | undefined = answer;
			if (decision === 'renew') {
				answer = await this.renewToken(key);
				// The new token alone was refused (the registry accepted this credential's before): another try fetches one.
				refusal = answer.kind === 'token-refused' && !this.renewal.refused ? answer : undefined;
			}
			if (refusal) {
				if (probe) this.breaker.record(true, true);
				return { kind: 'tokenResend', refusal };
			}
		}
		if (answer.kind === 'response' && !TOKEN_REFUSAL_STATUSES.has(answer.status))
			this.renewal.accept(generation);
		const transient = isTransient(answer);
		// Only a lookup's first try tells whether the registry is down: at the end of a sheet the
		// requests left are mostly retries of the few rows that keep failing.
		if (!transient || tries.attempt === 1 || probe) this.breaker.record(!transient, probe);
		if (
			!transient &&
			answer.kind === 'response' &&
			!refusesForRateLimit(answer.status, answer.headers)
		)
			this.budget.refill();
		return await this.readAnswer(answer, tries, probe);
	}

	/** What the answer means for this lookup. */
	private async readAnswer(
		answer: RegistryAnswer,
		tries: Tries,
		probe: boolean,
	): Promise<TryResult> {
		switch (answer.kind) {
			case 'cancelled':
				return final(CANCELLED);
			case 'credential':
				return final(this.credentialFailed({ kind: 'credential', message: answer.message }));
			case 'token-refused':
				return final(this.refuseToken(answer));
			case 'oversized':
			case 'undecodable':
				return final(failed(answer));
			case 'no-response': {
				const { reason, code } = answer;
				const attempts = tries.attempt;
				return this.transient({ kind: 'no-response', reason, code, attempts }, undefined, probe);
			}
			case 'response':
				break;
		}
		const { status, headers, body, statusMessage } = answer;
		if (status === 200) {
			const check = checkCompanyRecord(body);
			return final(
				check.valid
					? { kind: 'record', record: check.record }
					: failed({ kind: 'contract', problem: check.problem, body }),
			);
		}
		const retryAfterMs = () => retryAfterOf(headers, this.clock.now());
		if (refusesForRateLimit(status, headers)) {
			const told = retryAfterMs();
			const delayMs = rateLimitDelayMs(told, tries.rateLimited + 1, this.context.random);
			return { kind: 'rateLimited', status, retryAfterMs: told, delayMs };
		}
		// 304 Not Modified names no other address: it is no redirect, and the Base URL is not to blame.
		if (status >= 300 && status < 400 && status !== 304)
			return final(failed({ kind: 'redirect', status, location: header(headers, 'location') }));
		const failure: LookupFailure = {
			kind: 'http',
			status,
			statusMessage,
			body,
			attempts: tries.attempt,
		};
		if (TRANSIENT_STATUSES.has(status))
			return this.transient(failure, status === 503 ? retryAfterMs() : undefined, probe);
		if (status === 403) {
			const grantedScopes = await this.context.grantedScopes();
			return final(failed({ kind: 'forbidden', body, grantedScopes }));
		}
		return final(failed(failure));
	}

	private transient(
		failure: LookupFailure,
		retryAfterMs: number | undefined,
		probe: boolean,
	): TryResult {
		this.lastTransient = failure;
		return { kind: 'transient', failure, retryAfterMs, probe };
	}
	/** Sends again with the 401 left to n8n, which renews the token and repeats the request once. */
	private async renewToken(key: LookupKey): Promise<RegistryAnswer> {
		let answer: RegistryAnswer = { kind: 'cancelled' };
		try {
			const permit = await this.tenant.acquire();
			if (permit.kind !== 'go') return { kind: 'cancelled' };
			// The credential as saved now: a secret rotated during the run is the one the new token needs.
			await this.context.reloadCredential();
			answer = await this.context.request(key, 'renew');
			this.released(permit.sentAt, answer);
			return answer;
		} finally {
			// Only an answer proves a new token is in use; a renewal that got none changes nothing.
			this.renewal.finish(
				answer.kind === 'token-refused'
					? 'refused'
					: answer.kind === 'response' &&
						  !TRANSIENT_STATUSES.has(answer.status) &&
						  !refusesForRateLimit(answer.status, answer.headers)
						? 'renewed'
						: 'unknown',
			);
		}
	}

	/** An answer tells the rate controller and the streak: given up, the lookups queued leave unsent. */
	private released(sentAt: number, answer: RegistryAnswer): void {
		const now = this.clock.now();
		this.tenant.release(report(sentAt, answer, now));
		if (this.streak.answered(answer, now, this.tenant.registryAdmittedAt)) this.tenant.setAside();
	}

	/** The token is refused for good; `refusal` is the answer that said so. */
	private refuseToken({ status, tokenBytes }: TokenRefusal): LookupOutcome {
		const renewed = this.renewal.renewed;
		return this.credentialFailed({ kind: 'token-refused', status, renewed, tokenBytes });
	}

	/**
	 * Every lookup of the execution now fails with the first such failure, unsent: nobody may be left
	 * waiting for a probe's verdict, nor for a turn at the rate controller only to give it back.
	 */
	private credentialFailed(failure: LookupFailure): LookupOutcome {
		this.credentialFailure ??= failure;
		this.breaker.stop();
		this.tenant.setAside();
		return failed(this.credentialFailure);
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
