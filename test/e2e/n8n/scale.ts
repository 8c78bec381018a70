// test:n8n, issue "Fill any registry's rate limit": a 2,000-row sheet in a real n8n against the sandbox
// limited to 100 requests/s with bursts of 100 (50 ms latency with jitter), once with X-RateLimit-* on
// every answer (family 1) and once with rate-limit headers only on 429s (family 2). Prints the node's
// own execution time beside the floor; both must stay within 1.10x.
import { DEMO_CLIENT, startSandbox, type RateLimitHeaders } from '../../../sandbox/server';
import { makeSheet, uniqueValid } from '../../../sandbox/sheets';
import { executeWorkflow, importCredential, importWorkflow, type Checklist } from '../lib/realN8n';
import { lookUp, manualTrigger, sheet, workflow, type WorkflowFile } from '../lib/workflows';

const ROWS = 2000;
const LIMIT = { ratePerSecond: 100, burst: 100 };
const LATENCY_MS = 50;
/** Issue 10's target. */
const MAX_VS_FLOOR = 1.1;

/** Manual Trigger → a Code node that emits the sheet → Company Registry (errors to the error output). */
function sheetWorkflow(credentialId: string): WorkflowFile {
	return workflow(`Scale: ${ROWS} rows (${credentialId})`, [
		manualTrigger(),
		sheet(makeSheet(ROWS)),
		lookUp({ id: credentialId, name: credentialId }),
	]);
}

/**
 * The floor: the unique lookups admitted exactly as the bucket allows (the burst at once, then one
 * every 1/rate s), the last answered one latency later. No client can be faster.
 */
function floorSeconds(): number {
	const unique = uniqueValid(makeSheet(ROWS)).length;
	return Math.max(0, unique - LIMIT.burst) / LIMIT.ratePerSecond + LATENCY_MS / 1000;
}

export async function checkScale(userFolder: string, checklist: Checklist): Promise<void> {
	const floor = floorSeconds();
	for (const headers of ['always', '429-only'] as RateLimitHeaders[]) {
		const sandbox = await startSandbox({
			port: 0,
			rateLimit: LIMIT,
			rateLimitHeaders: headers,
			faults: { latencyMs: LATENCY_MS - 5, jitterMs: 10 },
		});
		try {
			const credentialId = `scale-${headers}`;
			await importCredential(userFolder, {
				id: credentialId,
				name: credentialId,
				type: 'companyRegistryApi',
				data: {
					clientId: DEMO_CLIENT.clientId,
					clientSecret: DEMO_CLIENT.clientSecret,
					baseUrl: sandbox.baseUrl,
					authUrl: sandbox.authUrl,
				},
			});
			const workflowId = `scale${headers === 'always' ? 'Headers' : 'Only429'}`.padEnd(16, '0');
			await importWorkflow(userFolder, sheetWorkflow(credentialId), workflowId);
			const wallStarted = performance.now();
			const run = await executeWorkflow(userFolder, workflowId);
			const wall = (performance.now() - wallStarted) / 1000;
			const task = run.data.resultData.runData['Company Registry']?.at(-1) as
				| { executionTime?: number; data?: { main: Array<Array<unknown> | null> } }
				| undefined;
			const seconds = (task?.executionTime ?? Number.NaN) / 1000;
			const [registered = [], notRegistered = [], errors = []] = (task?.data?.main ?? []).map(
				(items) => items ?? [],
			);
			const family =
				headers === 'always'
					? 'family 1 (X-RateLimit-* on every answer)'
					: 'family 2 (headers only on 429s)';
			const ratio = seconds / floor;
			checklist.log(
				`scale: ${family}: node ${seconds.toFixed(2)} s, floor ${floor.toFixed(2)} s, node_vs_floor=${ratio.toFixed(3)}; ` +
					`n8n execute wall ${wall.toFixed(1)} s (process start and exit included); 429s ${sandbox.counters.lookupsByStatus[429] ?? 0}; token requests ${sandbox.counters.tokenRequests}`,
			);
			checklist.check(
				registered.length + notRegistered.length + errors.length === ROWS,
				`${family}: every one of ${ROWS} rows came out once`,
			);
			checklist.check(
				errors.length === ROWS / 50,
				`${family}: only the ${ROWS / 50} invalid rows failed (got ${errors.length})`,
			);
			checklist.check(
				sandbox.counters.tokenRequests === 1,
				`${family}: one token request (got ${sandbox.counters.tokenRequests})`,
			);
			checklist.check(
				ratio <= MAX_VS_FLOOR,
				`${family}: within ${MAX_VS_FLOOR}x the floor (${ratio.toFixed(3)})`,
			);
		} finally {
			await sandbox.close();
		}
	}
}
