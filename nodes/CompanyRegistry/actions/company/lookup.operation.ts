import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';

import { companyFields, requestOptions, sortedOptions } from '../../../shared/descriptions';
import { errorItem, inputRows, lookUpRows, type RequestOptionValues } from '../../../shared/lookupPipeline';

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

/** Outputs: Registered and Not Registered. Every row gives one item, paired with it, in input order. */
export async function execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const continueOnFail = this.continueOnFail();
	const options = this.getNodeParameter('options', 0, {}) as RequestOptionValues;
	const rows = await lookUpRows(this, inputRows(this), options, { stopAtFirstFailure: !continueOnFail });

	const registered: INodeExecutionData[] = [];
	const notRegistered: INodeExecutionData[] = [];
	for (const row of rows) {
		if (row.kind === 'record') {
			// The record as the API returned it, plus the key that joins it back to its row.
			const item = { json: { ...row.record, lookup: { ...row.key } } as IDataObject, pairedItem: { item: row.itemIndex } };
			(row.record.isRegistered ? registered : notRegistered).push(item);
		} else {
			// A failed check must never pass for a registered company: failed rows leave by Not
			// Registered, or by the error output.
			notRegistered.push(errorItem(row));
		}
	}
	return [registered, notRegistered];
}

/** Where every row goes when the operation itself failed: the output that error items take. */
export const failedRowsOutput = (items: INodeExecutionData[]): INodeExecutionData[][] => [[], items];
