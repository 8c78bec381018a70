import type { Clock } from '../../nodes/shared/transport/wait';

/**
 * n8n's poll budget, ended by the test (`endBudget`), not by time: every sleep of the trigger's clock (the
 * budget's own timer) waits until then, or until its signal aborts.
 */
export function budgetClock(): { clock: Clock; endBudget: () => void } {
	let ends: Array<(whole: boolean) => void> = [];
	const clock: Clock = {
		now: () => Date.now(),
		sleep: async (_ms, signal) =>
			await new Promise<boolean>((resolve) => {
				ends.push(resolve);
				signal?.addEventListener('abort', () => resolve(false));
			}),
	};
	const endBudget = () => {
		const pending = ends;
		ends = [];
		for (const end of pending) end(true);
	};
	return { clock, endBudget };
}
