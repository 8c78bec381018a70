import {
	ExecuteContext,
	ExecuteSingleContext,
	HookContext,
	LoadOptionsContext,
	PollContext,
	SupplyDataContext,
	TriggerContext,
	WebhookContext,
} from 'n8n-core';

import { executionCancelSignal } from '../../nodes/shared/executionCancelSignal';

type Context = Parameters<typeof executionCancelSignal>[0];

/** An instance of one of n8n-core's context classes, with only the run's abort signal set. */
const contextOf = (type: { prototype: object }, abortSignal?: AbortSignal) =>
	Object.create(type.prototype, { abortSignal: { value: abortSignal } }) as Context;

// What executionCancelSignal.ts says of n8n's contexts, against the n8n-core this package is tested with:
// should a later n8n give a poll a cancel signal, this fails, and the trigger's own budget signal
// (pollBudget.ts) is to be looked at again.
describe("n8n-core's contexts and the execution's cancel signal", () => {
	it.each([
		['a node run (IExecuteFunctions)', ExecuteContext],
		['a run item by item (IExecuteSingleFunctions)', ExecuteSingleContext],
		["an AI agent's tool call (ISupplyDataFunctions)", SupplyDataContext],
	])("%s gives the run's signal", (_name, type) => {
		const stop = new AbortController();
		expect(executionCancelSignal(contextOf(type, stop.signal))).toBe(stop.signal);
	});

	it.each([
		['a poll (IPollFunctions)', PollContext],
		['a trigger', TriggerContext],
		['a webhook', WebhookContext],
		['a hook', HookContext],
		['load options', LoadOptionsContext],
	])('%s has none', (_name, type) => {
		expect('getExecutionCancelSignal' in type.prototype).toBe(false);
		expect(executionCancelSignal(contextOf(type, new AbortController().signal))).toBeUndefined();
	});
});
