/**
 * The watch's clock: when a check happened, how long a company has been failing. One object, so that
 * tests can move time on (a day passes between two polls) without touching the timers HTTP relies on.
 */
export const watchClock = {
	now: (): Date => new Date(),
};
