// npm run bench:sandbox [-- --seconds 5 --connections 32]
// How many lookups per second the sandbox answers on this machine with no latency injected, so that it
// is never the bottleneck of the node's benchmark. undici keep-alive client, one process.
import { parseArgs } from 'node:util';
import { Pool } from 'undici';

import { startSandbox } from '../sandbox/server';

const { values } = parseArgs({
	options: {
		seconds: { type: 'string', default: '5' },
		connections: { type: 'string', default: '32' },
	},
});

async function main() {
	const seconds = Number(values.seconds);
	const connections = Number(values.connections);
	// The rate limit is lifted: this measures the server, not its limiter's answer.
	const sandbox = await startSandbox({ port: 0, rateLimit: { ratePerSecond: 1e9, burst: 1e9 } });
	const pool = new Pool(sandbox.baseUrl, { connections, pipelining: 1 });
	const tokenResponse = await pool.request({
		path: '/oauth/token',
		method: 'POST',
		headers: { 'content-type': 'application/json' },
		body: JSON.stringify({
			client_id: 'demo-client',
			client_secret: 'demo-secret',
			audience: sandbox.audience,
			grant_type: 'client_credentials',
		}),
	});
	const { access_token: token } = (await tokenResponse.body.json()) as { access_token: string };
	const paths = [
		'/v1/company/de/HRB12345',
		'/v1/company/gb/09876543',
		'/v1/company/us/C0806592?stateCode=ca',
		'/v1/company/jp/1010001000001',
		'/v1/company/de/HRB00000',
	];
	const deadline = Date.now() + seconds * 1000;
	let done = 0;
	let failed = 0;
	const worker = async (offset: number) => {
		for (let index = offset; Date.now() < deadline; index++) {
			const response = await pool.request({
				path: paths[index % paths.length],
				method: 'GET',
				headers: { authorization: `Bearer ${token}` },
			});
			await response.body.text();
			if (response.statusCode === 200) done++;
			else failed++;
		}
	};
	const started = Date.now();
	await Promise.all(Array.from({ length: connections }, async (_, index) => await worker(index)));
	const elapsed = (Date.now() - started) / 1000;
	await pool.close();
	await sandbox.close();
	console.log(
		`sandbox: ${done} lookups in ${elapsed.toFixed(2)} s over ${connections} keep-alive connections, ${failed} not 200`,
	);
	console.log(`bench:sandbox lookups_per_second=${Math.round(done / elapsed)}`);
}

void main();
