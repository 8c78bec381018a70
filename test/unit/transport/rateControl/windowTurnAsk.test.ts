import { modeOf, nextStart } from '../../../../nodes/shared/transport/rateControl/modes';
import { transition } from '../../../../nodes/shared/transport/rateControl/transitions';
import type { RequestReport } from '../../../../nodes/shared/transport/rateControl/types';
import {
	askAnswered,
	askFirstTurn,
	asking,
	noTurn,
} from '../../../../nodes/shared/transport/rateControl/windowTurn';
import { admitted, ok, play, rateOf, refused, send, type Step } from './story';

// Issue 20 item 5 (bare4): a first wave refused within a second of its start, a 429 that tells nothing.
// The first pause ended a second after sending began (rateLimited.ts, `early`): right for a sliding log
// of a second (its requests leave then), but a fixed window turns anywhere before that, and its budget
// went unspent until then (bench/sim/phaseSweep.ts, started 470 ms into a window: the first wave refused
// from 872 ms, the window turned at 1,000, nothing sent before 1,523: 1.110 of the floor). Halfway, one
// request asks alone.
const bare = (sentAt: number, told: Partial<RequestReport> = {}): RequestReport => ({
	sentAt,
	...told,
});

describe('windowTurn: the first pause asked once halfway', () => {
	it('asks halfway between the refused request and the pause end, where nothing was told', () => {
		const turn = noTurn();
		expect(askFirstTurn(turn, bare(1_100), 2_000, 50)).toBe(1_550);
		expect(turn).toMatchObject({ askedUntil: 2_000, askAt: 1_550 });
		expect(asking(turn, 1_999)).toBe(true);
		// Its answer late, everybody goes at the pause's end as before.
		expect(asking(turn, 2_000)).toBe(false);
	});

	it("does not ask where its answer (an admission's round trip) would come at the pause end or later", () => {
		const turn = noTurn();
		expect(askFirstTurn(turn, bare(1_100), 2_000, 450)).toBe(2_000);
		expect(asking(turn, 1_600)).toBe(false);
		expect(askFirstTurn(turn, bare(1_100), 2_000, 449)).toBe(1_550);
	});

	it('does not ask where the registry told something of its limit: the whole pause', () => {
		const turn = { ...noTurn(), told: true };
		expect(askFirstTurn(turn, bare(1_100), 2_000, 50)).toBe(2_000);
		expect(asking(turn, 1_600)).toBe(false);
	});

	it('hears the asking request only: an answer to one sent before it leaves the ask awaited', () => {
		const turn = noTurn();
		askFirstTurn(turn, bare(1_100), 2_000, 50);
		expect(askAnswered(turn, bare(1_549))).toBeUndefined();
		expect(asking(turn, 1_600)).toBe(true);
	});

	it('ends the asking at its answer (sent from askAt), telling the pause end, once', () => {
		const turn = noTurn();
		askFirstTurn(turn, bare(1_100), 2_000, 50);
		expect(askAnswered(turn, bare(1_550))).toBe(2_000);
		expect(asking(turn, 1_600)).toBe(false);
		expect(askAnswered(turn, bare(1_560))).toBeUndefined();
	});

	it('takes a request sent at the pause end or later for no ask (everybody was going again)', () => {
		const turn = noTurn();
		askFirstTurn(turn, bare(1_100), 2_000, 50);
		expect(askAnswered(turn, bare(1_999))).toBe(2_000);
		const late = noTurn();
		askFirstTurn(late, bare(1_100), 2_000, 50);
		expect(askAnswered(late, bare(2_000))).toBeUndefined();
		expect(asking(late, 2_000)).toBe(false);
	});
});

// The transition: ten admitted from 1,000 (one every 10 ms, 50 ms each), then a bare 429 to the request
// sent at 1,100: refused within the first pause of the first request (since 1,000), which ended at 2,000.
describe('a first wave refused early by a registry that says nothing', () => {
	const firstWave: Step[] = [...admitted(1_000, 10), send(1_100), refused(1_100, 1_102)].sort(
		(a, b) => a.at - b.at,
	);

	it('pauses until halfway (1,550), then lets one request go alone', () => {
		const { state } = play(firstWave);
		expect(modeOf(state, 1_200)).toMatchObject({ kind: 'paused', until: 1_550 });
		expect(nextStart(state, 1_550).at).toBe(0);
		const out = play([...firstWave, send(1_550)]).state;
		expect(nextStart(out, 1_590).at).toBeUndefined();
	});

	it('admitted: everybody goes on at the pace from then, not from 2,000', () => {
		const { state } = play([...firstWave, send(1_550), ok(1_550, 1_600)]);
		expect(modeOf(state, 1_600).kind).toBe('paced');
		expect(nextStart(state, 1_600).at).toBe(1_600 + 1_000 / rateOf(state));
	});

	it('refused: the pause ends at 2,000 as before, no wave (the pace stays, nothing at once after it)', () => {
		const before = play([...firstWave, send(1_550)]);
		const { state, actions } = play([...firstWave, send(1_550), refused(1_550, 1_552)]);
		expect(modeOf(state, 1_552)).toMatchObject({ kind: 'paused', until: 2_000 });
		expect(actions.filter(({ kind }) => kind === 'congestion')).toHaveLength(1);
		expect(actions.at(-1)).toEqual({ kind: 'pause', until: 2_000, why: 'firstLimit' });
		expect(rateOf(state)).toBe(rateOf(before.state));
		expect(nextStart(state, 2_000).at).toBe(2_000 + 1_000 / rateOf(state));
	});

	it('asks nothing where the 429 told a Retry-After: the whole pause', () => {
		const told: Step[] = [
			...admitted(1_000, 10),
			send(1_100),
			refused(1_100, 1_102, { retryAfterMs: 1_000 }),
		].sort((a, b) => a.at - b.at);
		expect(modeOf(play(told).state, 1_200)).toMatchObject({ kind: 'paused', until: 2_000 });
	});
});

// The ask's round trip is an admission's, the first the state remembers (firstAsk.ts firstPauseEnd).
describe('a first wave refused before anything was admitted', () => {
	// Twenty sent together at 1,000; the first answer a 429 at 1,002.
	const sent: Step[] = Array.from({ length: 20 }, () => send(1_000));

	it('asks nothing: no round trip is known, the whole pause', () => {
		const { state } = play([...sent, refused(1_000, 1_002)]);
		expect(modeOf(state, 1_200)).toMatchObject({ kind: 'paused', until: 2_000 });
	});

	it("asks nothing either where another future of the same state heard an admission: that is not this one's", () => {
		// The transition is pure: two futures of one state, one admitted at 1,050, one refused at 1,002.
		// They share the admissions log's array (log.ts): the admission lies where the other's empty log
		// begins, and read as its oldest it would be a round trip of 50 ms, asked halfway (1,500).
		const before = play(sent).state;
		const admittedFuture = transition(before, ok(1_000, 1_050).event, 1_050).state;
		expect(admittedFuture.admitted.to - admittedFuture.admitted.from).toBe(1);
		const { state } = play([refused(1_000, 1_002)], before);
		expect(modeOf(state, 1_200)).toMatchObject({ kind: 'paused', until: 2_000 });
	});
});
