import type { IDataObject, INodeExecutionData, INodeParameters } from 'n8n-workflow';

import { DEMO_CLIENT, type Sandbox } from '../sandbox/server';
import { Engine, loadWorkflow, type EngineResult, type WorkflowFile } from './engine';

export const CREDENTIAL_ID = 'company-registry-sandbox';
export const REGISTRY_NODE = 'Company Registry';
export const TRIGGER_NODE = 'Company Registry Trigger';

// In a module of its own: the credential's exchange tests need it without loading the engine.
export { noOpWorkflow } from './noOpWorkflow';

/** An n8n instance whose one Company Registry credential points at the sandbox (or one in another process). */
export function engineFor(
	sandbox: Pick<Sandbox, 'baseUrl' | 'authUrl'>,
	credential: IDataObject = {},
): Engine {
	const engine = new Engine();
	engine.saveCredential(CREDENTIAL_ID, {
		clientId: DEMO_CLIENT.clientId,
		clientSecret: DEMO_CLIENT.clientSecret,
		baseUrl: sandbox.baseUrl,
		authUrl: sandbox.authUrl,
		...credential,
	});
	return engine;
}

interface LookupWorkflowChanges {
	/** The node's Options collection. */
	options?: IDataObject;
	/** Node parameters to replace (country, companyId, state ...). */
	parameters?: IDataObject;
	/** The node's On Error setting. */
	onError?: 'stopWorkflow' | 'continueRegularOutput' | 'continueErrorOutput';
	/** The node's Retry On Fail setting: Max Tries and Wait Between Tries (ms), as its Settings tab sets them. */
	retryOnFail?: { maxTries: number; waitBetweenTries: number };
}

/** test/workflows/lookup-from-sheet.json with the Company Registry node's settings changed. */
export function lookupWorkflow(changes: LookupWorkflowChanges = {}): WorkflowFile {
	const workflow = loadWorkflow('test/workflows/lookup-from-sheet.json');
	const node = workflow.nodes.find((candidate) => candidate.name === REGISTRY_NODE)!;
	node.parameters = {
		...node.parameters,
		...changes.parameters,
		options: { ...changes.options },
	} as INodeParameters;
	if (changes.onError) node.onError = changes.onError;
	if (changes.retryOnFail) Object.assign(node, { retryOnFail: true, ...changes.retryOnFail });
	return workflow;
}

/**
 * test/workflows/trigger-watchlist.json with the trigger's watchlist (where given; else the file's) and its
 * Options collection replaced.
 */
export function triggerWorkflow(
	companies?: IDataObject[],
	options: IDataObject = {},
): WorkflowFile {
	const workflow = loadWorkflow('test/workflows/trigger-watchlist.json');
	const node = workflow.nodes.find((candidate) => candidate.name === TRIGGER_NODE)!;
	if (companies)
		node.parameters = { ...node.parameters, companies: { company: companies } } as INodeParameters;
	node.parameters = { ...node.parameters, options } as INodeParameters;
	return workflow;
}

export interface Branches {
	registered: INodeExecutionData[];
	notRegistered: INodeExecutionData[];
	/** The error output, when On Error is "continue (using error output)". */
	errors: INodeExecutionData[];
}

export function branchesOf(result: EngineResult): Branches {
	const [registered = [], notRegistered = [], errors = []] = result.outputOf(REGISTRY_NODE);
	return { registered, notRegistered, errors };
}

/** Every input row must come out exactly once, on exactly one output, paired with itself. */
export function expectEachRowOnce(branches: Branches, rows: number): void {
	const paired = [...branches.registered, ...branches.notRegistered, ...branches.errors].map(
		(item) => {
			const pairedItem = item.pairedItem as { item: number };
			return pairedItem.item;
		},
	);
	expect(paired.sort((a, b) => a - b)).toEqual(Array.from({ length: rows }, (_, index) => index));
}

export async function runRows(
	engine: Engine,
	rows: IDataObject[],
	changes: LookupWorkflowChanges = {},
) {
	const result = await engine.execute(lookupWorkflow(changes), { rows });
	return { result, ...branchesOf(result) };
}
