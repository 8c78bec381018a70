import type { Clock } from '../../nodes/shared/transport/wait';
import type { Sandbox } from '../../sandbox/server';

interface Sleeper {
	at: number;
	resolve: (whole: boolean) => void;
}

/**
 * The registry's time for the trigger's poll budget: it moves on by `msPerLookup` with each lookup the
 * sandbox answers, and stands still otherwise. A registry answering one lookup every `msPerLookup` is
 * played without the real wait, and a budget always ends after the same lookups, however loaded the
 * machine. Give the node no pace of its own beside it (no Max Requests per Second), or it waits in
 * real time again.
 */
export function lookupClock(sandbox: Sandbox, msPerLookup: number): Clock {
	let time = Date.UTC(2026, 0, 5, 9, 0, 0);
	const sleepers = new Set<Sleeper>();
	sandbox.onLookup(() => {
		time += msPerLookup;
		// Synchronously, in the sandbox's handler: a budget that ends here stops the lookups before the
		// answer reaches the node, as when the budget ends while the answer is on its way.
		for (const sleeper of [...sleepers])
			if (sleeper.at <= time) {
				sleepers.delete(sleeper);
				sleeper.resolve(true);
			}
	});
	return {
		now: () => time,
		sleep: async (ms, signal) => {
			if (signal?.aborted) return false;
			return await new Promise<boolean>((resolve) => {
				const sleeper: Sleeper = {
					at: time + ms,
					resolve: (whole) => {
						signal?.removeEventListener('abort', onAbort);
						resolve(whole);
					},
				};
				const onAbort = () => {
					sleepers.delete(sleeper);
					sleeper.resolve(false);
				};
				signal?.addEventListener('abort', onAbort, { once: true });
				sleepers.add(sleeper);
			});
		},
	};
}
