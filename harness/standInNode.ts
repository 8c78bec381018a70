import type { INode } from 'n8n-workflow';

/**
 * A node as a workflow holds it, for tests that call the node's code without a workflow: the fields n8n
 * requires, `overrides` over them. Types only from n8n-workflow: the unit tests that use it load none of it.
 */
export function standInNode(overrides: Partial<INode> = {}): INode {
	return {
		id: 'n',
		name: 'Company Registry',
		type: 'companyRegistry',
		typeVersion: 1,
		position: [0, 0],
		parameters: {},
		...overrides,
	};
}
