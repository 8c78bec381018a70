import type { RateLimitSettings } from '../../sandbox/limiters';
import type { Scenario } from './catalogue';
import type { RegistrySpec } from './registry';

/**
 * bench:sim --gateway503: registries behind a gateway whose limit refuses with a bare 503, a set apart
 * from the seeded catalogue (whose draws everybody compares against). nginx's limit_req refuses so by
 * default (limit_req_status 503: no Retry-After, no rate-limit header, its own short page); its
 * `rate=R burst=B nodelay` is a bucket of R a second holding B + 1. Also a fixed window and a sliding
 * log refusing so, two workers sharing one, a partial outage behind such a gateway (its faults' 503s
 * the same page), a 429 limit whose gateway's faults are that page, and outages: the registry down for
 * the whole run or for 3 s of it (their rows' outcomes and time: no limit's floor applies).
 */

const SECONDS_OF_WORK = 15;

const bucket = (rate: number, burst: number): RateLimitSettings => ({
	family: 'token-bucket',
	ratePerSecond: rate,
	burst,
});
const windowOf = (
	family: 'fixed-window' | 'sliding-window',
	limit: number,
	windowS: number,
): RateLimitSettings => ({
	family,
	ratePerSecond: limit / windowS,
	burst: limit,
	limit,
	windowMs: windowS * 1000,
});

interface Gateway503 {
	name: string;
	limiter: RateLimitSettings;
	processes?: number;
	/** The limit refuses with the gateway's bare 503 (else a bare 429). */
	refusals?: boolean;
	faultShare?: number;
	faults?: boolean;
	outage?: RegistrySpec['outage'];
	rows?: number;
}

const GATEWAYS: readonly Gateway503[] = [
	{ name: 'g1-limit-req-10-burst-0', limiter: bucket(10, 1) },
	{ name: 'g2-limit-req-10-burst-5', limiter: bucket(10, 6) },
	{ name: 'g3-limit-req-5-burst-0', limiter: bucket(5, 1) },
	{ name: 'g4-limit-req-20-burst-10', limiter: bucket(20, 11) },
	{ name: 'g5-limit-req-50-burst-20', limiter: bucket(50, 21) },
	{ name: 'g6-limit-req-100-burst-100', limiter: bucket(100, 101) },
	{ name: 'g7-fixed-window-100-per-1s', limiter: windowOf('fixed-window', 100, 1) },
	{ name: 'g8-fixed-window-20-per-5s', limiter: windowOf('fixed-window', 20, 5) },
	{ name: 'g9-sliding-log-50-per-1s', limiter: windowOf('sliding-window', 50, 1) },
	{ name: 'g10-sliding-log-20-per-5s', limiter: windowOf('sliding-window', 20, 5) },
	{ name: 'g11-two-workers-limit-req-20-burst-10', limiter: bucket(20, 11), processes: 2 },
	{
		name: 'g12-limit-req-20-burst-10-faults-3pc',
		limiter: bucket(20, 11),
		faultShare: 0.03,
		faults: true,
	},
	{
		name: 'g13-bare-429-bucket-20-faults-bare-503-3pc',
		limiter: bucket(20, 11),
		refusals: false,
		faultShare: 0.03,
		faults: true,
	},
	{
		name: 'g14-down-whole-run',
		limiter: bucket(20, 11),
		outage: { fromMs: 0, toMs: 10 * 60_000 },
		rows: 100,
	},
	{
		name: 'g15-limit-req-20-burst-10-down-3s',
		limiter: bucket(20, 11),
		outage: { fromMs: 4_000, toMs: 7_000 },
	},
	{
		name: 'g16-limit-req-20-burst-10-down-after-4s',
		limiter: bucket(20, 11),
		outage: { fromMs: 4_000, toMs: 10 * 60_000 },
	},
];

export function gateway503Scenarios(): Scenario[] {
	return GATEWAYS.map((gateway) => {
		const perSecond =
			gateway.limiter.family === 'token-bucket'
				? gateway.limiter.ratePerSecond
				: gateway.limiter.limit! / (gateway.limiter.windowMs! / 1000);
		const processes = gateway.processes ?? 1;
		return {
			name: gateway.name,
			registry: {
				limiter: gateway.limiter,
				headers: 'none',
				headersOn: 'always',
				resetAs: 'seconds',
				retryAfter: 'none',
				nonsense: 'none',
				latencyMs: 50,
				jitterMs: 10,
				faultShare: gateway.faultShare ?? 0,
				gateway: { refusals: gateway.refusals ?? true, faults: gateway.faults ?? false },
				outage: gateway.outage,
			},
			processes,
			executions: 1,
			rows: gateway.rows ?? Math.round((perSecond * SECONDS_OF_WORK) / processes),
			noToken: false,
			spentQuota: false,
		};
	});
}
