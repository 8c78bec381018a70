import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';

import { companyFields, reportFirstSightingsOption, requestOptions, sortedOptions } from '../../../shared/descriptions';
import { errorItem, inputRows, lookUpRows, type RequestOptionValues } from '../../../shared/lookupPipeline';
import { changeItemJson, dayNumber, detectChanges, forgetUnseen, loadWatchState, saveWatchState } from '../../../shared/model/watchState';

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
		options: sortedOptions(
			{
				displayName: 'Forget Companies Not Seen For (Days)',
				name: 'forgetAfterDays',
				type: 'number',
				typeOptions: { minValue: 0 },
				default: 0,
				description:
					'Forget a company (and report it as new if it comes back) when no input row has named it for this many days. 0 keeps every company.',
			},
			reportFirstSightingsOption,
			...Object.values(requestOptions),
		),
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
	const continueOnFail = this.continueOnFail();
	const options = this.getNodeParameter('options', 0, {}) as WatchOptions;
	const rows = await lookUpRows(this, inputRows(this), options, { stopAtFirstFailure: !continueOnFail });

	const now = new Date();
	const staticData = this.getWorkflowStaticData('node');
	const state = loadWatchState(staticData, this.logger);
	const looked = rows.flatMap((row) => (row.kind === 'record' ? [row] : []));
	const found = detectChanges(state, looked, { now, reportFirstSightings: options.reportFirstSightings === true });
	forgetUnseen(state, dayNumber(now), Number(options.forgetAfterDays) || 0);
	saveWatchState(staticData, state);

	const items = new Map<number, INodeExecutionData>();
	for (const change of found) {
		items.set(change.itemIndex, { json: changeItemJson(change, now) as IDataObject, pairedItem: { item: change.itemIndex } });
	}
	for (const row of rows) if (row.kind === 'failed') items.set(row.itemIndex, errorItem(row));
	return [[...items.entries()].sort(([a], [b]) => a - b).map(([, item]) => item)];
}

export function failedRowsOutput(this: IExecuteFunctions, items: INodeExecutionData[]): INodeExecutionData[][] {
	return [items];
}
