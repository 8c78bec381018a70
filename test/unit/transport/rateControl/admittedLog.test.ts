import { ADMITTED_SPAN_MAX_MS } from '../../../../nodes/shared/transport/rateControl/constants';
import { logSize } from '../../../../nodes/shared/transport/rateControl/log';
import { admitted, play } from './story';

// The admitted log (state.admitted) is what the controller reads of the registry's recent admissions:
// the last second for the search per round trip, at most ADMITTED_SPAN_MAX_MS (5 s) for the rate a 429
// wave measures, since the last wave for the workers' rules. No reader counts an older entry, so the log
// keeps only those 5 s: a controller lives as long as its n8n process (a watch of 100,000 companies, a
// trigger polling for days), and a log of every answer would grow by one entry each, and be walked whole
// at every answer and wave.

describe('the admitted log over a long run', () => {
	// 3,000 requests 10 ms apart (30 s), each answered 50 ms after it was sent.
	const { state } = play(admitted(0, 3_000));
	const entries = state.admitted.items.slice(state.admitted.from, state.admitted.to);
	const lastAnswer = 10 * 2_999 + 50;

	it('holds the admissions of the last 5 s only, not every answer since the start', () => {
		expect(entries.at(-1)?.at).toBe(lastAnswer);
		expect(entries.every(({ at }) => lastAnswer - at <= ADMITTED_SPAN_MAX_MS)).toBe(true);
		// 5 s of answers 10 ms apart, the one exactly 5 s old included or not (no reader counts it).
		expect(logSize(state.admitted)).toBeLessThanOrEqual(ADMITTED_SPAN_MAX_MS / 10 + 1);
		expect(logSize(state.admitted)).toBeGreaterThanOrEqual(ADMITTED_SPAN_MAX_MS / 10);
	});
});
