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
import {
	inputErrorOf,
	lookUpRows,
	type CompanyRow,
	type RequestOptionValues,
} from '../shared/lookupPipeline';
import { toLookupKey, type LookupKey } from '../shared/model/lookupKey';
import { detectChanges } from '../shared/watch/detector';
import { realClock, type Clock } from '../shared/transport/wait';
import { checkFailedItemJson, failedChecksToReport } from '../shared/watch/failedChecks';
import { nodeStaticData, StaticDataMemory } from '../shared/watch/memory';
import { budgetedPoll, outlastedBudget, pollBudgetMs } from './pollBudget';
import { isFirstPollOn, quietPollResult } from './pollSave';
import { FIRST_SEEN, changeItemJson, watchKey } from '../shared/watch/snapshot';

interface WatchlistEntry {
	country?: unknown;
	companyId?: unknown;
	state?: unknown;
}

interface TriggerOptions extends RequestOptionValues {
	reportFirstSightings?: boolean;
	failedCheckInterval?: unknown;
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
	const entries = watchlistEntries(context);
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
	const intervalMs = failedCheckIntervalMs(context, options.failedCheckInterval);

	const manual = context.getMode() === 'manual';
	if (manual) return await testEvent(context, keys[0], options, clock);

	const staticData = nodeStaticData(context);
	const firstPollOn = isFirstPollOn(staticData);
	const budgetMs = pollBudgetMs(context);
	// n8n's poll timer does not wait for a poll still running: the poll in its budget has the list.
	if (budgetMs !== undefined) {
		const runningUntil = staticData[RUNNING_UNTIL];
		if (typeof runningUntil === 'number' && runningUntil > clock.now()) {
			context.logger.debug('Company Registry Trigger: the previous poll is still running; skipped');
			return null;
		}
		staticData[RUNNING_UNTIL] = clock.now() + budgetMs;
	}
	try {
		return await checkWatchlist(context, clock, keys, options, staticData, {
			budgetMs,
			firstPollOn,
			intervalMs,
		});
	} finally {
		delete staticData[RUNNING_UNTIL];
	}
}

const ENTRY_FIELDS = { country: 'Country', companyId: 'Company ID', state: 'State' } as const;

/**
 * The list. Where an expression in it fails (one reading `$json`, which a trigger does not have), its
 * fields are read one by one to name the company and field, not only n8n's "Node … hasn't been executed".
 */
function watchlistEntries(context: IPollFunctions): WatchlistEntry[] {
	try {
		return context.getNodeParameter('companies.company', []) as WatchlistEntry[];
	} catch (error) {
		const listed = (context.getNode().parameters.companies as IDataObject | undefined)?.company;
		for (let index = 0; index < (Array.isArray(listed) ? listed.length : 0); index++)
			for (const [name, label] of Object.entries(ENTRY_FIELDS)) {
				try {
					context.getNodeParameter(`companies.company[${index}].${name}`, '');
				} catch (fieldError) {
					throw new NodeOperationError(
						context.getNode(),
						`Company ${index + 1} of the list: its ${label} expression failed: ${messageOf(fieldError)}`,
						{
							description:
								"The list is read when n8n polls, and a trigger has no input item: $json, $input and other nodes' data are empty then. Write the value, or an expression that needs no input.",
						},
					);
				}
			}
		throw new NodeOperationError(context.getNode(), error as Error);
	}
}

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

/** Checks the companies of the list that the budget allows, from where the last poll stopped. */
async function checkWatchlist(
	context: IPollFunctions,
	clock: Clock,
	keys: LookupKey[],
	options: TriggerOptions,
	staticData: IDataObject,
	{
		budgetMs,
		firstPollOn,
		intervalMs,
	}: { budgetMs: number | undefined; firstPollOn: boolean; intervalMs: number },
): Promise<INodeExecutionData[][] | null> {
	// A poll that did not get through the list goes on where it stopped: each company in turn, a company
	// listed twice at its first listing (else a poll stopped at its second went back to its first).
	const listings = firstListings(keys);
	const start = resumeTurn(staticData, keys, listings);
	const order = listings.map((_, turn) => listings[(start + turn) % listings.length]);
	const budget = budgetMs === undefined ? undefined : budgetedPoll(context, clock, budgetMs);
	let rows: CompanyRow[];
	try {
		rows = await lookUpRows(
			budget?.context ?? context,
			{ count: order.length, keyAt: (index) => keys[order[index]] },
			options,
			{ stopAtFirstFailure: false },
		);
	} finally {
		budget?.end();
	}
	// Item indexes as in the list, for the log and the order of the output.
	rows = rows.map((row) => ({ ...row, itemIndex: order[row.itemIndex] }));
	// Rows the budget stopped were not checked: neither a change nor a failed check, left for the next poll.
	const stoppedByBudget = (row: CompanyRow) =>
		budget?.stopped === true && row.kind === 'failed' && row.cause === 'cancelled';
	const deferred = rows.filter(stoppedByBudget);
	// Except the company this poll started with: it had the whole budget and got no answer, which is a
	// failed check (else a company the registry never answers in time was never reported at all).
	const straggler =
		deferred[0] === rows[0] ? outlastedBudget(context, rows[0], budgetMs) : undefined;
	const looked = rows.flatMap((row) => (row.kind === 'record' ? [row] : []));
	const failures = rows.flatMap((row) =>
		row.kind === 'failed' && !stoppedByBudget(row) ? [row] : [],
	);
	const failedChecks = straggler ? [straggler, ...failures] : failures;
	// A failed lookup is never a change: the company keeps its last known state.
	for (const row of failedChecks)
		context.logger.warn(`Company Registry Trigger: ${row.error.message}`, {
			company: row.itemIndex + 1,
		});
	// The next poll starts at the first company this poll did not check (rows come in this poll's order),
	// unless that is the one it started with: that one had the whole budget, and a lookup that outlasts
	// every budget, first in line at every poll, held back the list behind it. It waits for its next turn,
	// also when it was all this poll asked (one lookup at a time) and the poll fails below.
	const nextUnchecked = deferred.find((row) => row !== rows[0]);
	if (nextUnchecked?.key) staticData[RESUME_AT] = watchKey(nextUnchecked.key);
	else delete staticData[RESUME_AT];

	// Nothing could be checked at all: that is a broken trigger, not a quiet day.
	if (looked.length === 0 && failures.length > 0) throw failures[0].error;
	if (looked.length === 0)
		throw new NodeOperationError(
			context.getNode(),
			`No company could be checked within the time n8n gives a poll (${Math.round((budgetMs ?? 0) / 1000)} s)`,
			{
				// The company it started with had the whole poll (one lookup at a time, a list of one): named.
				description: `The registry answered too slowly, or asked to wait longer than that.${
					straggler?.key
						? ` The lookup of company ${straggler.itemIndex + 1} of the list (${straggler.key.countryCode}/${straggler.key.companyId}) had the whole poll and did not finish.`
						: ''
				} The next poll tries again; nothing was forgotten.`,
			},
		);
	const now = new Date(clock.now());
	// The list is the whole watch: companies taken off it are forgotten at once.
	const listed = new Set(keys.map(watchKey));
	const memory = new StaticDataMemory(staticData, context.logger, (id) => listed.has(id));
	const failed = failedChecks.flatMap((row) =>
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
	const firstSightings =
		options.reportFirstSightings !== true &&
		looked.some((row) => memory.saved(watchKey(row.key)) === undefined);
	const found = await detectChanges(
		memory,
		looked,
		failed.map((check) => check.key),
		{ now, reportFirstSightings: options.reportFirstSightings === true },
	);
	// A company that cannot be checked is said, not kept silent: when its failures start, then once an interval.
	// Companies left for the next poll keep their failing spell as it was: they were not checked.
	const carried = failingOf(staticData, straggler ? deferred.slice(1) : deferred);
	const report = failedChecksToReport(staticData, failed, listed, now, intervalMs);
	staticData.failing = { ...(staticData.failing as IDataObject), ...carried };
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
	if (items.length === 0) return quietPollResult(firstSightings, firstPollOn);
	return [items.map(({ json }) => ({ json: json as IDataObject }))];
}

/**
 * Report Failed Checks Every (Hours) in milliseconds (0: off). A value that is no number of hours (an
 * expression giving '24h', -1) fails the poll saying so: taken as 0, it silenced every failed check.
 */
function failedCheckIntervalMs(context: IPollFunctions, value: unknown): number {
	if (value === undefined || value === null || (typeof value === 'string' && value.trim() === ''))
		return 24 * 3_600_000;
	const hours = typeof value === 'string' ? Number(value) : value;
	if (typeof hours !== 'number' || !Number.isFinite(hours) || hours < 0)
		throw new NodeOperationError(
			context.getNode(),
			`Report Failed Checks Every (Hours) must be a number of hours, 0 or more, not ${JSON.stringify(value) ?? String(value)}`,
			{ description: '0 turns the reports of companies that cannot be checked off.' },
		);
	return hours * 3_600_000;
}

/** Where the static data says the next poll starts: the company the last poll could not check. */
const RESUME_AT = 'resumeAt';
/** Until when the poll now running may run (its start plus n8n's budget): removed when it ends. */
const RUNNING_UNTIL = 'runningUntil';

/** The list's indexes, each company once: at its first listing. */
function firstListings(keys: LookupKey[]): number[] {
	const seen = new Set<string>();
	return keys.flatMap((key, index) => {
		const id = watchKey(key);
		if (seen.has(id)) return [];
		seen.add(id);
		return [index];
	});
}

/** The turn (in `listings`) of the company the static data says the next poll starts with. */
function resumeTurn(staticData: IDataObject, keys: LookupKey[], listings: number[]): number {
	const saved = staticData[RESUME_AT];
	if (typeof saved !== 'string') return 0;
	return Math.max(
		0,
		listings.findIndex((index) => watchKey(keys[index]) === saved),
	);
}

/** The saved failing spells of these companies (failedChecks.ts keeps them under `failing`). */
function failingOf(staticData: IDataObject, rows: CompanyRow[]): IDataObject {
	const failing = staticData.failing;
	if (typeof failing !== 'object' || failing === null || Array.isArray(failing)) return {};
	const carried: IDataObject = {};
	for (const row of rows) {
		const id = row.key ? watchKey(row.key) : undefined;
		if (id !== undefined && Object.hasOwn(failing, id)) carried[id] = (failing as IDataObject)[id];
	}
	return carried;
}

/** "Fetch Test Event": the current state of the first company; nothing is remembered. */
async function testEvent(
	context: IPollFunctions,
	key: LookupKey,
	options: TriggerOptions,
	clock: Clock,
): Promise<INodeExecutionData[][]> {
	const [row] = await lookUpRows(context, { count: 1, keyAt: () => key }, options, {
		stopAtFirstFailure: false,
	});
	if (row.kind === 'failed') throw row.error;
	const now = new Date(clock.now());
	return [[{ json: changeItemJson({ ...row, change: FIRST_SEEN }, now) as IDataObject }]];
}
