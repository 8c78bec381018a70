import type { IPollFunctions } from 'n8n-workflow';

import {
	executionCancelSignal,
	withExecutionCancelSignal,
} from '../../nodes/shared/executionCancelSignal';

type Context = Parameters<typeof executionCancelSignal>[0];

const node = { name: 'Company Registry Trigger' };
/** A poll's context: n8n gives it no execution cancel signal. */
const pollContext = () => ({ getNode: () => node }) as unknown as IPollFunctions;

/** A context of a node's run, as n8n's classes make it: the method on the prototype, reading `this`. */
class RunContext {
	constructor(private readonly abortSignal: AbortSignal | undefined) {}

	getExecutionCancelSignal() {
		return this.abortSignal;
	}
}
const runContext = (signal: AbortSignal | undefined) =>
	new RunContext(signal) as unknown as Context;

describe("the execution's cancel signal of an n8n context", () => {
	it("is the one a node run's context gives, read from the context itself", () => {
		const stop = new AbortController();
		expect(executionCancelSignal(runContext(stop.signal))).toBe(stop.signal);
	});

	it('is undefined where the context gives none (a run n8n started without one)', () => {
		expect(executionCancelSignal(runContext(undefined))).toBeUndefined();
	});

	it('is undefined, not an error, in a context without the method (a poll, an older n8n)', () => {
		expect(executionCancelSignal(pollContext())).toBeUndefined();
	});
});

describe('a context given a cancel signal of its own', () => {
	it('a poll context then has one, and everything else of its own', () => {
		const poll = pollContext();
		const budget = new AbortController();
		const bounded = withExecutionCancelSignal(poll, budget.signal);
		expect(executionCancelSignal(bounded)).toBe(budget.signal);
		expect(bounded.getNode()).toBe(node);
		// The poll's own context is left as it was.
		expect(executionCancelSignal(poll)).toBeUndefined();
	});

	it("a run's context then has the new one in place of the execution's", () => {
		const execution = new AbortController();
		const request = new AbortController();
		const run = runContext(execution.signal);
		expect(executionCancelSignal(withExecutionCancelSignal(run, request.signal))).toBe(
			request.signal,
		);
		expect(executionCancelSignal(run)).toBe(execution.signal);
	});
});
