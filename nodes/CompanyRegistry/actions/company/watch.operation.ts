import {
	NodeOperationError,
	type IDataObject,
	type IExecuteFunctions,
	type INodeExecutionData,
	type INodeProperties,
} from 'n8n-workflow';

import {
	companyFields,
	reportFirstSightingsOption,
	requestOptions,
	sortedOptions,
} from '../../../shared/descriptions';
import { executionCancelSignal } from '../../../shared/executionCancelSignal';
import {
	errorItem,
	inputRows,
	lookUpRows,
	sharedOptions,
	type RequestOptionValues,
} from '../../../shared/lookupPipeline';
import { detectChanges } from '../../../shared/watch/detector';
import { nodeStaticData, StaticDataMemory, type WatchMemory } from '../../../shared/watch/memory';
import { ProcessedItemsMemory } from '../../../shared/watch/processedItemsMemory';
import { StoreTurn } from '../../../shared/watch/storeTurns';
import type { ProcessedItemsStore } from '../../../shared/watch/storeRow';
import {
	changeItemJson,
	dayNumber,
	watchKey,
	type FoundChange,
} from '../../../shared/watch/snapshot';
import { realClock, type Clock } from '../../../shared/transport/wait';
import { badInputItemJson, checkFailedItemJson } from '../../../shared/watch/failedChecks';
import { withEarlierTries } from '../../../shared/watch/earlierTries';

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
 * the last run (or seen first, if asked). A failed lookup is never a change. At n8n's default On Error it
 * leaves as an item saying so (event "checkFailed"), and the others' changes leave with it: one company
 * that cannot be checked never holds back the alerts of the rest; only a run where nothing could be
 * checked (a broken credential, the registry down) fails. Under "continue" it leaves as an error item.
 */
export async function execute(
	this: IExecuteFunctions,
	/** The real clock in n8n (the router passes none); a virtual one where a test moves time on. */
	clock: Clock = realClock,
): Promise<INodeExecutionData[][]> {
	const continueOnFail = this.continueOnFail();
	const options = sharedOptions<WatchOptions>(this);
	// Before any lookup: a state the node cannot use fails the run (the router gives each row its error).
	const state = nodeStaticData(this);
	const { memory, notebook, turn } = watchMemory(
		this,
		state,
		options,
		new Date(clock.now()),
		clock,
	);
	const signal = executionCancelSignal(this);
	// Overlapping runs of the node hold the store in turn from before their lookups to their write, so a run
	// compares lookups newer than the memory it reads. Taken after them, a run that waited compared lookups
	// older than a later run's memory: a change undone, then reported again (test:queue scenario 6: five
	// runs at once on a worker, one reporting turnedActive from lookups made before the change).
	let memoryError = await turn.hold(signal).then(
		() => undefined,
		(error: unknown) => error ?? new Error('The turn over the store failed'),
	);
	// A run n8n stopped (its timeout, a user's stop) gives up waiting for its turn: nothing looked up, nothing remembered.
	if (memoryError !== undefined && signal?.aborted) throw memoryFailure(this, memoryError);
	let checked: CheckedRows;
	let found: FoundChange[] | undefined;
	try {
		checked = await checkRows(this, options, notebook, clock);
		// A run where nothing could be checked is a broken credential, registry or list: it fails below, its
		// memory untouched. One bad row is not: it leaves as a checkFailed item of kind 'input'.
		const nothingChecked = checked.looked.length === 0 && checked.failures.length > 0;
		if (memoryError === undefined && !(nothingChecked && !continueOnFail)) {
			try {
				found = withEarlierTries(
					this.getInputData(),
					await detectChanges(memory, checked.looked, checked.unchecked, {
						now: checked.now,
						reportFirstSightings: options.reportFirstSightings === true,
					}),
				);
			} catch (error) {
				memoryError = error;
			}
		}
	} finally {
		await turn.release();
	}
	const { looked, failures, failedChecks, now } = checked;
	if (!continueOnFail && looked.length === 0 && failures.length > 0) throw failures[0].error;
	const items = new Map<number, INodeExecutionData>();
	if (memoryError !== undefined) {
		// Without its memory the watch cannot tell a change: every looked-up company fails, none is a change,
		// and the memory stays as the last run left it (the static data changes only once the store has answered).
		if (!continueOnFail) throw memoryFailure(this, memoryError);
		for (const { itemIndex, key } of looked) {
			items.set(
				itemIndex,
				errorItem({
					kind: 'failed',
					itemIndex,
					key,
					error: memoryFailure(this, memoryError, itemIndex),
				}),
			);
		}
	}
	for (const change of found ?? []) {
		items.set(change.itemIndex, {
			json: changeItemJson(change, now) as IDataObject,
			pairedItem: { item: change.itemIndex },
		});
	}
	// A change an earlier try found leaves now or never (the memory has moved on): it keeps its row even
	// where this try's lookup failed.
	const free = (itemIndex: number) => !items.has(itemIndex);
	if (continueOnFail)
		for (const row of failures) {
			if (free(row.itemIndex)) items.set(row.itemIndex, errorItem(row));
		}
	else {
		for (const row of failures) {
			if (row.key) continue;
			items.set(row.itemIndex, {
				json: badInputItemJson(row, now) as IDataObject,
				pairedItem: { item: row.itemIndex },
			});
		}
		for (const check of failedChecks) {
			if (!free(check.itemIndex)) continue;
			items.set(check.itemIndex, {
				json: checkFailedItemJson(check, now) as IDataObject,
				pairedItem: { item: check.itemIndex },
			});
		}
	}
	return [[...items.entries()].sort(([a], [b]) => a - b).map(([, item]) => item)];
}

type CheckedRows = Awaited<ReturnType<typeof checkRows>>;

/**
 * Looks every row up, and reads, before the memory is written, the day of each failing company's last
 * successful check.
 */
async function checkRows(
	context: IExecuteFunctions,
	options: WatchOptions,
	notebook: StaticDataMemory,
	clock: Clock,
) {
	const rows = await lookUpRows(context, inputRows(context), options, {
		stopAtFirstFailure: false,
	});
	const looked = rows.flatMap((row) => (row.kind === 'record' ? [row] : []));
	const failures = rows.flatMap((row) => (row.kind === 'failed' ? [row] : []));
	const now = new Date(clock.now());
	const unchecked = failures.flatMap((row) => (row.key ? [row.key] : []));
	// A company listed twice counts once, as its changes do: one checkFailed item, on its first row.
	const failingIds = new Set<string>();
	const failedChecks = failures.flatMap((row) => {
		if (!row.key) return [];
		const id = watchKey(row.key);
		if (failingIds.has(id)) return [];
		failingIds.add(id);
		const lastCheckedDay = notebook.saved(id)?.d;
		return [{ key: row.key, itemIndex: row.itemIndex, row, since: now, lastCheckedDay }];
	});
	return { looked, failures, failedChecks, unchecked, now };
}

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

/** The run's (or a row's) error where the watch's memory could not be used. */
const memoryFailure = (context: IExecuteFunctions, error: unknown, itemIndex?: number) =>
	new NodeOperationError(
		context.getNode(),
		"The watch's memory in n8n's database could not be read or saved",
		{
			itemIndex,
			description: `${messageOf(error)}. Nothing was remembered: the next run compares with the last one that was.`,
		},
	);

/**
 * The watch's memory: n8n's processed-items store for production runs (with the static data, where n8n
 * loaded it, as its notebook), else the static data. A manual test run remembers nothing, as n8n saves no
 * static data for it either.
 */
function watchMemory(
	context: IExecuteFunctions,
	/** The node's state in the static data (nodeStaticData). */
	state: IDataObject,
	options: WatchOptions,
	now: Date,
	clock: Clock,
): {
	memory: WatchMemory;
	notebook: StaticDataMemory;
	/** This run's turn over the store, held from before its lookups (none to take without the store). */
	turn: Pick<StoreTurn, 'hold' | 'release'>;
} {
	const days = Number(options.forgetAfterDays) || 0;
	const today = dayNumber(now);
	const staticData = new StaticDataMemory(
		state,
		context.logger,
		(_id, snapshot) => days <= 0 || today - snapshot.d <= days,
	);
	const store = processedItemsStore(context);
	// Overlapping runs of the node (a schedule shorter than a run, a manual run beside a production one)
	// take turns over the store's row: their asks, clears and writes would interleave otherwise.
	const turn = store && StoreTurn.possible(store) ? new StoreTurn(store, clock) : undefined;
	return {
		memory: store ? new ProcessedItemsMemory(turn ?? store, staticData) : staticData,
		notebook: staticData,
		turn: turn ?? { hold: async () => undefined, release: async () => undefined },
	};
}

/** n8n's processed-items store, for production runs; an n8n without it leaves the static data alone. */
function processedItemsStore(context: IExecuteFunctions): ProcessedItemsStore | undefined {
	if (context.getMode() === 'manual') return undefined;
	const { helpers } = context;
	const needed = [
		helpers.checkProcessedAndRecord,
		helpers.clearAllProcessedItems,
		helpers.getProcessedDataCount,
	];
	return needed.every((helper) => typeof helper === 'function') ? helpers : undefined;
}

export function failedRowsOutput(
	this: IExecuteFunctions,
	items: INodeExecutionData[],
): INodeExecutionData[][] {
	return [items];
}
