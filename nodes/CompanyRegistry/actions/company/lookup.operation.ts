import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';

import { companyFields, requestOptions, sortedOptions } from '../../../shared/descriptions';
import {
	errorItem,
	inputRows,
	lookUpRows,
	sharedOptions,
	type CompanyRow,
	type RequestOptionValues,
} from '../../../shared/lookupPipeline';

export const description: INodeProperties[] = [
	...companyFields('lookUp'),
	{
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add option',
		default: {},
		displayOptions: { show: { resource: ['company'], operation: ['lookUp'] } },
		options: sortedOptions(...Object.values(requestOptions)),
	},
];

/**
 * Whether n8n runs the node as an AI agent's tool. The MCP Server Trigger (and any caller of n8n-core's
 * createNodeAsTool) runs it in a supply-data context that says so; the AI Agent v3 runs tool nodes as
 * workflow nodes, where only the type tells: n8n names the tool variant `<name>Tool`, as its `@tool`
 * display option does.
 */
export function runsAsTool(this: IExecuteFunctions): boolean {
	return (
		(typeof this.isToolExecution === 'function' && this.isToolExecution()) ||
		this.getNode().type.endsWith('Tool')
	);
}

/**
 * Outputs: Registered and Not Registered. Every row gives one item, paired with it, in input order.
 * As a tool, one output: n8n hands an agent only the first output's items, and an agent must hear
 * every answer, "not registered" and failures included.
 */
export async function execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const asTool = runsAsTool.call(this);
	const options = sharedOptions<RequestOptionValues>(this);
	const rows = await lookUpRows(this, inputRows(this), options, {
		stopAtFirstFailure: !asTool && !this.continueOnFail(),
	});
	if (asTool) return [rows.map(toolAnswer)];

	const registered: INodeExecutionData[] = [];
	const notRegistered: INodeExecutionData[] = [];
	for (const row of rows) {
		if (row.kind === 'record') {
			// The record as the API returned it, plus the key that joins it back to its row.
			const item = {
				json: { ...row.record, lookup: { ...row.key } } as IDataObject,
				pairedItem: { item: row.itemIndex },
			};
			(row.record.isRegistered ? registered : notRegistered).push(item);
		} else {
			// A failed check must never pass for a registered company: failed rows leave by Not
			// Registered, or by the error output.
			notRegistered.push(errorItem(row));
		}
	}
	return [registered, notRegistered];
}

/**
 * What an agent receives for one lookup: the record with `isRegistered` (false is an answer), or
 * `error`, one text saying what went wrong and what is accepted. Returned, not thrown: n8n would pass
 * an agent only a thrown error's message, without its description.
 */
function toolAnswer(row: CompanyRow): INodeExecutionData {
	if (row.kind === 'record') {
		return {
			json: { ...row.record, lookup: { ...row.key } } as IDataObject,
			pairedItem: { item: row.itemIndex },
		};
	}
	const { error } = row;
	const text = error.description
		? `${error.message.replace(/\.$/, '')}. ${error.description}`
		: error.message;
	return {
		json: { error: text, ...(row.key ? { lookup: { ...row.key } } : {}) },
		pairedItem: { item: row.itemIndex },
	};
}

/** Where every row goes when the operation itself failed: the output that error items take. */
export function failedRowsOutput(
	this: IExecuteFunctions,
	items: INodeExecutionData[],
): INodeExecutionData[][] {
	return runsAsTool.call(this) ? [items] : [[], items];
}
