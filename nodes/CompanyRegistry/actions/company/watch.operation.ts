import { NodeOperationError, type IDataObject, type IExecuteFunctions, type INodeExecutionData, type INodeProperties } from 'n8n-workflow';

import { companyFields, reportFirstSightingsOption, requestOptions, sortedOptions } from '../../../shared/descriptions';
import { errorItem, inputRows, lookUpRows, type RequestOptionValues } from '../../../shared/lookupPipeline';
import { detectChangesInStore, forgetInStore, type ProcessedItemsStore } from '../../../shared/model/watchEntries';
import { changeItemJson, dayNumber, detectChanges, forgetUnseen, loadWatchState, saveWatchState, type FoundChange } from '../../../shared/model/watchState';

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
				displayName: 'Forget Companies Not Seen for (Days)',
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
	const detection = { now, reportFirstSightings: options.reportFirstSightings === true };
	const store = processedItemsStore(this);
	const items = new Map<number, INodeExecutionData>();
	let found: FoundChange[] | undefined;
	try {
		found = store ? await detectChangesInStore(store, state, looked, detection) : detectChanges(state, looked, detection);
	} catch (error) {
		// Without its memory the watch cannot tell a change: every looked-up company fails, none is a change,
		// and the state stays as the last run left it (it changes only once the store has answered).
		const message = "The watch's memory in n8n's database could not be read or saved";
		const description = `${messageOf(error)}. Nothing was remembered: the next run compares with the last one that was.`;
		if (!continueOnFail) throw new NodeOperationError(this.getNode(), message, { description });
		for (const { itemIndex, key } of looked) {
			items.set(itemIndex, errorItem({ kind: 'failed', itemIndex, key, error: new NodeOperationError(this.getNode(), message, { itemIndex, description }) }));
		}
	}
	if (found) {
		const forgotten = forgetUnseen(state, dayNumber(now), Number(options.forgetAfterDays) || 0);
		// A company left in the store is only not new when it comes back: no reason to fail the run.
		if (store) {
			await forgetInStore(store, forgotten).catch((error) =>
				this.logger.warn(`Company Registry: forgotten companies stay in the watch's memory in n8n's database: ${messageOf(error)}`),
			);
		}
		saveWatchState(staticData, state);
		for (const change of found) {
			items.set(change.itemIndex, { json: changeItemJson(change, now) as IDataObject, pairedItem: { item: change.itemIndex } });
		}
	}
	for (const row of rows) if (row.kind === 'failed') items.set(row.itemIndex, errorItem(row));
	return [[...items.entries()].sort(([a], [b]) => a - b).map(([, item]) => item)];
}

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

/**
 * n8n's processed-items store, for production runs (see watchEntries). A manual test run remembers
 * nothing, as n8n saves no static data for it either; an n8n without the store leaves the static data alone.
 */
function processedItemsStore(context: IExecuteFunctions): ProcessedItemsStore | undefined {
	if (context.getMode() === 'manual') return undefined;
	const { helpers } = context;
	if (typeof helpers.checkProcessedAndRecord !== 'function' || typeof helpers.removeProcessed !== 'function') return undefined;
	return helpers;
}

export function failedRowsOutput(this: IExecuteFunctions, items: INodeExecutionData[]): INodeExecutionData[][] {
	return [items];
}
