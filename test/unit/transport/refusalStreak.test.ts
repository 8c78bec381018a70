import {
	GIVE_UP_AFTER_MIN_MS,
	nextStreak,
	RefusalStreak,
	type RefusalStreakMode,
	type StreakEvent,
} from '../../../nodes/shared/transport/refusalStreak';
import type { RegistryAnswer } from '../../../nodes/shared/transport/registryRequest';
import { seededRandom } from '../../../bench/sim/random';

// An execution gives its lookups up once the registry has admitted none of them for its Max Rate-Limit
// Wait (at least a minute): the transition on its own, and against a reference over generated answers.

const refused = (status = 429, retryAfterMs?: number): StreakEvent => ({
	kind: 'refused',
	status,
	retryAfterMs,
});
const admitted: StreakEvent = { kind: 'admitted' };
const ok: RegistryAnswer = { kind: 'response', status: 200, headers: {}, body: {} };
const refusal: RegistryAnswer = { kind: 'response', status: 429, headers: {}, body: {} };
const answer = (status: number, headers: Record<string, string> = {}): RegistryAnswer => ({
	kind: 'response',
	status,
	headers,
	body: {},
});

describe('the transition (nextStreak)', () => {
	const admitting: RefusalStreakMode = { kind: 'admitting' };

	it.each([
		[
			'a refusal starts a streak',
			admitting,
			refused(),
			5,
			{ kind: 'refusing', since: 5, status: 429 },
		],
		['an admission ends one', { kind: 'refusing', since: 0, status: 429 }, admitted, 5, admitting],
		[
			'a refusal within the wait keeps its start and tells its own status and Retry-After',
			{ kind: 'refusing', since: 0, status: 429 },
			refused(420, 2_000),
			59_999,
			{ kind: 'refusing', since: 0, status: 420, retryAfterMs: 2_000 },
		],
		[
			'a refusal at the wait gives up',
			{ kind: 'refusing', since: 0, status: 429 },
			refused(),
			60_000,
			{ kind: 'givenUp', since: 0, at: 60_000, status: 429 },
		],
		[
			'given up is final: an admission in flight changes nothing',
			{ kind: 'givenUp', since: 0, at: 60_000, status: 429 },
			admitted,
			61_000,
			{ kind: 'givenUp', since: 0, at: 60_000, status: 429 },
		],
	] as const)('%s', (_name, mode, event, now, expected) => {
		expect(nextStreak(mode, event, now, 60_000)).toEqual(expected);
	});

	it('a first refusal gives up at once only where the wait is 0 (the class keeps a minute)', () => {
		expect(nextStreak(admitting, refused(), 7, 0).kind).toBe('givenUp');
		const streak = new RefusalStreak(0);
		expect(streak.answered(answer(429), 7)).toBe(false);
		expect(streak.answered(answer(429), 7 + GIVE_UP_AFTER_MIN_MS - 1)).toBe(false);
		expect(streak.answered(answer(429), 7 + GIVE_UP_AFTER_MIN_MS)).toBe(true);
	});
});

describe('an execution refused throughout (RefusalStreak)', () => {
	it('gives up on the refusal at its Max Rate-Limit Wait, not on the clock alone, and says so once', () => {
		const streak = new RefusalStreak(90_000);
		expect(streak.mode).toEqual({ kind: 'admitting' });
		expect(streak.answered(answer(429, { 'retry-after': '3' }), 1_000)).toBe(false);
		expect(streak.failure(200_000)).toBeUndefined();
		expect(streak.answered(answer(429), 90_999)).toBe(false);
		expect(streak.answered(answer(403, { 'retry-after': '4' }), 91_000)).toBe(true);
		expect(streak.failure(95_000)).toEqual({
			kind: 'rate-limited',
			waitedMs: 94_000,
			retryAfterMs: 4_000,
			status: 403,
			refusedThroughout: true,
		});
		expect(streak.answered(answer(429), 92_000)).toBe(false);
		expect(streak.answered(answer(200), 93_000)).toBe(false);
		expect(streak.mode.kind).toBe('givenUp');
	});

	it('what says nothing of the limit leaves the streak as it is: no answer, a token refused', () => {
		const streak = new RefusalStreak(60_000);
		streak.answered(answer(429), 0);
		for (const silent of [
			{ kind: 'no-response', reason: 'timeout', code: 'ETIMEDOUT' },
			answer(401),
			answer(413),
			answer(431),
		] as RegistryAnswer[])
			expect(streak.answered(silent, 30_000)).toBe(false);
		expect(streak.mode).toEqual({ kind: 'refusing', since: 0, status: 429 });
		expect(streak.answered(answer(429), 60_000)).toBe(true);
	});

	it('any other answer is an admission: a record, a 404, a 500, a 403 that is no rate limit', () => {
		for (const status of [200, 404, 500, 403]) {
			const streak = new RefusalStreak(60_000);
			streak.answered(answer(429), 0);
			streak.answered(answer(status), 30_000);
			expect(streak.answered(answer(429), 60_000)).toBe(false);
			expect(streak.mode).toEqual({ kind: 'refusing', since: 60_000, status: 429 });
		}
	});

	it('over 500 generated executions: gives up exactly where a reference does, and never after an admission in the last wait', () => {
		const broken: string[] = [];
		for (let seed = 1; seed <= 500; seed++) {
			const random = seededRandom(seed);
			const waitMs = Math.floor(random() * 4) * 45_000;
			const streak = new RefusalStreak(waitMs);
			const giveUpAfterMs = Math.max(waitMs, GIVE_UP_AFTER_MIN_MS);
			let now = 0;
			let lastAdmittedAt = Number.NEGATIVE_INFINITY;
			let firstRefusedAt: number | undefined;
			let givenUp = false;
			for (let step = 0; step < 200; step++) {
				now += Math.floor(random() * 5_000);
				const admits = random() < (seed % 3 === 0 ? 0.02 : 0.3);
				const told = streak.answered(admits ? ok : refusal, now);
				let expected = false;
				if (!givenUp && admits) [lastAdmittedAt, firstRefusedAt] = [now, undefined];
				else if (!givenUp) {
					firstRefusedAt ??= now;
					expected = givenUp = now - firstRefusedAt >= giveUpAfterMs;
				}
				const waited = streak.failure(now)?.waitedMs;
				if (
					told !== expected ||
					(told && (lastAdmittedAt >= now - giveUpAfterMs || waited! < giveUpAfterMs))
				)
					broken.push(`seed ${seed} step ${step}: told ${told}, expected ${expected}`);
			}
			if ((streak.mode.kind === 'givenUp') !== givenUp) broken.push(`seed ${seed}: final mode`);
		}
		expect(broken).toEqual([]);
	});
});
