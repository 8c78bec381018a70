/**
 * Where chance comes from, injected like the clock: Math.random in n8n, a seeded stream in the unit
 * tests and bench:sim (one per simulated process), so that a run is the same for the same seed.
 * Chance breaks the symmetry of queue-mode workers sharing one limit: workers that met the same 429
 * with the same pace would otherwise resume in step, and the followers meet a 429 at every request.
 */
export type Random = () => number;

export const realRandom: Random = () => Math.random();
