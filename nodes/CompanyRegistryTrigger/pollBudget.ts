import { NodeOperationError, type IPollFunctions } from 'n8n-workflow';

import { withExecutionCancelSignal } from '../shared/executionCancelSignal';
import type { CompanyRow } from '../shared/lookupPipeline';
import type { Clock } from '../shared/transport/wait';

/** The share of n8n's budget spent on lookups: the rest is for comparing, saving and handing over. */
const LOOKUP_SHARE = 0.9;

/**
 * The time n8n gives this poll, if it says (n8n 2.41.1: 5 minutes; under its durable scheduler
 * min(poll timeout, lease) less a margin, and a poll past the timeout is abandoned with its items and
 * its static data). Older n8n versions have no budget.
 */
export function pollBudgetMs(context: IPollFunctions): number | undefined {
	const budget =
		typeof context.getPollBudgetMs === 'function' ? context.getPollBudgetMs() : undefined;
	return typeof budget === 'number' && Number.isFinite(budget) && budget > 0 ? budget : undefined;
}

export interface BudgetedPoll {
	/** The poll's context, whose lookups are cancelled once the budget's lookup share has passed. */
	context: IPollFunctions;
	/** True once the lookups were stopped for the budget. */
	readonly stopped: boolean;
	/** Ends the timer: call when the lookups are over. */
	end(): void;
}

/**
 * The part of an abort signal that lookUpRows and registryRequest use of the execution's: `aborted` and
 * 'abort' listeners, one per lookup in flight. A real AbortSignal makes Node warn of a leak past 10
 * listeners at every poll (n8n lifts that limit on its executions' signals with node:events, which this
 * package may not import).
 */
class StopSignal {
	aborted = false;
	private readonly listeners = new Set<() => void>();

	addEventListener(_type: 'abort', listener: () => void): void {
		if (this.aborted) listener();
		else this.listeners.add(listener);
	}

	removeEventListener(_type: 'abort', listener: () => void): void {
		this.listeners.delete(listener);
	}

	abort(): void {
		if (this.aborted) return;
		this.aborted = true;
		const listeners = [...this.listeners];
		this.listeners.clear();
		for (const listener of listeners) listener();
	}
}

/**
 * Lookups still waiting (for a permit, a Retry-After, an answer) when the budget's lookup share has
 * passed are cancelled: they come back as cancelled rows, which the trigger checks at the next poll.
 */
export function budgetedPoll(
	context: IPollFunctions,
	clock: Clock,
	budgetMs: number,
): BudgetedPoll {
	const stop = new StopSignal();
	const ended = new AbortController();
	void clock.sleep(budgetMs * LOOKUP_SHARE, ended.signal).then((whole) => {
		if (whole) stop.abort();
	});
	// lookUpRows and registryRequest take the execution's cancel signal; a poll context has none.
	return {
		context: withExecutionCancelSignal(context, stop as unknown as AbortSignal),
		get stopped() {
			return stop.aborted;
		},
		end: () => ended.abort(),
	};
}

/** The failed check of a company whose lookup the budget stopped after it had the whole poll. */
export function outlastedBudget(
	context: IPollFunctions,
	row: CompanyRow,
	budgetMs: number | undefined,
): Extract<CompanyRow, { kind: 'failed' }> {
	const seconds = Math.round((budgetMs ?? 0) / 1000);
	return {
		kind: 'failed',
		itemIndex: row.itemIndex,
		key: row.key,
		cause: 'no-response',
		error: new NodeOperationError(
			context.getNode(),
			`This company's lookup did not finish within the time n8n gives a poll (${seconds} s)`,
			{
				itemIndex: row.itemIndex,
				description:
					'It had the whole poll: the registry did not answer it in time, or asked to wait (Retry-After) or failed and was retried past that time. Its last known state is kept; the next polls try again.',
			},
		),
	};
}
