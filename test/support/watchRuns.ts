import type { IDataObject, INodeExecutionData, INodeParameters } from 'n8n-workflow';

import type { Engine } from '../../harness/engine';
import { loadWorkflow } from '../../harness/engine';
import { REGISTRY_NODE } from '../../harness/fixtures';
import type { ProcessedItemsStore } from '../../nodes/shared/watch/storeRow';

// Watch for Changes as its engine tests run it (watch.operation, watch.queueMode): the watch workflow,
// its node's row in the engine's processed-items store, and a production run.

/** The Company Registry node's id in watch-companies.json: n8n's store keys the node's row by it. */
export const WATCH_NODE_ID = '5b0e8a51-6f0c-4d8e-9a57-1a2f3c4d5e02';

export const LIST = [
	{ country: 'de', companyId: 'HRB12345' },
	{ country: 'gb', companyId: '04417982' },
	{ country: 'nl', companyId: '68750123' },
];

/** The watch node's row in the engine's processed-items store, as the node's helpers reach it. */
export function watchRow(engine: Engine): ProcessedItemsStore {
	const store = engine.processedItems;
	const node = { workflow: { id: 'watch-workflow' }, node: { id: WATCH_NODE_ID } } as never;
	return {
		checkProcessedAndRecord: async (items, scope, options) =>
			await store.checkProcessedAndRecord(items, scope, node, options),
		clearAllProcessedItems: async (scope) => await store.clearAllProcessedItems(scope, node),
		getProcessedDataCount: async (scope, options) =>
			await store.getProcessedDataCount(scope, node, options),
		removeProcessed: async (items, scope, options) =>
			await store.removeProcessed(items, scope, node, options),
	};
}

export function watchWorkflow(
	options: IDataObject = {},
	onError?: 'continueErrorOutput' | 'continueRegularOutput',
) {
	const workflow = loadWorkflow('test/workflows/watch-companies.json');
	const node = workflow.nodes.find((candidate) => candidate.name === REGISTRY_NODE)!;
	node.parameters = { ...node.parameters, options } as INodeParameters;
	if (onError) node.onError = onError;
	return workflow;
}

export async function watch(
	engine: Engine,
	rows: IDataObject[] = LIST,
	options: IDataObject = {},
	extra: {
		mode?: 'trigger' | 'manual';
		onError?: 'continueErrorOutput' | 'continueRegularOutput';
		onWorker?: boolean;
	} = {},
): Promise<{ changes: INodeExecutionData[]; errors: INodeExecutionData[] }> {
	const result = await engine.execute(watchWorkflow(options, extra.onError), {
		rows,
		mode: extra.mode ?? 'trigger',
		onWorker: extra.onWorker,
	});
	const [changes = [], errors = []] = result.outputOf(REGISTRY_NODE);
	return { changes, errors };
}
