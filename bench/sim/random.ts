/** The sandbox's seeded PRNG (mulberry32): the same seed draws the same scenarios and the same jitter. */
export { mulberry32 as seededRandom } from '../../sandbox/faults';
