import {
	NodeConnectionTypes,
	NodeOperationError,
	type IDataObject,
	type INodeExecutionData,
	type INodeProperties,
	type INodeType,
	type INodeTypeDescription,
	type IPollFunctions,
} from 'n8n-workflow';

import {
	companyFields,
	reportFirstSightingsOption,
	requestOptions,
	sortedOptions,
} from '../shared/descriptions';
import { inputErrorOf, lookUpRows, type RequestOptionValues } from '../shared/lookupPipeline';
import { toLookupKey, type LookupKey } from '../shared/model/lookupKey';
import { detectChanges } from '../shared/watch/detector';
import { realClock, type Clock } from '../shared/transport/wait';
import { checkFailedItemJson, failedChecksToReport } from '../shared/watch/failedChecks';
import { StaticDataMemory } from '../shared/watch/memory';
import { FIRST_SEEN, changeItemJson, watchKey } from '../shared/watch/snapshot';

interface WatchlistEntry {
	country?: unknown;
	companyId?: unknown;
	state?: unknown;
}

interface TriggerOptions extends RequestOptionValues {
	reportFirstSightings?: boolean;
	failedCheckInterval?: number;
}

const failedCheckIntervalOption: INodeProperties = {
	displayName: 'Report Failed Checks Every (Hours)',
	name: 'failedCheckInterval',
	type: 'number',
	typeOptions: { minValue: 0 },
	default: 24,
	description:
		'A company that cannot be checked is reported (event "checkFailed") when this starts, then again at most this often while it lasts. 0 turns these reports off: a company that can no longer be checked then goes unnoticed.',
};

export class CompanyRegistryTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Company Registry Trigger',
		name: 'companyRegistryTrigger',
		icon: { light: 'file:companyRegistry.svg', dark: 'file:companyRegistry.dark.svg' },
		group: ['trigger'],
		version: 1,
		subtitle:
			'={{"Watching " + ($parameter["companies"]["company"] || []).length + (($parameter["companies"]["company"] || []).length === 1 ? " Company" : " Companies")}}',
		description:
			'Starts the workflow when a watched company turns Inactive, leaves the register, or changes its official name or address',
		defaults: { name: 'Company Registry Trigger' },
		polling: true,
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'companyRegistryApi', required: true }],
		properties: [
			{
				displayName:
					"Checks the companies below on the poll schedule and starts the workflow with one item per change. The first check only records each company. 'Fetch Test Event' returns the current state of the first company.",
				name: 'triggerNotice',
				type: 'notice',
				default: '',
			},
			{
				displayName: 'Companies',
				name: 'companies',
				type: 'fixedCollection',
				typeOptions: { multipleValues: true },
				placeholder: 'Add company',
				default: {},
				options: [
					{
						displayName: 'Company',
						name: 'company',
						values: companyFields(),
					},
				],
			},
			{
				displayName: 'Options',
				name: 'options',
				type: 'collection',
				placeholder: 'Add option',
				default: {},
				options: sortedOptions(
					reportFirstSightingsOption,
					failedCheckIntervalOption,
					...Object.values(requestOptions),
				),
			},
		],
	};

	/** n8n calls poll with its own `this`: the clock reaches it through this closure. */
	poll: (this: IPollFunctions) => Promise<INodeExecutionData[][] | null>;

	/** `clock`: the real one in n8n (which constructs nodes without arguments); a virtual one in tests. */
	constructor(clock: Clock = realClock) {
		this.poll = async function (this: IPollFunctions) {
			return await pollWatchlist(this, clock);
		};
	}
}

/** One poll: checks every listed company, and outputs its changes and the failed checks to report. */
async function pollWatchlist(
	context: IPollFunctions,
	clock: Clock,
): Promise<INodeExecutionData[][] | null> {
	const entries = context.getNodeParameter('companies.company', []) as WatchlistEntry[];
	const options = context.getNodeParameter('options', {}) as TriggerOptions;
	// A bad entry is a broken watch: the poll fails, naming the entry, until the list is mended.
	const keys: LookupKey[] = entries.map((entry, index) => {
		try {
			return toLookupKey({
				country: entry.country,
				companyId: entry.companyId,
				state: entry.state,
				language: options.language,
			});
		} catch (error) {
			throw inputErrorOf(context, error, index, `Company ${index + 1} of the list: `);
		}
	});
	if (keys.length === 0)
		throw new NodeOperationError(context.getNode(), 'Add at least one company to watch');

	const manual = context.getMode() === 'manual';
	// A test event needs only the first company.
	const watched = manual ? keys.slice(0, 1) : keys;
	const rows = await lookUpRows(
		context,
		{ count: watched.length, keyAt: (index) => watched[index] },
		options,
		{ stopAtFirstFailure: false },
	);
	const looked = rows.flatMap((row) => (row.kind === 'record' ? [row] : []));
	const failures = rows.flatMap((row) => (row.kind === 'failed' ? [row] : []));
	// A failed lookup is never a change: the company keeps its last known state.
	for (const row of failures)
		context.logger.warn(`Company Registry Trigger: ${row.error.message}`, {
			company: row.itemIndex + 1,
		});
	// Nothing could be checked at all: that is a broken trigger, not a quiet day.
	if (looked.length === 0 && failures.length > 0) throw failures[0].error;

	const now = new Date(clock.now());
	if (manual) {
		const [first] = looked;
		return [[{ json: changeItemJson({ ...first, change: FIRST_SEEN }, now) as IDataObject }]];
	}
	// The list is the whole watch: companies taken off it are forgotten at once.
	const listed = new Set(keys.map(watchKey));
	const staticData = context.getWorkflowStaticData('node');
	const memory = new StaticDataMemory(staticData, context.logger, (id) => listed.has(id));
	const failed = failures.flatMap((row) =>
		row.key
			? [
					{
						key: row.key,
						itemIndex: row.itemIndex,
						row,
						lastCheckedDay: memory.saved(watchKey(row.key))?.d,
					},
				]
			: [],
	);
	const found = await detectChanges(
		memory,
		looked,
		failed.map((check) => check.key),
		{ now, reportFirstSightings: options.reportFirstSightings === true },
	);
	// A company that cannot be checked is said, not kept silent: when its failures start, then once an interval.
	const intervalHours = Number(options.failedCheckInterval ?? 24);
	const intervalMs =
		Number.isFinite(intervalHours) && intervalHours > 0 ? intervalHours * 3_600_000 : 0;
	const report = failedChecksToReport(staticData, failed, listed, now, intervalMs);
	const items = [
		...found.map((change) => ({
			itemIndex: change.itemIndex,
			json: changeItemJson(change, now),
		})),
		...report.map((check) => ({
			itemIndex: check.itemIndex,
			json: checkFailedItemJson(check, now),
		})),
	].sort((a, b) => a.itemIndex - b.itemIndex);
	if (items.length === 0) return null;
	return [items.map(({ json }) => ({ json: json as IDataObject }))];
}
