import type { ICheckProcessedOptions } from 'n8n-workflow';

import type { ProcessedItemsStore as HarnessStore } from '../../../harness/processedItems';
import type { CompanyRecord } from '../../../nodes/shared/model/companyRecord';
import type { ProcessedItemsStore } from '../../../nodes/shared/watch/storeRow';

/** The node n8n's store keys the row by. */
export const STORE_CONTEXT = { workflow: { id: 'w' }, node: { id: 'n' } } as never;

export type StoreMethod = keyof ProcessedItemsStore;

export interface StoreHelpersOptions {
	/** Each call as made: `record <values>`, `clear`, `count`. */
	calls?: string[];
	/** Whether the helpers offer removeProcessed (n8n's do; without it the memory writes the row anew). */
	withRemove?: boolean;
	/** The values of each removeProcessed. */
	removed?: string[][];
	/** Asked before each call reaches the store: an error the call throws instead (a lost connection). */
	fails?: (method: StoreMethod) => Error | undefined;
}

/** The harness's copy of n8n's store, as a node's helpers reach it. */
export function helpersOf(
	store: HarnessStore,
	{ calls, withRemove = false, removed, fails }: StoreHelpersOptions = {},
): ProcessedItemsStore {
	const reach = (method: StoreMethod) => {
		const error = fails?.(method);
		if (error) throw error;
	};
	return {
		checkProcessedAndRecord: async (items, scope, options) => {
			calls?.push(`record ${items.length}`);
			reach('checkProcessedAndRecord');
			return await store.checkProcessedAndRecord(items, scope, STORE_CONTEXT, options);
		},
		clearAllProcessedItems: async (scope) => {
			calls?.push('clear');
			reach('clearAllProcessedItems');
			await store.clearAllProcessedItems(scope, STORE_CONTEXT);
		},
		getProcessedDataCount: async (scope, options: ICheckProcessedOptions) => {
			calls?.push('count');
			reach('getProcessedDataCount');
			return await store.getProcessedDataCount(scope, STORE_CONTEXT, options);
		},
		...(withRemove
			? {
					removeProcessed: async (items, scope, options) => {
						removed?.push(items.map(String));
						reach('removeProcessed');
						await store.removeProcessed(items, scope, STORE_CONTEXT, options);
					},
				}
			: {}),
	};
}

/** A registered company at one address, by status and name. */
export const company = (status: string, officialName = 'Alpha GmbH'): CompanyRecord =>
	({
		isRegistered: true,
		officialName,
		status,
		registrationDate: '2001-01-01',
		registeredAddress: 'Hauptstr. 1',
	}) as CompanyRecord;

/** A company the registry says is not registered, as it answers one. */
export const notRegistered = (): CompanyRecord =>
	({
		isRegistered: false,
		officialName: 'N/A',
		status: 'N/A',
		registrationDate: 'N/A',
	}) as unknown as CompanyRecord;

/** A registered company drawn at random: an address (undefined: none known), a name, then a status. */
export function drawnCompany(
	random: () => number,
	names: string[],
	addresses: Array<string | undefined>,
): CompanyRecord {
	const address = addresses[Math.floor(random() * addresses.length)];
	return {
		isRegistered: true,
		officialName: names[Math.floor(random() * names.length)],
		status: random() < 0.5 ? 'Active' : 'Inactive',
		registrationDate: '2001-01-01',
		...(address ? { registeredAddress: address } : {}),
	} as CompanyRecord;
}
