import { createHash } from 'node:crypto';

import type {
	DeduplicationItemTypes,
	DeduplicationScope,
	ICheckProcessedContextData,
	ICheckProcessedOptions,
	IDataDeduplicator,
	IDeduplicationOutput,
} from 'n8n-workflow';

/**
 * n8n's processed-items store (what the deduplication helpers reach), in memory: one Engine's "database".
 * It follows n8n 2.41.1's DeduplicationHelper (dist/deduplication/deduplication-helper.js), the
 * implementation n8n main and workers use: one row per workflow and context (`n:<node id>` for scope
 * 'node'), values kept as MD5 hashes in the order they came, the oldest dropped beyond `maxEntries`.
 * Only the 'entries' mode, the one this package uses; the others are refused rather than imitated.
 * Measured there: checkProcessedAndRecord reads the row, answers from a Set and writes the row back
 * (linear in row and items); removeProcessed runs a findIndex and a splice over the row per item removed
 * (items × row); clearAllProcessedItems deletes the row; 'latestIncrementalKey' and 'latestDate' keep one
 * value per row, so they cannot hold one company's state apart from another's.
 */
export class ProcessedItemsStore implements IDataDeduplicator {
	/** The rows, by workflow id and context: a copy is read and the whole row written back, as n8n does. */
	private readonly rows = new Map<string, DeduplicationItemTypes[]>();
	/** Calls made, for tests that count round trips. */
	calls = 0;
	/** Set to make the next calls fail, as a database that cannot be reached. */
	failWith: Error | undefined;
	/**
	 * Entries compared or moved by n8n's code, as its loops go (a Set lookup counts one, `findIndex` counts
	 * every entry it passes): the store's work, counted instead of timed.
	 */
	work = 0;
	/** A smaller capacity than the node asks for: 10 companies can stand for 100,000 at the store's limit. */
	capacity: number | undefined;

	private rowKey(scope: DeduplicationScope, contextData: ICheckProcessedContextData): string {
		if (!contextData.workflow.id) throw new Error('n8n asserts a workflow id');
		if (scope === 'node' && !contextData.node)
			throw new Error("No node information has been provided and so cannot use scope 'node'");
		return `${contextData.workflow.id} ${scope === 'node' ? `n:${contextData.node!.id}` : ''}`;
	}

	private check(options: ICheckProcessedOptions): void {
		this.calls += 1;
		if (this.failWith) throw this.failWith;
		if (options.mode !== 'entries')
			throw new Error(
				`The harness's processed-items store knows only mode "entries", not "${options.mode}"`,
			);
	}

	private maxEntries(options: ICheckProcessedOptions): number | undefined {
		if (this.capacity === undefined) return options.maxEntries;
		return Math.min(this.capacity, options.maxEntries ?? Infinity);
	}

	async checkProcessedAndRecord(
		items: DeduplicationItemTypes[],
		scope: DeduplicationScope,
		contextData: ICheckProcessedContextData,
		options: ICheckProcessedOptions,
	): Promise<IDeduplicationOutput> {
		this.check(options);
		const key = this.rowKey(scope, contextData);
		const hashes = items.map(hash);
		const row = this.rows.get(key);
		this.work += items.length + (row?.length ?? 0);
		if (!row) {
			this.rows.set(key, trim(hashes, this.maxEntries(options)));
			return { new: items, processed: [] };
		}
		const saved = new Set(row);
		const data = [...row];
		const output: IDeduplicationOutput = { new: [], processed: [] };
		hashes.forEach((value, index) => {
			if (saved.has(value)) output.processed.push(items[index]);
			else {
				output.new.push(items[index]);
				data.push(value);
			}
		});
		this.rows.set(key, trim(data, this.maxEntries(options)));
		return output;
	}

	async removeProcessed(
		items: DeduplicationItemTypes[],
		scope: DeduplicationScope,
		contextData: ICheckProcessedContextData,
		options: ICheckProcessedOptions,
	): Promise<void> {
		this.check(options);
		const key = this.rowKey(scope, contextData);
		const row = this.rows.get(key);
		if (!row) return;
		const data = [...row];
		this.work += data.length;
		for (const value of items.map(hash)) {
			const at = data.indexOf(value);
			// n8n's findIndex passes the entries up to the match (all of them when there is none), the splice moves the rest.
			this.work += data.length;
			if (at !== -1) data.splice(at, 1);
		}
		this.rows.set(key, data);
	}

	async clearAllProcessedItems(
		scope: DeduplicationScope,
		contextData: ICheckProcessedContextData,
	): Promise<void> {
		this.calls += 1;
		if (this.failWith) throw this.failWith;
		this.rows.delete(this.rowKey(scope, contextData));
	}

	async getProcessedDataCount(
		scope: DeduplicationScope,
		contextData: ICheckProcessedContextData,
		options: ICheckProcessedOptions,
	): Promise<number> {
		this.check(options);
		this.work += this.rows.get(this.rowKey(scope, contextData))?.length ?? 0;
		return this.rows.get(this.rowKey(scope, contextData))?.length ?? 0;
	}

	/** How many entries a workflow's node keeps (by node id). */
	entriesOf(workflowId: string, nodeId: string): number {
		return this.rows.get(`${workflowId} n:${nodeId}`)?.length ?? 0;
	}
}

const hash = (value: DeduplicationItemTypes) =>
	createHash('md5').update(value.toString()).digest('base64');

function trim(
	values: DeduplicationItemTypes[],
	maxEntries: number | undefined,
): DeduplicationItemTypes[] {
	return maxEntries ? values.slice(Math.max(0, values.length - maxEntries)) : values;
}
