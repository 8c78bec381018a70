import type { ICheckProcessedOptions } from 'n8n-workflow';

import type { ProcessedItemsStore as HarnessStore } from '../../../harness/processedItems';
import type { CompanyRecord } from '../../../nodes/shared/model/companyRecord';
import type { ProcessedItemsStore } from '../../../nodes/shared/watch/processedItemsMemory';

/** The node n8n's store keys the row by. */
export const STORE_CONTEXT = { workflow: { id: 'w' }, node: { id: 'n' } } as never;

/** The harness's copy of n8n's store, as a node's helpers reach it. */
export function helpersOf(store: HarnessStore): ProcessedItemsStore {
	return {
		checkProcessedAndRecord: async (items, scope, options) =>
			await store.checkProcessedAndRecord(items, scope, STORE_CONTEXT, options),
		clearAllProcessedItems: async (scope) =>
			await store.clearAllProcessedItems(scope, STORE_CONTEXT),
		getProcessedDataCount: async (scope, options: ICheckProcessedOptions) =>
			await store.getProcessedDataCount(scope, STORE_CONTEXT, options),
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
