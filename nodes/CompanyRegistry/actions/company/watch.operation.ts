import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';

import { changeItemJson, dayNumber, detectChanges, forgetUnseen, type WatchState } from '../../model/watchState';
import {
	companyFields,
	errorItem,
	lookUpRows,
	reportFirstSightingsOption,
	requestOptions,
	rowError,
	type RequestOptionValues,
} from './companyRows';

const show = { resource: ['company'], operation: ['watch'] };

export const description: INodeProperties[] = [
	{
		displayName:
			'Compares each company with what this node saw last time and outputs only what changed. n8n saves that memory only for production runs (active workflows), not for manual test runs.',
		name: 'watchNotice',
		type: 'notice',
		default: '',
		displayOptions: { show },
	},
	...companyFields('watch'),
	{
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add option',
		default: {},
		displayOptions: { show },
		options: [
			{
				displayName: 'Forget Companies Not Seen For (Days)',
				name: 'forgetAfterDays',
				type: 'number',
				typeOptions: { minValue: 0 },
				default: 0,
				description:
					'Forget a company (and report it as new if it comes back) when no input row has named it for this many days. 0 keeps every company.',
			},
			...requestOptions.slice(0, 4),
			reportFirstSightingsOption,
			...requestOptions.slice(4),
		],
	},
];

interface WatchOptions extends RequestOptionValues {
	forgetAfterDays?: number;
	reportFirstSightings?: boolean;
}

/**
 * One output, Changes: an item per company whose registration, status, name or address differs from
 * the last run (or seen first, if asked). A failed lookup is never a change: it leaves as an error item.
 */
export async function execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const options = this.getNodeParameter('options', 0, {}) as WatchOptions;
	const { rows, settings } = await lookUpRows.call(this, options, this.continueOnFail());

	const now = new Date();
	const state = this.getWorkflowStaticData('node') as WatchState;
	const looked = rows.flatMap((row) =>
		'outcome' in row && 'record' in row.outcome ? [{ key: row.key, record: row.outcome.record, itemIndex: row.itemIndex }] : [],
	);
	const found = detectChanges(state, looked, { now, reportFirstSightings: options.reportFirstSightings ?? false });
	forgetUnseen(state, dayNumber(now), options.forgetAfterDays ?? 0);

	const items: Array<{ itemIndex: number; item: INodeExecutionData }> = found.map((change) => {
		const { itemIndex } = looked[change.index];
		return { itemIndex, item: { json: changeItemJson(change, now) as IDataObject, pairedItem: { item: itemIndex } } };
	});
	for (const row of rows) {
		if ('outcome' in row && 'record' in row.outcome) continue;
		items.push({ itemIndex: row.itemIndex, item: errorItem(rowError.call(this, row, settings), row) });
	}
	return [items.sort((a, b) => a.itemIndex - b.itemIndex).map(({ item }) => item)];
}
