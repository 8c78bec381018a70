// test:n8n, issue 20 item 4: what one lookup costs in a real n8n. Two published workflows, Webhook →
// Code → X → Respond to Webhook, where X is the Company Registry node (sandbox credential) or n8n's HTTP
// Request node doing the same GET with a Header Auth credential holding a Bearer token, against the
// sandbox with 50 ms latency and no rate limit. After a warm-up, 60 sequential calls of each, taken in
// turn (A, B, B, A...) so that the machine's load falls on both alike; the registry alone (a direct GET
// from this process) beside them. The node must not be slower than the HTTP Request node (2 ms slack).
import { startSandbox, DEMO_CLIENT, type Sandbox } from '../../../sandbox/server';
import { waitFor, type Checklist, type RunningN8n } from '../lib/realN8n';
import { Rest } from '../lib/rest';
import type { WorkflowFile } from '../lib/workflows';

const CALLS = 60;
const WARM_UP_CALLS = 5;
const LATENCY_MS = 50;
/** What the node's p50 may exceed the HTTP Request node's by: timer and scheduling noise. */
const SLACK_MS = 2;
/** A pause between calls, for n8n to save the execution before the next call. */
const SETTLE_MS = 100;
const COMPANY = { country: 'gb', companyId: '04417982' };
/** No rate limit: far more than 60 sequential calls could ever use. */
const UNLIMITED = { ratePerSecond: 100_000, burst: 100_000 };

type Node = WorkflowFile['nodes'][number];

/** Webhook → Code (the company to look up) → `step` → Respond to Webhook, answering with `step`'s item. */
function webhookWorkflow(name: string, path: string, webhookId: string, step: Node): WorkflowFile {
	return {
		name,
		nodes: [
			{
				parameters: { httpMethod: 'POST', path, responseMode: 'responseNode', options: {} },
				id: `${path}-1`,
				name: 'Webhook',
				type: 'n8n-nodes-base.webhook',
				typeVersion: 2,
				position: [0, 0],
				webhookId,
			},
			{
				parameters: { jsCode: `return [{ json: ${JSON.stringify(COMPANY)} }];` },
				id: `${path}-2`,
				name: 'Company',
				type: 'n8n-nodes-base.code',
				typeVersion: 2,
				position: [220, 0],
			},
			{ ...step, id: `${path}-3`, position: [440, 0] },
			{
				parameters: { respondWith: 'firstIncomingItem', options: {} },
				id: `${path}-4`,
				name: 'Answer',
				type: 'n8n-nodes-base.respondToWebhook',
				typeVersion: 1.1,
				position: [660, 0],
			},
		],
		connections: {
			Webhook: { main: [[{ node: 'Company', type: 'main', index: 0 }]] },
			Company: { main: [[{ node: step.name, type: 'main', index: 0 }]] },
			[step.name]: { main: [[{ node: 'Answer', type: 'main', index: 0 }]] },
		},
		settings: { executionOrder: 'v1' },
	};
}

async function accessToken(sandbox: Sandbox): Promise<string> {
	const response = await fetch(`${sandbox.authUrl}/oauth/token`, {
		method: 'POST',
		headers: { 'content-type': 'application/json' },
		body: JSON.stringify({
			grant_type: 'client_credentials',
			client_id: DEMO_CLIENT.clientId,
			client_secret: DEMO_CLIENT.clientSecret,
			audience: sandbox.audience,
		}),
	});
	return ((await response.json()) as { access_token: string }).access_token;
}

/** Milliseconds from sending the request to the whole answer read; the answer's body. */
async function timedCall(url: string, init: RequestInit): Promise<{ ms: number; body: string }> {
	const started = performance.now();
	const response = await fetch(url, init);
	const body = await response.text();
	const ms = performance.now() - started;
	if (!response.ok) throw new Error(`${url}: HTTP ${response.status} ${body.slice(0, 300)}`);
	return { ms, body };
}

function percentile(values: number[], share: number): number {
	const sorted = [...values].sort((a, b) => a - b);
	return sorted[Math.min(sorted.length - 1, Math.ceil(share * sorted.length) - 1)];
}

export async function checkLatency(n8n: RunningN8n, checklist: Checklist): Promise<void> {
	const rest = new Rest(n8n);
	const sandbox = await startSandbox({
		port: 0,
		rateLimit: UNLIMITED,
		faults: { latencyMs: LATENCY_MS },
	});
	const workflowIds: string[] = [];
	try {
		const credential = await rest.createSandboxCredential('Company Registry (latency)', sandbox);
		const token = await accessToken(sandbox);
		const headerAuth = await rest.call<{ id: string; name: string }>('POST', '/credentials', {
			name: 'Registry Bearer token (latency)',
			type: 'httpHeaderAuth',
			data: { name: 'Authorization', value: `Bearer ${token}` },
		});
		const lookupUrl = `${sandbox.baseUrl}/v1/company/${COMPANY.country}/${COMPANY.companyId}`;
		const paths = { node: 'latency-node', httpRequest: 'latency-http-request' };
		workflowIds.push(
			await rest.createActiveWorkflow(
				webhookWorkflow(
					'Latency: Company Registry',
					paths.node,
					'b1a0c0de-0000-4000-8000-00000000020a',
					{
						parameters: {
							resource: 'company',
							operation: 'lookUp',
							country: '={{ $json.country }}',
							companyId: '={{ $json.companyId }}',
							options: {},
						},
						name: 'Company Registry',
						type: 'n8n-nodes-company-registry.companyRegistry',
						typeVersion: 1,
						credentials: { companyRegistryApi: { id: credential.id, name: credential.name } },
					},
				),
			),
			await rest.createActiveWorkflow(
				webhookWorkflow(
					'Latency: HTTP Request',
					paths.httpRequest,
					'b1a0c0de-0000-4000-8000-00000000020b',
					{
						parameters: {
							method: 'GET',
							url: `=${sandbox.baseUrl}/v1/company/{{ $json.country }}/{{ $json.companyId }}`,
							authentication: 'genericCredentialType',
							genericAuthType: 'httpHeaderAuth',
							options: {},
						},
						name: 'HTTP Request',
						type: 'n8n-nodes-base.httpRequest',
						typeVersion: 4.2,
						credentials: { httpHeaderAuth: { id: headerAuth.id, name: headerAuth.name } },
					},
				),
			),
		);
		const call = {
			node: async () => await timedCall(`${n8n.base}/webhook/${paths.node}`, { method: 'POST' }),
			httpRequest: async () =>
				await timedCall(`${n8n.base}/webhook/${paths.httpRequest}`, { method: 'POST' }),
			registry: async () =>
				await timedCall(lookupUrl, { headers: { authorization: `Bearer ${token}` } }),
		};
		// A webhook answers 404 until n8n has registered it; the last refusal says why, if it never does.
		let refusal: unknown;
		await waitFor(
			'the latency webhooks',
			async () => {
				try {
					await call.node();
					await call.httpRequest();
					return true;
				} catch (error) {
					refusal = error;
					return false;
				}
			},
			60,
		).catch(async (error: Error) => {
			const errors = await Promise.all(
				workflowIds.map(async (id) => {
					const last = (await rest.finishedExecutions(id)).at(-1);
					const run = last && (await rest.execution(last.id));
					return JSON.stringify(run?.data.resultData.error ?? null).slice(0, 600);
				}),
			);
			throw new Error(
				`${error.message}: ${String(refusal)}; the runs' errors: ${errors.join(' / ')}`,
			);
		});
		const answers = {
			node: (await call.node()).body,
			httpRequest: (await call.httpRequest()).body,
		};
		for (let index = 0; index < WARM_UP_CALLS; index++)
			for (const run of Object.values(call)) await run();

		const ms = { node: [] as number[], httpRequest: [] as number[], registry: [] as number[] };
		// n8n saves an execution after Respond to Webhook has answered: a call right after the other
		// workflow's would share the machine with that save. Each round swaps which goes first, and a
		// pause lets the save finish before the next call.
		const settle = async () => await new Promise((done) => setTimeout(done, SETTLE_MS));
		for (let index = 0; index < CALLS; index++) {
			ms.registry.push((await call.registry()).ms);
			const order =
				index % 2 === 0 ? (['node', 'httpRequest'] as const) : (['httpRequest', 'node'] as const);
			for (const name of order) {
				await settle();
				ms[name].push((await call[name]()).ms);
			}
			await settle();
		}
		const p50 = (values: number[]) => percentile(values, 0.5);
		const p90 = (values: number[]) => percentile(values, 0.9);
		const figure = (value: number) => value.toFixed(1);
		checklist.log(
			`latency: node_p50_ms=${figure(p50(ms.node))} http_request_p50_ms=${figure(p50(ms.httpRequest))} ` +
				`registry_p50_ms=${figure(p50(ms.registry))} (${CALLS} calls each, ${LATENCY_MS} ms registry)`,
		);
		checklist.log(
			`latency: node_p90_ms=${figure(p90(ms.node))} http_request_p90_ms=${figure(p90(ms.httpRequest))} ` +
				`registry_p90_ms=${figure(p90(ms.registry))}`,
		);
		// n8n's own record of each node's time in the same runs: the step alone, without the webhook,
		// the Code node's task runner and the saving of the execution.
		const stepMs = async (workflowId: string, node: string) => {
			const runs = (await rest.finishedExecutions(workflowId)).slice(-CALLS);
			const times = await Promise.all(
				runs.map(async (summary) => {
					const run = await rest.execution(summary.id);
					const task = run.data.resultData.runData[node]?.at(-1) as
						| { executionTime?: number }
						| undefined;
					return task?.executionTime ?? Number.NaN;
				}),
			);
			return times;
		};
		const [nodeSteps, httpRequestSteps] = [
			await stepMs(workflowIds[0], 'Company Registry'),
			await stepMs(workflowIds[1], 'HTTP Request'),
		];
		checklist.log(
			`latency: n8n's executionTime of the step alone: node_p50_ms=${figure(p50(nodeSteps))} ` +
				`http_request_p50_ms=${figure(p50(httpRequestSteps))} node_p90_ms=${figure(p90(nodeSteps))} ` +
				`http_request_p90_ms=${figure(p90(httpRequestSteps))} (last ${CALLS} runs each)`,
		);
		const officialName = (body: string) =>
			(JSON.parse(body) as { officialName?: unknown }).officialName;
		checklist.check(
			officialName(answers.node) === 'Harrowgate Tinware Limited' &&
				officialName(answers.httpRequest) === 'Harrowgate Tinware Limited',
			`both workflows answer with the company's record (${answers.node.slice(0, 120)} / ${answers.httpRequest.slice(0, 120)})`,
		);
		checklist.check(
			sandbox.counters.tokenRequests === 2,
			`the node fetched one token for all its calls, the script one for the Header Auth credential (token requests: ${sandbox.counters.tokenRequests})`,
		);
		checklist.check(
			p50(ms.node) <= p50(ms.httpRequest) + SLACK_MS,
			`the node's p50 is within ${SLACK_MS} ms of the HTTP Request node's (${figure(p50(ms.node))} vs ${figure(p50(ms.httpRequest))} ms)`,
		);
	} finally {
		for (const id of workflowIds) await rest.call('POST', `/workflows/${id}/deactivate`, {});
		await sandbox.close();
	}
}
