import type { IExecuteFunctions, IPollFunctions } from 'n8n-workflow';

/**
 * Which of n8n's contexts have an execution cancel signal (n8n-core 2.41.1,
 * execution-engine/node-execution-context): the contexts of a node's run, IExecuteFunctions and
 * IExecuteSingleFunctions (BaseExecuteContext: the run's abort signal, aborted by a user's stop, the
 * execution's timeout or a shutdown), and ISupplyDataFunctions, in which an AI agent runs this node as
 * its tool (usableAsTool: n8n-core's makeHandleToolInvocation calls `execute` with it). A poll
 * (IPollFunctions: the trigger), trigger, webhook, hook or load-options context has none, nor has any
 * context of an n8n older than the method (n8n-io/n8n#6141, 2023). So it is asked for by whether the
 * context has it, as n8n's own httpRequestWithAuthentication asks (request-helpers/authentication.js).
 */
type NodeContext = IExecuteFunctions | IPollFunctions;

/** The execution's cancel signal, or undefined in a context that has none. */
export function executionCancelSignal(context: NodeContext): AbortSignal | undefined {
	return 'getExecutionCancelSignal' in context ? context.getExecutionCancelSignal() : undefined;
}

/**
 * The context with `signal` as its execution's cancel signal, everything else its own: for a poll that
 * must stop at n8n's budget, and for the one request whose deadline ends it. Both executionCancelSignal
 * and n8n's httpRequestWithAuthentication read it from such a context.
 */
export function withExecutionCancelSignal<Context extends NodeContext>(
	context: Context,
	signal: AbortSignal,
): Context {
	return Object.create(context, {
		getExecutionCancelSignal: { value: () => signal },
	}) as Context;
}
