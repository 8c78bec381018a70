import {
	NodeApiError,
	NodeOperationError,
	type IExecuteFunctions,
	type INodeExecutionData,
} from 'n8n-workflow';

import { errorItem, failAll } from '../../shared/lookupPipeline';
import * as lookUp from './company/lookup.operation';
import * as watch from './company/watch.operation';

interface Operation {
	execute: (this: IExecuteFunctions) => Promise<INodeExecutionData[][]>;
	/** The outputs when every row failed: error items where the operation puts failed rows. */
	failedRowsOutput: (
		this: IExecuteFunctions,
		items: INodeExecutionData[],
	) => INodeExecutionData[][];
}

/** resource → operation → the module that owns its parameters and its execute. */
const operations: Record<string, Record<string, Operation>> = {
	company: { lookUp, watch },
};

/**
 * Runs the operation. Whatever goes wrong inside it, no row can leave unchanged by a success output:
 * under "continue" (and as an agent's tool) an unexpected exception fails every row with its own error
 * item; under Stop it is one error (a NodeApiError or NodeOperationError is thrown as is, keeping its
 * item index).
 */
export async function router(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const resource = this.getNodeParameter('resource', 0) as string;
	const operation = this.getNodeParameter('operation', 0) as string;
	const module = operations[resource]?.[operation];
	if (!module) {
		throw new NodeOperationError(
			this.getNode(),
			`The operation "${operation}" of "${resource}" is not supported`,
		);
	}
	try {
		return await module.execute.call(this);
	} catch (error) {
		if (!this.continueOnFail() && !lookUp.runsAsTool.call(this)) {
			throw error instanceof NodeApiError || error instanceof NodeOperationError
				? error
				: new NodeOperationError(this.getNode(), error as Error);
		}
		return module.failedRowsOutput.call(this, failAll(this, error).map(errorItem));
	}
}
