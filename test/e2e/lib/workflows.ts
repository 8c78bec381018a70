// The workflows the end-to-end checks build, in n8n's own JSON: one set of node builders for test:n8n's
// checks and test:queue's scenarios, so a node's type, version and parameters are written once.
import { randomUUID } from 'node:crypto';

export const COMPANY_REGISTRY = 'n8n-nodes-company-registry.companyRegistry';
export const COMPANY_REGISTRY_TRIGGER = 'n8n-nodes-company-registry.companyRegistryTrigger';

export interface WorkflowNode {
	name: string;
	type: string;
	parameters: Record<string, unknown>;
	credentials?: Record<string, CredentialRef>;
	[setting: string]: unknown;
}

export interface WorkflowFile {
	name: string;
	active?: boolean;
	nodes: WorkflowNode[];
	connections: Record<string, unknown>;
	settings: Record<string, unknown>;
}

export type CredentialRef = { id: string; name: string };
type Fields = Record<string, string>;

/** A node placed `x` pixels along the canvas; `extra` holds settings such as onError or retryOnFail. */
export function node(
	name: string,
	type: string,
	typeVersion: number,
	parameters: Record<string, unknown>,
	x: number,
	extra: Record<string, unknown> = {},
): WorkflowNode {
	return { id: randomUUID(), name, type, typeVersion, position: [x, 0], parameters, ...extra };
}

/** A production webhook taking POSTs, answering at once (its run continues). */
export const webhook = (path: string) =>
	node(
		'Webhook',
		'n8n-nodes-base.webhook',
		2,
		{ httpMethod: 'POST', path, responseMode: 'onReceived', options: {} },
		0,
		{ webhookId: randomUUID() },
	);

export const manualTrigger = () => node('Start', 'n8n-nodes-base.manualTrigger', 1, {}, 0);

/** A Code node emitting the rows as items: a sheet without a file. */
export const sheet = (rows: object[], x = 220) =>
	node(
		'Sheet',
		'n8n-nodes-base.code',
		2,
		{ jsCode: `return ${JSON.stringify(rows)}.map((json) => ({ json }));` },
		x,
	);

/** Splits a list field (a webhook's `body.rows` by default) into one item a row. */
export const splitRows = (field = 'body.rows', x = 220) =>
	node('Rows', 'n8n-nodes-base.splitOut', 1, { fieldToSplitOut: field, options: {} }, x);

/** Country, company id and state read from the item's fields of those names (after `prefix`). */
export const companyFields = (prefix = ''): Fields => ({
	country: `={{ $json.${prefix}country }}`,
	companyId: `={{ $json.${prefix}companyId }}`,
	state: `={{ $json.${prefix}state }}`,
});

const registryNode = (
	name: string,
	operation: 'lookUp' | 'watch',
	credential: CredentialRef,
	fields: Fields,
	x: number,
	extra: Record<string, unknown>,
) =>
	node(name, COMPANY_REGISTRY, 1, { resource: 'company', operation, ...fields, options: {} }, x, {
		credentials: { companyRegistryApi: credential },
		...extra,
	});

/** Look Up, its errors to the error output unless `extra` says otherwise. */
export const lookUp = (
	credential: CredentialRef,
	x = 440,
	extra: Record<string, unknown> = { onError: 'continueErrorOutput' },
	fields = companyFields(),
) => registryNode('Company Registry', 'lookUp', credential, fields, x, extra);

/** Watch for Changes, its failed checks to the error output. */
export const watch = (credential: CredentialRef, x = 440, fields = companyFields()) =>
	registryNode('Watch for Changes', 'watch', credential, fields, x, {
		onError: 'continueErrorOutput',
	});

export const registryTrigger = (credential: CredentialRef, parameters: Record<string, unknown>) =>
	node('Company Registry Trigger', COMPANY_REGISTRY_TRIGGER, 1, parameters, 0, {
		credentials: { companyRegistryApi: credential },
	});

export const noOp = (name: string, x: number) => node(name, 'n8n-nodes-base.noOp', 1, {}, x);

/** Connections running each named node's first output into the next. */
export const chain = (...names: string[]) =>
	Object.fromEntries(
		names
			.slice(0, -1)
			.map((name, index) => [
				name,
				{ main: [[{ node: names[index + 1], type: 'main', index: 0 }]] },
			]),
	);

export function workflow(
	name: string,
	nodes: WorkflowNode[],
	connections: Record<string, unknown> = chain(...nodes.map((each) => each.name)),
	settings: Record<string, unknown> = {},
): WorkflowFile {
	return { name, nodes, connections, settings: { executionOrder: 'v1', ...settings } };
}
