// npm run sandbox -- [--port N] [--latency MS] [--jitter MS] [--rate N] [--burst N]
// Starts the sandbox registry on 127.0.0.1 and prints what a credential needs to reach it.
import { parseArgs } from 'node:util';

import { DEMO_CLIENT, AML_ONLY_CLIENT, FAULT_IDS, startSandbox } from './server';

const { values } = parseArgs({
	options: {
		port: { type: 'string', default: '4010' },
		latency: { type: 'string', default: '0' },
		jitter: { type: 'string', default: '0' },
		rate: { type: 'string' },
		burst: { type: 'string' },
	},
});

const number = (name: string, value: string | undefined) => {
	if (value === undefined) return undefined;
	const parsed = Number(value);
	if (!Number.isFinite(parsed) || parsed < 0) throw new Error(`--${name} takes a number, not '${value}'`);
	return parsed;
};

async function main() {
	const rateLimit = {
		...(values.rate !== undefined ? { ratePerSecond: number('rate', values.rate) } : {}),
		...(values.burst !== undefined ? { burst: number('burst', values.burst) } : {}),
	};
	const sandbox = await startSandbox({
		port: number('port', values.port),
		faults: { latencyMs: number('latency', values.latency), jitterMs: number('jitter', values.jitter) },
		rateLimit,
	});
	console.log(`Company Registry sandbox listening (loopback only)
  Base URL : ${sandbox.baseUrl}
  Auth URL : ${sandbox.authUrl}
  Audience : ${sandbox.audience}
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
