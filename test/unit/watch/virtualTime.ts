import type { Clock } from '../../../nodes/shared/transport/wait';

/**
 * Virtual time for runs that wait their turn: a sleep ends only once every run is idle (nothing but
 * promises already settled), then time moves to the earliest sleeper's end. A run that sleeps a thousand
 * times is looping: the test fails rather than hangs.
 */
export class VirtualTime implements Clock {
	time = 0;
	sleeps = 0;
	private readonly sleepers: Array<{ at: number; wake: (whole: boolean) => void }> = [];
	private scheduled = false;

	now = () => this.time;

	/** As the real clock's: resolves false at once where `signal` aborts first (the sleeper leaves the queue). */
	sleep = async (ms: number, signal?: AbortSignal): Promise<boolean> => {
		if (++this.sleeps > 1000) throw new Error('slept a thousand times: a loop');
		if (signal?.aborted) return false;
		return await new Promise<boolean>((wake) => {
			const sleeper = { at: this.time + ms, wake };
			this.sleepers.push(sleeper);
			signal?.addEventListener('abort', () => {
				const at = this.sleepers.indexOf(sleeper);
				if (at === -1) return;
				this.sleepers.splice(at, 1);
				wake(false);
			});
			this.schedule();
		});
	};

	private schedule(): void {
		if (this.scheduled) return;
		this.scheduled = true;
		setImmediate(() => {
			this.scheduled = false;
			this.sleepers.sort((a, b) => a.at - b.at);
			const next = this.sleepers.shift();
			if (!next) return;
			this.time = Math.max(this.time, next.at);
			next.wake(true);
			if (this.sleepers.length > 0) this.schedule();
		});
	}
}

/** Resolves once every run is idle (every promise that can settle has). */
export const idle = async () => await new Promise<void>((done) => setImmediate(done));
