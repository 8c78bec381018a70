// n8n's REST API as the editor calls it, with the owner's session cookie: workflows created and
// published (activated) so that their runs are production runs, and their executions read back.
import { createRequire } from 'node:module';
import { join } from 'node:path';

import { n8nDir, type ExecutionOutput, type RunningN8n } from './realN8n';
import { sandboxCredentialData } from './sandboxCredential';
import type { WorkflowFile } from './workflows';

export interface ExecutionSummary {
	id: string;
	status: string;
	startedAt: string;
	stoppedAt?: string | null;
}

/** n8n stores and serves run data in `flatted` form: read with the copy n8n itself ships. */
function parseFlatted(text: string): unknown {
	const n8nRequire = createRequire(join(n8nDir, 'node_modules', 'n8n', 'package.json'));
	return (n8nRequire('flatted') as { parse: (text: string) => unknown }).parse(text);
}

export class Rest {
	constructor(private readonly n8n: RunningN8n) {}

	async call<T>(method: string, path: string, body?: unknown): Promise<T> {
		const response = await fetch(`${this.n8n.base}/rest${path}`, {
			method,
			headers: { 'content-type': 'application/json', cookie: this.n8n.cookie },
			body: body === undefined ? undefined : JSON.stringify(body),
		});
		const text = await response.text();
		if (!response.ok)
			throw new Error(`${method} /rest${path}: HTTP ${response.status} ${text.slice(0, 300)}`);
		try {
			return (JSON.parse(text) as { data: T }).data;
		} catch {
			throw new Error(
				`${method} /rest${path}: not JSON (HTTP ${response.status}) ${text.slice(0, 300)}`,
			);
		}
	}

	/** Creates a Company Registry credential for the sandbox's demo client, as the editor's dialog does. */
	async createSandboxCredential(
		name: string,
		sandbox: { baseUrl: string; authUrl: string },
	): Promise<{ id: string; name: string }> {
		return await this.call<{ id: string; name: string }>('POST', '/credentials', {
			name,
			type: 'companyRegistryApi',
			data: sandboxCredentialData(sandbox),
		});
	}

	/** Creates the workflow as the editor's import does, then publishes it; returns its id. */
	async createActiveWorkflow(workflow: WorkflowFile): Promise<string> {
		const { name, nodes, connections, settings } = workflow;
		const created = await this.call<{ id: string; versionId: string }>('POST', '/workflows', {
			name,
			nodes,
			connections,
			settings,
			active: false,
		});
		await this.call('POST', `/workflows/${created.id}/activate`, { versionId: created.versionId });
		return created.id;
	}

	async executions(workflowId: string): Promise<ExecutionSummary[]> {
		const filter = encodeURIComponent(JSON.stringify({ workflowId }));
		const page = await this.call<{ results: ExecutionSummary[] }>(
			'GET',
			`/executions?filter=${filter}&limit=100`,
		);
		return page.results;
	}

	async finishedExecutions(workflowId: string): Promise<ExecutionSummary[]> {
		const all = await this.executions(workflowId);
		return all
			.filter((execution) => !['new', 'running', 'waiting'].includes(execution.status))
			.sort((a, b) => Number(a.id) - Number(b.id));
	}

	/** One execution's run data, as `n8n execute --rawOutput` prints it. */
	async execution(id: string): Promise<ExecutionOutput & { status: string }> {
		const execution = await this.call<{ data: string; status: string }>('GET', `/executions/${id}`);
		return {
			data: parseFlatted(execution.data) as ExecutionOutput['data'],
			status: execution.status,
		};
	}
}
