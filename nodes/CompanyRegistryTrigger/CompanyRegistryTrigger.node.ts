import {
	NodeApiError,
	NodeConnectionTypes,
	NodeOperationError,
	type IDataObject,
	type INodeExecutionData,
	type INodeType,
	type INodeTypeDescription,
	type IPollFunctions,
} from 'n8n-workflow';

import {
	companyFields,
	registrySettings,
	reportFirstSightingsOption,
	requestOptions,
	type RequestOptionValues,
} from '../CompanyRegistry/actions/company/companyRows';
import { LookupInputError, toLookupKey, type LookupKey } from '../CompanyRegistry/model/lookupKey';
import type { CompanyRecord } from '../CompanyRegistry/model/companyRecord';
import { changeItemJson, detectChanges, keepOnly, type WatchState } from '../CompanyRegistry/model/watchState';
import { CREDENTIAL_TYPE, RegistryClient } from '../CompanyRegistry/transport/registryClient';
import { registryError } from '../CompanyRegistry/transport/registryError';

interface WatchlistEntry {
	country?: string;
	companyId?: string;
	state?: string;
}

interface TriggerOptions extends RequestOptionValues {
	reportFirstSightings?: boolean;
}

export class CompanyRegistryTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Company Registry Trigger',
		name: 'companyRegistryTrigger',
		icon: { light: 'file:companyRegistry.svg', dark: 'file:companyRegistry.dark.svg' },
		group: ['trigger'],
		version: 1,
		subtitle: '={{"Watching " + ($parameter["companies"]["company"] || []).length + " companies"}}',
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
					'Checks the companies below on the poll schedule and starts the workflow with one item per change. The first check only records each company. "Fetch Test Event" returns the current state of the first company.',
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
				options: [
					...requestOptions.slice(0, 4),
					reportFirstSightingsOption,
					...requestOptions.slice(4),
				],
			},
		],
	};

	async poll(this: IPollFunctions): Promise<INodeExecutionData[][] | null> {
		const node = this.getNode();
		const entries = this.getNodeParameter('companies.company', []) as WatchlistEntry[];
		const options = this.getNodeParameter('options', {}) as TriggerOptions;
		const keys: LookupKey[] = entries.map((entry, index) => {
			try {
				return toLookupKey({ country: entry.country, companyId: entry.companyId, state: entry.state, language: options.language });
			} catch (error) {
				if (!(error instanceof LookupInputError)) throw new NodeOperationError(node, error as Error);
				throw new NodeOperationError(node, `Company ${index + 1} of the list: ${error.message}`, {
					description: `Accepted: ${error.accepted}.`,
				});
			}
		});
		if (keys.length === 0) throw new NodeOperationError(node, 'Add at least one company to watch');

		const credentials = await this.getCredentials(CREDENTIAL_TYPE);
		const settings = registrySettings(credentials, options);
		const client = new RegistryClient(this, settings);
		const now = new Date();
		const manual = this.getMode() === 'manual';
		// A test event needs only the first company.
		const outcomes = await client.lookUpMany(manual ? keys.slice(0, 1) : keys, { stopAtFirstFailure: false });

		const looked: Array<{ key: LookupKey; record: CompanyRecord }> = [];
		let firstError: NodeApiError | undefined;
		outcomes.forEach((outcome, index) => {
			if (!outcome) return;
			if ('record' in outcome) {
				looked.push({ key: keys[index], record: outcome.record });
			} else if ('failure' in outcome) {
				// A failed lookup is never a change: the company keeps its last known state.
				const error = registryError(outcome.failure, { node, itemIndex: index, key: keys[index], ...settings });
				firstError ??= error;
				this.logger.warn(`Company Registry Trigger: ${error.message}`, { company: index + 1 });
			}
		});
		// Nothing could be checked at all: that is a broken trigger, not a quiet day.
		if (looked.length === 0 && firstError) throw firstError;

		if (manual) {
			const [first] = looked;
			return [[{ json: changeItemJson({ ...first, change: { event: 'firstSeen', changedFields: [], changes: {} } }, now) as IDataObject }]];
		}
		const state = this.getWorkflowStaticData('node') as WatchState;
		const found = detectChanges(state, looked, { now, reportFirstSightings: options.reportFirstSightings ?? false });
		// The list is the whole watch: companies taken off it are forgotten at once.
		keepOnly(state, keys);
		if (found.length === 0) return null;
		return [found.map((change) => ({ json: changeItemJson(change, now) as IDataObject }))];
	}
}
