import { DataDeduplicationService } from 'n8n-core';
import type { IDataDeduplicator } from 'n8n-workflow';

import { ProcessedItemsStore } from './processedItems';

// Apart from the store itself, so that the unit tests of the watch's memory use the store without loading
// n8n-core (seconds of CPU a test file, paid once a mutant by the mutation run).

/**
 * n8n-core reaches the store through one process-wide service, set up once (as n8n's commands do at
 * start). Each Engine is a separate n8n with its own database: the service hands calls to the store of
 * the Engine that runs now.
 */
class CurrentStore implements IDataDeduplicator {
	current = new ProcessedItemsStore();
	checkProcessedAndRecord: IDataDeduplicator['checkProcessedAndRecord'] = async (...args) =>
		await this.current.checkProcessedAndRecord(...args);
	removeProcessed: IDataDeduplicator['removeProcessed'] = async (...args) =>
		await this.current.removeProcessed(...args);
	clearAllProcessedItems: IDataDeduplicator['clearAllProcessedItems'] = async (
		scope,
		contextData,
	) => await this.current.clearAllProcessedItems(scope, contextData);
	getProcessedDataCount: IDataDeduplicator['getProcessedDataCount'] = async (...args) =>
		await this.current.getProcessedDataCount(...args);
}

let service: CurrentStore | undefined;

/** The store `store` becomes the one n8n-core's helpers reach, from now on. */
export function useProcessedItemsStore(store: ProcessedItemsStore): void {
	if (!service) {
		service = new CurrentStore();
		void DataDeduplicationService.init(service);
	}
	service.current = store;
}
