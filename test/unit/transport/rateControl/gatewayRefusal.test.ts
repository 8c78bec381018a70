import { GATEWAY_LIMIT_ADMITTED_MS } from '../../../../nodes/shared/transport/rateControl/constants';
import { gatewayRefusalIsLimit } from '../../../../nodes/shared/transport/rateControl/gatewayRefusal';
import { answeredAs, ok, play, refused, send, type Step } from './story';
import { runClass } from './simScenario';

// A gateway's bare 503 (nginx's limit_req by default) as a rate limit while the registry admits
// others, as an outage while it admits nobody: on the pure state, and sheets on the virtual clock.

const bare = (sentAt: number) => ({ sentAt, status: 503, gatewayRefusal: true });

describe('gatewayRefusalIsLimit', () => {
	it('the first wave, sent before the registry answered anything, is a limit: its admissions are still on their way', () => {
		const { state } = play([send(1_000), send(1_000)]);
		expect(gatewayRefusalIsLimit(state, bare(1_000), 1_001)).toBe(true);
		// The wave's second refusal too: it left before the first answer came.
		const after = play([answeredAs(503, 1_000, 1_001)], state).state;
		expect(gatewayRefusalIsLimit(after, bare(1_000), 1_001)).toBe(true);
		// Sent after an answer came, with nothing admitted: an outage's.
		expect(gatewayRefusalIsLimit(after, bare(1_001), 1_002)).toBe(false);
	});

	it('after an admission, for GATEWAY_LIMIT_ADMITTED_MS: a limit; one ms later an outage', () => {
		const steps: Step[] = [send(1_000), ok(1_000, 1_050)];
		const { state } = play(steps);
		expect(gatewayRefusalIsLimit(state, bare(1_100), 1_050 + GATEWAY_LIMIT_ADMITTED_MS)).toBe(true);
		expect(gatewayRefusalIsLimit(state, bare(1_100), 1_051 + GATEWAY_LIMIT_ADMITTED_MS)).toBe(
			false,
		);
	});

	it("a 503, a gateway's 52x or a 429 is no admission: refusals alone are an outage's", () => {
		const { state } = play([
			send(1_000),
			send(1_000),
			send(1_000),
			answeredAs(503, 1_000, 1_050),
			answeredAs(522, 1_000, 1_050),
			refused(1_000, 1_050),
		]);
		expect(gatewayRefusalIsLimit(state, bare(1_100), 1_100)).toBe(false);
	});
});

describe("a sheet against a limit refusing with nginx's bare 503 (virtual clock)", () => {
	it('limit_req 20/s burst 10: every row registered, as fast as against the same limit refusing with a bare 429 (bench:sim --gateway503 g4)', async () => {
		// Before: each 503 an outage's; 190 of 300 rows failed "unavailable (HTTP 503) (tried 3 times)".
		const limit = {
			limiter: { family: 'token-bucket' as const, ratePerSecond: 20, burst: 11 },
			retryAfter: 'none' as const,
			latencyMs: 50,
			jitterMs: 10,
		};
		const as503 = await runClass(
			{ ...limit, gateway: { refusals: true, faults: false } },
			{ rows: 300 },
		);
		const as429 = await runClass(limit, { rows: 300 });
		expect(as503.rowsAnswered).toBe(300);
		expect(as503.otherFailed).toBe(0);
		expect(as503.failedByLimit).toBe(0);
		expect(as503.ms).toBe(as429.ms);
		expect(as503.share429).toBe(as429.share429);
	});

	it("a fixed window of 20 per 5 s (the public service's per-client window): every row registered", async () => {
		const result = await runClass(
			{
				limiter: {
					family: 'fixed-window',
					ratePerSecond: 4,
					burst: 20,
					limit: 20,
					windowMs: 5_000,
				},
				retryAfter: 'none',
				gateway: { refusals: true, faults: false },
			},
			{ rows: 60 },
		);
		expect(result.otherFailed).toBe(0);
		expect(result.failedByLimit).toBe(0);
	});
});

describe('an outage behind such a gateway is still one (virtual clock)', () => {
	it("down from the start: every row fails as the registry down, within the breaker's tolerance and the first wave's pause", async () => {
		const result = await runClass(
			{
				limiter: { family: 'token-bucket', ratePerSecond: 20, burst: 11 },
				retryAfter: 'none',
				gateway: { refusals: true, faults: false },
				outage: { fromMs: 0, toMs: 10 * 60_000 },
			},
			{ rows: 100 },
		);
		expect(result.otherFailed).toBe(100);
		// Today's breaker trips 10 s after the outage began (and its first cool-down); read as a limit
		// for the first wave only, a few seconds more at most.
		expect(result.ms).toBeLessThan(15_000);
	});

	it('down after 4 s of admissions: the rows left fail as the registry down, not after Max Rate-Limit Wait', async () => {
		const result = await runClass(
			{
				limiter: { family: 'token-bucket', ratePerSecond: 20, burst: 11 },
				retryAfter: 'none',
				latencyMs: 50,
				jitterMs: 10,
				gateway: { refusals: true, faults: false },
				outage: { fromMs: 4_000, toMs: 10 * 60_000 },
			},
			{ rows: 300 },
		);
		expect(result.failedByLimit).toBe(0);
		expect(result.otherFailed).toBeGreaterThan(200);
		// GATEWAY_LIMIT_ADMITTED_MS read as a limit's, then the breaker's tolerance: far below 60 s.
		expect(result.ms).toBeLessThan(4_000 + GATEWAY_LIMIT_ADMITTED_MS + 20_000);
	});

	it('down for 3 s between admissions: no row fails', async () => {
		const result = await runClass(
			{
				limiter: { family: 'token-bucket', ratePerSecond: 20, burst: 11 },
				retryAfter: 'none',
				latencyMs: 50,
				jitterMs: 10,
				gateway: { refusals: true, faults: false },
				outage: { fromMs: 4_000, toMs: 7_000 },
			},
			{ rows: 300 },
		);
		expect(result.otherFailed).toBe(0);
		expect(result.failedByLimit).toBe(0);
	});
});
