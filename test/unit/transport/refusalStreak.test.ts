import {
	GIVE_UP_AFTER_MIN_MS,
	nextStreak,
	RefusalStreak,
	type RefusalStreakMode,
	type StreakEvent,
} from '../../../nodes/shared/transport/refusalStreak';
import type { RegistryAnswer } from '../../../nodes/shared/transport/registryRequest';
import { seededRandom } from '../../../bench/sim/random';

// An execution gives its lookups up once the registry has refused them from the first answer for its
// Max Rate-Limit Wait (at least a minute), letting none through, nor another execution's here meanwhile:
// the transition on its own, and against a reference over generated answers.

const NEVER = Number.NEGATIVE_INFINITY;
/** A refusal; nothing let through in this process unless `admittedHereAt` says when. */
const refused = (status = 429, retryAfterMs?: number, admittedHereAt = NEVER): StreakEvent => ({
	kind: 'refused',
	status,
	retryAfterMs,
	admittedHereAt,
});
const admitted: StreakEvent = { kind: 'admitted' };
const answer = (status: number, headers: Record<string, string> = {}): RegistryAnswer => ({
	kind: 'response',
	status,
	headers,
	body: {},
});
const ok = answer(200);
const refusal = answer(429);

describe('the transition (nextStreak)', () => {
	const waiting: RefusalStreakMode = { kind: 'waiting' };
	const admittedMode: RefusalStreakMode = { kind: 'admitted' };
	const refusing: RefusalStreakMode = { kind: 'refusing', since: 1_000, status: 429 };
	const givenUp: RefusalStreakMode = { kind: 'givenUp', since: 1_000, status: 429 };

	it.each<[string, RefusalStreakMode, StreakEvent, number, RefusalStreakMode]>([
		['a first refusal starts a streak', waiting, refused(), 5, { ...refusing, since: 5 }],
		['a first admission: nothing is ever given up', waiting, admitted, 5, admittedMode],
		['an admission ends a streak for good', refusing, admitted, 5_000, admittedMode],
		[
			'a refusal within the wait keeps its start and tells its own status and Retry-After',
			refusing,
			refused(420, 2_000),
			60_999,
			{ ...refusing, status: 420, retryAfterMs: 2_000 },
		],
		['a refusal at the wait gives up', refusing, refused(429, undefined, 999), 61_000, givenUp],
		[
			"another execution's request let through here during the streak: the limit admits",
			refusing,
			refused(429, undefined, 1_000),
			61_000,
			admittedMode,
		],
		[
			'let through once, minutes of refusals are turns of a shared limit lost',
			admittedMode,
			refused(),
			600_000,
			admittedMode,
		],
		[
			'given up is final: an admission in flight changes nothing',
			givenUp,
			admitted,
			62_000,
			givenUp,
		],
	])('%s', (_name, mode, event, now, expected) => {
		expect(nextStreak(mode, event, now, 60_000)).toEqual(expected);
	});

	it('a first refusal gives up at once only where the wait is 0 (the class keeps a minute)', () => {
		expect(nextStreak(waiting, refused(), 7, 0).kind).toBe('givenUp');
		const streak = new RefusalStreak(0);
		expect(streak.answered(refusal, 7, NEVER)).toBe(false);
		expect(streak.answered(refusal, 7 + GIVE_UP_AFTER_MIN_MS - 1, NEVER)).toBe(false);
		expect(streak.answered(refusal, 7 + GIVE_UP_AFTER_MIN_MS, NEVER)).toBe(true);
	});
});

describe('an execution refused throughout (RefusalStreak)', () => {
	it('gives up on the refusal at its Max Rate-Limit Wait, not on the clock alone, and says so once', () => {
		const streak = new RefusalStreak(90_000);
		expect(streak.mode).toEqual({ kind: 'waiting' });
		expect(streak.answered(answer(429, { 'retry-after': '3' }), 1_000, NEVER)).toBe(false);
		expect(streak.failure(200_000)).toBeUndefined();
		expect(streak.answered(refusal, 90_999, 500)).toBe(false);
		expect(streak.givenUp).toBe(false);
		expect(streak.answered(answer(403, { 'retry-after': '4' }), 91_000, 500)).toBe(true);
		expect(streak.givenUp).toBe(true);
		expect(streak.failure(95_000)).toEqual({
			kind: 'rate-limited',
			waitedMs: 94_000,
			retryAfterMs: 4_000,
			status: 403,
			refusedThroughout: true,
		});
		expect(streak.answered(refusal, 92_000, NEVER)).toBe(false);
		expect(streak.answered(ok, 93_000, NEVER)).toBe(false);
		expect(streak.mode.kind).toBe('givenUp');
	});

	it('what says nothing of the limit leaves the streak as it is: no answer, a token refused', () => {
		const streak = new RefusalStreak(60_000);
		streak.answered(refusal, 0, NEVER);
		for (const silent of [
			{ kind: 'no-response', reason: 'timeout', code: 'ETIMEDOUT' },
			{ kind: 'cancelled' },
			{ kind: 'credential', message: 'no' },
			{ kind: 'token-refused', status: 401, tokenBytes: 900 },
			answer(401),
			answer(413),
			answer(431),
		] as RegistryAnswer[])
			expect(streak.answered(silent, 30_000, NEVER)).toBe(false);
		expect(streak.mode).toEqual({ kind: 'refusing', since: 0, status: 429 });
		expect(streak.answered(refusal, 60_000, NEVER)).toBe(true);
	});

	it.each<[string, RegistryAnswer]>([
		['a record', ok],
		['a 404', answer(404)],
		['a 500', answer(500)],
		['a 403 that is no rate limit', answer(403)],
		['an answer too large to read', { kind: 'oversized', limitBytes: 65_536 } as RegistryAnswer],
		['an answer not decodable', { kind: 'undecodable', status: 200, code: 'Z_DATA_ERROR' }],
	])('%s lets the execution through: nothing is given up after it', (_name, through) => {
		const streak = new RefusalStreak(60_000);
		streak.answered(refusal, 0, NEVER);
		expect(streak.answered(through, 30_000, NEVER)).toBe(false);
		expect(streak.answered(refusal, 600_000, NEVER)).toBe(false);
		expect(streak.mode).toEqual({ kind: 'admitted' });
	});

	it('over 500 generated executions: gives up exactly where a reference does, never once let through', () => {
		const broken: string[] = [];
		for (let seed = 1; seed <= 500; seed++) {
			const random = seededRandom(seed);
			const waitMs = Math.floor(random() * 4) * 45_000;
			const streak = new RefusalStreak(waitMs);
			const giveUpAfterMs = Math.max(waitMs, GIVE_UP_AFTER_MIN_MS);
			// Executions let through rarely, sometimes never; others here let through now and then.
			const admitShare = seed % 2 === 0 ? 0 : 0.01;
			const othersShare = seed % 3 === 0 ? 0.005 : 0;
			let now = 0;
			let admittedHereAt = NEVER;
			let firstRefusedAt: number | undefined;
			let reference: 'waiting' | 'admitted' | 'givenUp' = 'waiting';
			for (let step = 0; step < 200; step++) {
				now += Math.floor(random() * 5_000);
				if (random() < othersShare) admittedHereAt = now;
				const admits = random() < admitShare;
				const told = streak.answered(admits ? ok : refusal, now, admittedHereAt);
				let expected = false;
				if (reference === 'waiting') {
					firstRefusedAt ??= admits ? undefined : now;
					if (admits || admittedHereAt >= firstRefusedAt!) reference = 'admitted';
					else if (now - firstRefusedAt! >= giveUpAfterMs)
						[reference, expected] = ['givenUp', true];
				}
				const waited = streak.failure(now)?.waitedMs;
				if (told !== expected || (told && waited! < giveUpAfterMs))
					broken.push(`seed ${seed} step ${step}: told ${told}, expected ${expected}`);
			}
			const mode = streak.mode.kind === 'refusing' ? 'waiting' : streak.mode.kind;
			if (mode !== reference)
				broken.push(`seed ${seed}: ${streak.mode.kind}, expected ${reference}`);
		}
		expect(broken).toEqual([]);
	});
});
