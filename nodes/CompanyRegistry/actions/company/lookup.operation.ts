import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';

import {
	companyFields,
	errorItem,
	lookUpRows,
	requestOptions,
	rowError,
	type RequestOptionValues,
} from './companyRows';

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

/** Outputs: Registered and Not Registered. Every row gives one item, paired with it, in input order. */
export async function execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const options = this.getNodeParameter('options', 0, {}) as RequestOptionValues;
	const { rows, settings } = await lookUpRows.call(this, options, this.continueOnFail());

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
