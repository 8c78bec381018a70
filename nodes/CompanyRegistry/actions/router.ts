import { NodeOperationError, type IExecuteFunctions, type INodeExecutionData } from 'n8n-workflow';

import * as lookUp from './company/lookup.operation';
import * as watch from './company/watch.operation';

/** resource → operation → the module that owns its parameters and its execute. */
const operations: Record<string, Record<string, { execute: (this: IExecuteFunctions) => Promise<INodeExecutionData[][]> }>> = {
	company: { lookUp, watch },
};

export async function router(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const resource = this.getNodeParameter('resource', 0) as string;
	const operation = this.getNodeParameter('operation', 0) as string;
	const module = operations[resource]?.[operation];
	if (!module) {
		throw new NodeOperationError(this.getNode(), `The operation "${operation}" of "${resource}" is not supported`);
	}
	return await module.execute.call(this);
}
