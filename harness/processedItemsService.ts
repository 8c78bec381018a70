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
	service ??= serviceOfThisN8nCore();
	service.current = store;
}

/**
 * n8n-core allows its service one set-up a process. A jest worker loads n8n-core once for all its test
 * files (test/workerContextEnvironment.js), so a later file finds the service an earlier file set up, and
 * hands its own stores to that one.
 */
function serviceOfThisN8nCore(): CurrentStore {
	// An earlier file's CurrentStore: of that file's evaluation of this module, so not `instanceof` this one.
	const earlier = (
		DataDeduplicationService as unknown as { instance?: { deduplicator: CurrentStore } }
	).instance?.deduplicator;
	if (earlier) return earlier;
	const made = new CurrentStore();
	void DataDeduplicationService.init(made);
	return made;
}
