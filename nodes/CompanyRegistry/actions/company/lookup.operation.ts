import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';

import {
	companyFields,
	errorItem,
	lookUpRows,
	requestOptions,
	rowError,
	type CompanyRow,
	type RequestOptionValues,
} from './companyRows';
import type { RegistrySettings } from '../../transport/registryClient';

export const description: INodeProperties[] = [
	...companyFields('lookUp'),
	{
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add option',
		default: {},
		displayOptions: { show: { resource: ['company'], operation: ['lookUp'] } },
		options: requestOptions,
	},
];

/**
 * Whether n8n runs the node as an AI agent's tool. The MCP Server Trigger (and any caller of n8n-core's
 * createNodeAsTool) runs it in a supply-data context that says so; the AI Agent v3 runs tool nodes as
 * workflow nodes, where only the type tells: n8n names the tool variant `<name>Tool`, as its `@tool`
 * display option does.
 */
export function runsAsTool(this: IExecuteFunctions): boolean {
	return (typeof this.isToolExecution === 'function' && this.isToolExecution()) || this.getNode().type.endsWith('Tool');
}

/**
 * Outputs: Registered and Not Registered. Every row gives one item, paired with it, in input order.
 * As a tool, one output: n8n hands an agent only the first output's items, and an agent must hear
 * every answer, "not registered" and failures included.
 */
export async function execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const options = this.getNodeParameter('options', 0, {}) as RequestOptionValues;
	const asTool = runsAsTool.call(this);
	const { rows, settings } = await lookUpRows.call(this, options, asTool || this.continueOnFail());
	if (asTool) return [rows.map((row) => toolAnswer.call(this, row, settings))];

	const registered: INodeExecutionData[] = [];
	const notRegistered: INodeExecutionData[] = [];
	for (const row of rows) {
		if ('outcome' in row && 'record' in row.outcome) {
			const { record } = row.outcome;
			// The record as the API returned it, plus the key that joins it back to its row.
			const item = { json: { ...record, lookup: { ...row.key } } as IDataObject, pairedItem: { item: row.itemIndex } };
			(record.isRegistered ? registered : notRegistered).push(item);
		} else {
			// A failed check must never pass for a registered company: failed rows leave by Not
			// Registered, or by the error output.
			notRegistered.push(errorItem(rowError.call(this, row, settings), row));
		}
	}
	return [registered, notRegistered];
}

/**
 * What an agent receives for one lookup: the record with `isRegistered` (false is an answer), or
 * `error`, one text saying what went wrong and what is accepted. Returned, not thrown: n8n would pass
 * an agent only a thrown error's message, without its description.
 */
function toolAnswer(this: IExecuteFunctions, row: CompanyRow, settings: RegistrySettings): INodeExecutionData {
	if ('outcome' in row && 'record' in row.outcome) {
		return { json: { ...row.outcome.record, lookup: { ...row.key } } as IDataObject, pairedItem: { item: row.itemIndex } };
	}
	const error = rowError.call(this, row, settings);
	const text = error.description ? `${error.message.replace(/\.$/, '')}. ${error.description}` : error.message;
	return { json: { error: text, ...('key' in row ? { lookup: { ...row.key } } : {}) }, pairedItem: { item: row.itemIndex } };
}
