import {
	NodeConnectionTypes,
	NodeHelpers,
	type INodeType,
	type INodeTypeDescription,
	type INodeTypes,
	type IVersionedNodeType,
} from 'n8n-workflow';

// The explicit extension: beside CompanyRegistry.node.ts stands the codex CompanyRegistry.node.json,
// which tsx's resolver would otherwise pick.
import { CompanyRegistry } from '../nodes/CompanyRegistry/CompanyRegistry.node.ts';
import { CompanyRegistryTrigger } from '../nodes/CompanyRegistryTrigger/CompanyRegistryTrigger.node.ts';
import type { Clock } from '../nodes/shared/transport/wait';
import { LoopOverItems } from './loopOverItems';

/** The package's node type name, as n8n names a community node: `<package>.<node name>`. */
export const PACKAGE = 'n8n-nodes-company-registry';
export const COMPANY_REGISTRY_TYPE = `${PACKAGE}.companyRegistry`;
const COMPANY_REGISTRY_TRIGGER_TYPE = `${PACKAGE}.companyRegistryTrigger`;

/**
 * Stand-in for n8n-nodes-base's Manual Trigger: the workflows' first node. Its rows come from the
 * workflow's pinData, exactly as when a user pins a sheet's output in the editor.
 */
class ManualTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Manual Trigger',
		name: 'manualTrigger',
		group: ['trigger'],
		version: 1,
		description: 'Runs the flow on clicking a button in n8n',
		defaults: { name: 'Manual Trigger' },
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		properties: [],
	};

	async trigger() {
		return {};
	}
}

/** n8n-nodes-base's No Operation node: passes items through, handy as a branch's end. */
class NoOp implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'No Operation, do nothing',
		name: 'noOp',
		group: ['organization'],
		version: 1,
		description: 'No Operation',
		defaults: { name: 'No Operation, do nothing' },
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		properties: [],
	};

	async execute(this: import('n8n-workflow').IExecuteFunctions) {
		return [this.getInputData()];
	}
}

/**
 * n8n-nodes-base nodes that the example workflows use before the rows exist (Set, Split Out). The
 * harness pins the rows on the last of them and starts there, so these are never run: they carry only
 * the description the engine needs to know the node's inputs and outputs.
 */
function pinnedOnly(name: string, displayName: string): INodeType {
	return {
		description: {
			displayName,
			name,
			group: ['transform'],
			version: [1, 3.4],
			description: `${displayName} (pinned in these tests)`,
			defaults: { name: displayName },
			inputs: [NodeConnectionTypes.Main],
			outputs: [NodeConnectionTypes.Main],
			properties: [],
		},
		async execute() {
			throw new Error(`${displayName} is not part of the test harness: pin its output`);
		},
	};
}

export class TestNodeTypes implements INodeTypes {
	private readonly types = new Map<string, INodeType>([
		['n8n-nodes-base.manualTrigger', new ManualTrigger()],
		['n8n-nodes-base.noOp', new NoOp()],
		['n8n-nodes-base.set', pinnedOnly('set', 'Edit Fields (Set)')],
		['n8n-nodes-base.splitOut', pinnedOnly('splitOut', 'Split Out')],
		['n8n-nodes-base.splitInBatches', new LoopOverItems()],
		[COMPANY_REGISTRY_TYPE, new CompanyRegistry()],
		[COMPANY_REGISTRY_TRIGGER_TYPE, new CompanyRegistryTrigger()],
	]);

	/** The trigger runs on this clock from now on (a test moves time on between polls). */
	useClock(clock: Clock): void {
		this.types.set(COMPANY_REGISTRY_TRIGGER_TYPE, new CompanyRegistryTrigger(clock));
	}

	getByName(nodeType: string): INodeType | IVersionedNodeType {
		return this.getByNameAndVersion(nodeType);
	}

	getByNameAndVersion(nodeType: string, version?: number): INodeType {
		const type = this.types.get(nodeType);
		if (!type) throw new Error(`Unknown node type ${nodeType}`);
		return NodeHelpers.getVersionedNodeType(type, version);
	}

	getKnownTypes() {
		return {};
	}
}
