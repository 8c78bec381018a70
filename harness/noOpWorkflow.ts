import { Workflow, type INode, type INodeTypes } from 'n8n-workflow';

import { standInNode } from './standInNode';

/**
 * A workflow of one No Op node: the context n8n evaluates a credential's expressions in (the Test's
 * request) or builds a request helper from (preAuthentication).
 */
export function noOpWorkflow(nodeTypes: INodeTypes): { node: INode; workflow: Workflow } {
	const node = standInNode({ id: 'no-op', name: 'No Op', type: 'n8n-nodes-base.noOp' });
	return {
		node,
		workflow: new Workflow({ nodes: [node], connections: {}, active: false, nodeTypes }),
	};
}
