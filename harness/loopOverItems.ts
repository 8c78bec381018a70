import {
	deepCopy,
	NodeConnectionTypes,
	type IExecuteFunctions,
	type INodeExecutionData,
	type INodeType,
	type INodeTypeDescription,
	type IPairedItemData,
} from 'n8n-workflow';

/**
 * n8n-nodes-base's Loop Over Items (Split in Batches) v3, as n8n 2.41.1 ships it (SplitInBatchesV3.node.js):
 * the node a user puts before a node to feed it a batch at a time. Its outputs: `done` (every item the
 * loop gave back, once no batch is left) and `loop` (the next batch). Copied, not reimplemented: red-team
 * tests run the Company Registry node once per batch, with what n8n keeps between runs (the node context).
 */
export class LoopOverItems implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Loop Over Items (Split in Batches)',
		name: 'splitInBatches',
		group: ['organization'],
		version: 3,
		description: 'Split data into batches and iterate over each batch',
		defaults: { name: 'Loop Over Items' },
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main, NodeConnectionTypes.Main],
		outputNames: ['done', 'loop'],
		properties: [
			{
				displayName: 'Batch Size',
				name: 'batchSize',
				type: 'number',
				typeOptions: { minValue: 1 },
				default: 1,
			},
			{
				displayName: 'Options',
				name: 'options',
				type: 'collection',
				placeholder: 'Add option',
				default: {},
				options: [{ displayName: 'Reset', name: 'reset', type: 'boolean', default: false }],
			},
		],
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const items = this.getInputData().slice();
		const nodeContext = this.getContext('node');
		const batchSize = this.getNodeParameter('batchSize', 0) as number;
		const returnItems: INodeExecutionData[] = [];
		const options = this.getNodeParameter('options', 0, {}) as { reset?: boolean };
		if (nodeContext.items === undefined || options.reset === true) {
			const sourceData = this.getInputSourceData();
			nodeContext.currentRunIndex = 0;
			nodeContext.maxRunIndex = Math.ceil(items.length / batchSize);
			nodeContext.sourceData = deepCopy(sourceData);
			returnItems.push(...items.splice(0, batchSize));
			nodeContext.items = [...items];
			nodeContext.processedItems = [];
		} else {
			nodeContext.currentRunIndex = (nodeContext.currentRunIndex as number) + 1;
			returnItems.push(...(nodeContext.items as INodeExecutionData[]).splice(0, batchSize));
			const addSourceOverwrite = (pairedItem: IPairedItemData | number) =>
				typeof pairedItem === 'number'
					? { item: pairedItem, sourceOverwrite: nodeContext.sourceData }
					: { ...pairedItem, sourceOverwrite: nodeContext.sourceData };
			const pairedItemOf = (item: INodeExecutionData) => {
				if (item.pairedItem === undefined)
					return { item: 0, sourceOverwrite: nodeContext.sourceData };
				if (Array.isArray(item.pairedItem)) return item.pairedItem.map(addSourceOverwrite);
				return addSourceOverwrite(item.pairedItem);
			};
			const sourceOverwrite = this.getInputSourceData();
			const newItems = items.map((item, index) => ({
				...item,
				pairedItem: { sourceOverwrite, item: index },
			}));
			nodeContext.processedItems = [
				...(nodeContext.processedItems as INodeExecutionData[]),
				...newItems,
			];
			for (const item of returnItems) item.pairedItem = pairedItemOf(item) as IPairedItemData;
		}
		nodeContext.noItemsLeft = (nodeContext.items as INodeExecutionData[]).length === 0;
		if (returnItems.length === 0) {
			nodeContext.done = true;
			return [nodeContext.processedItems as INodeExecutionData[], []];
		}
		nodeContext.done = false;
		return [[], returnItems];
	}
}
