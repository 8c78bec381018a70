/**
 * Where chance comes from, injected like the clock: Math.random in n8n, a seeded stream in the unit
 * tests and bench:sim (one per simulated process), so that a run is the same for the same seed.
 * Chance breaks the symmetry of queue-mode workers sharing one limit: workers that met the same 429
 * with the same pace would otherwise resume in step, and the followers meet a 429 at every request.
 */
export type Random = () => number;

export const realRandom: Random = () => Math.random();

/**
 * Full jitter (AWS's "Exponential Backoff And Jitter"): a share of `ms` drawn uniformly from [0, 1),
 * so that workers refused together start again at moments of their own.
 */
export function jitter(random: Random, ms: number): number {
	return random() * ms;
}
