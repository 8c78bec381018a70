// npm run sandbox -- [--port N] [--latency MS] [--jitter MS] [--rate N] [--burst N] [--daily-quota N]
//   [--family token-bucket|fixed-window|sliding-window] [--limit N] [--window-ms MS]
//   [--headers always|429-only|none] [--retry-after seconds|http-date|none]
// Starts the sandbox registry on 127.0.0.1 and prints what a credential needs to reach it.
import { parseArgs } from 'node:util';

import {
	DEMO_CLIENT,
	AML_ONLY_CLIENT,
	FAULT_IDS,
	startSandbox,
	type LimiterFamily,
	type RateLimitHeaders,
	type RateLimitSettings,
	type RetryAfterFormat,
} from './server';

const { values } = parseArgs({
	options: {
		port: { type: 'string', default: '4010' },
		latency: { type: 'string', default: '0' },
		jitter: { type: 'string', default: '0' },
		rate: { type: 'string' },
		burst: { type: 'string' },
		'daily-quota': { type: 'string' },
		family: { type: 'string', default: 'token-bucket' },
		limit: { type: 'string' },
		'window-ms': { type: 'string' },
		headers: { type: 'string', default: 'always' },
		'retry-after': { type: 'string', default: 'seconds' },
	},
});

const number = (name: string, value: string | undefined) => {
	if (value === undefined) return undefined;
	const parsed = Number(value);
	if (!Number.isFinite(parsed) || parsed < 0)
		throw new Error(`--${name} takes a number, not '${value}'`);
	return parsed;
};

function oneOf<T extends string>(name: string, value: string, allowed: readonly T[]): T {
	if (!(allowed as readonly string[]).includes(value))
		throw new Error(`--${name} takes ${allowed.join(', ')}, not '${value}'`);
	return value as T;
}

async function main() {
	const family = oneOf<LimiterFamily>('family', values.family, [
		'token-bucket',
		'fixed-window',
		'sliding-window',
	]);
	const rateLimit: Partial<RateLimitSettings> = { family };
	if (values.rate !== undefined) rateLimit.ratePerSecond = number('rate', values.rate);
	if (values.burst !== undefined) rateLimit.burst = number('burst', values.burst);
	if (values.limit !== undefined) rateLimit.limit = number('limit', values.limit);
	if (values['window-ms'] !== undefined)
		rateLimit.windowMs = number('window-ms', values['window-ms']);
	if (values['daily-quota'] !== undefined)
		rateLimit.dailyQuota = number('daily-quota', values['daily-quota']);
	const sandbox = await startSandbox({
		port: number('port', values.port),
		faults: {
			latencyMs: number('latency', values.latency),
			jitterMs: number('jitter', values.jitter),
		},
		rateLimit,
		rateLimitHeaders: oneOf<RateLimitHeaders>('headers', values.headers, [
			'always',
			'429-only',
			'none',
		]),
		retryAfterFormat: oneOf<RetryAfterFormat>('retry-after', values['retry-after'], [
			'seconds',
			'http-date',
			'none',
		]),
	});
	const limits =
		family === 'token-bucket'
			? `token bucket, ${rateLimit.ratePerSecond ?? 100}/s, burst ${rateLimit.burst ?? 1000}`
			: `${family}, ${rateLimit.limit ?? rateLimit.ratePerSecond ?? 100} per ${rateLimit.windowMs ?? 1000} ms`;
	console.log(`Company Registry sandbox listening (loopback only)
  Base URL : ${sandbox.baseUrl}
  Auth URL : ${sandbox.authUrl}
  Audience : ${sandbox.audience}
  Limits   : ${limits}${rateLimit.dailyQuota !== undefined ? `, ${rateLimit.dailyQuota} a day` : ''}; headers ${values.headers}, Retry-After ${values['retry-after']}
  Demo client      : ${DEMO_CLIENT.clientId} / ${DEMO_CLIENT.clientSecret}  (scope: ${DEMO_CLIENT.scope})
  AML-only client  : ${AML_ONLY_CLIENT.clientId} / ${AML_ONLY_CLIENT.clientSecret}  (scope: ${AML_ONLY_CLIENT.scope})
  Try: de/HRB12345, gb/09876543, us/C0806592?stateCode=ca, jp/1010001000001, de/HRB00000 (unknown)
  Fault ids (de): ${Object.keys(FAULT_IDS).join(', ')}
Ctrl+C stops it.`);
	const stop = () => {
		void sandbox.close().then(() => process.exit(0));
	};
	process.on('SIGINT', stop);
	process.on('SIGTERM', stop);
}

main().catch((error: unknown) => {
	console.error(error instanceof Error ? error.message : error);
	process.exit(1);
});
