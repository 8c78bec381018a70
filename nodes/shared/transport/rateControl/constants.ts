/**
 * Every tuned figure of the rate controller, in one place, each with why it has its value. The bench
 * (`npm run bench:sim`, `npm run bench`) is what they were tuned against: change one, run both.
 */

/** The longest first pause at a 429: long enough for a bucket to refill a little, short enough that a sheet barely notices. */
export const FIRST_PAUSE_MAX_MS = 1_000;
/** Before a limit is known, a spell this long with nothing sent or answered starts the count of what was admitted afresh. */
export const QUIET_SPELL_MS = 1_000;
/** Fewer answers than this before the first 429 say nothing of a rate (one company that always meets 429, a quota). */
export const MIN_ANSWERS_FOR_RATE = 5;
/** The longest pause of a storm (doubling from a second): a registry that refuses everything is asked again at least this often. */
export const STORM_PAUSE_MAX_MS = 8_000;
/** Waves of 429s with nothing admitted between them, each saying to wait beyond STORM_PAUSE_MAX_MS, that make a spent quota (one could be a single company's). */
export const SPENT_QUOTA_WAVES = 2;
/** Congestion events closer together than this, with nothing admitted between them, count towards a storm. */
export const STORM_WINDOW_MS = 2_000;
/** Waves within STORM_WINDOW_MS, nothing admitted, that make a storm: two could be one wave split by latency. */
export const STORM_EVENTS = 3;
/** A 429 to a request sent this soon after the last burst of saved-up credit is the burst's fault. */
export const BURST_BLAME_MS = 1_000;
/** The shortest span over which the rate the registry admitted is measured at a 429 wave: a second, a limit's usual unit. */
export const ADMITTED_SPAN_MS = 1_000;
/**
 * A wave this soon after a search per round trip's end reads a second mostly within the search's climb
 * (search.ts `searchWave`): only then is what it admitted a floor of the limit. Later, most of the
 * second lies past the search, and the wave is often another worker's token taken (bench:sim s86:
 * marked at 858 ms, three workers at 110/s burst 1, 5.34x -> 6.31x the floor; at half a second 5.34x,
 * the burst-2-4 searches it serves (s18, s255, seed 2 s184) unchanged).
 */
export const SEARCH_OVERSHOT_SPAN_MS = ADMITTED_SPAN_MS / 2;
/** The longest such span, and how long admissions are remembered: older ones describe another moment. */
export const ADMITTED_SPAN_MAX_MS = 5_000;
/** Answers the span should hold at a slow pace: a few answers more or less would swing the figure. */
export const ADMITTED_SPAN_ANSWERS = 20;
/** Waves of 429s no further apart than this are one spell of congestion. */
export const CONGESTION_SPELL_MS = 1_000;
/** The first request after a window's reset refused (the reset reckoned early): nobody sends this long, doubling in a row. */
export const EARLY_RESET_HOLD_MS = 25;
/** The shortest pause, and the shortest wait for a window's reset, whatever the headers say (a pause of 0 is a retry storm). */
export const MIN_WAIT_MS = 100;
/**
 * Lookups left (every execution here) from which a first pause asks once the registry told no wait beyond
 * it, or once an admission's round trip is known (windowTurn.ts askFirstTurn): the ask finds a fast bucket
 * of small burst at once. Below this the lookups left gain little, and where workers share a bucket of a
 * burst of one, an ask admitted by chance paces one above its share: at 0, bench:sim seed 4 s65 (two
 * workers, 60 lookups each, 3/s) failed 47 rows by the limit; at 100 none, and seeds 1-6 gain as much.
 */
export const ASK_MIN_WORK = 100;
/** After a refusal that suggests a window, how long until one request alone tells window from bucket. */
export const CONFIRM_AFTER_MS = 100;
/** How far behind the pace a late timer may let requests catch up at once. */
export const CATCH_UP_MS = 50;
/** Growth per answer of the pace towards the last event's rate: back near the limit within a few dozen answers. */
export const RECOVERY_PER_ANSWER = 0.05;
/** Before any congestion event while paced the first estimate may be low: find the limit quickly. */
export const SEARCH_GROWTH_PER_SECOND = 0.25;
/**
 * Work left that would take this long at a first wave's pace makes a search doubling each second worth
 * a window's overshoot (search.ts, searchGrowth): a token bucket's refill may be many times that pace.
 * Tuned on bench:sim: at 60 s (LONG_WORK_S) it sped up too late to matter (s271 2.43 -> 2.25); at 10 or
 * 20 s, 1 s windows and logs met by shorter sheets overshot (s103, s123, s225 crossed 1.15); at 30 s a 1 s
 * window's 429s crossed 2% (seed 2 s47, 1.8% -> 2.1%).
 */
export const SEARCH_LONG_WORK_S = 36;
/**
 * A pace that is only a floor (a first wave admitted too few to measure a rate, a bucket of small burst)
 * doubles each second, as TCP's slow start: from 1/s it meets a limit of 500/s within 9 s, and the wave
 * it ends in measures the limit.
 */
export const LOWER_BOUND_GROWTH_PER_SECOND = 1;
/**
 * A search from a lower bound where the registry showed it refills (search.ts, refillShown) doubles per
 * round trip, but over no fewer answers than this: each step then at most 19%, fine enough for the
 * wave that ends it to tell the limit, which one round trip's steps overshoot at most once more.
 */
export const SEARCH_DOUBLING_ANSWERS = 4;
/**
 * The smallest first-wave burst a search's refill is reckoned against (search.ts refillShown): more than
 * twice this admitted within a second shows a registry that refills. Twice the first wave alone proves
 * it for one client, but a worker's first wave of one may be its share of a shared bucket's burst: at 1,
 * workers sharing a burst-1 bucket searched per round trip into each other (bench:sim seed 1 s201 14
 * rows failed, s70, s170; seed 2 s45) and s156 (6/s) crossed 1.15. At SEARCH_DOUBLING_ANSWERS (4, the
 * rule before) a bucket of 4-8 a second and a burst of 1-2 showed it after seconds of doubling, or
 * never, its ceiling then what the slow search admitted (s182 1.72x, s248 1.59x, seed 2 s99 1.31x).
 */
export const REFILL_SHOWN_MIN_BURST = 2;
/** Beyond the last event's rate: slow enough that the 429 wave it ends in is rare, fast enough to find a limit that rose. */
export const PROBE_GROWTH_PER_SECOND = 0.02;
/**
 * Beyond the last event's rate, a pace others spend too (pace.ts `shared`) grows this much a second from
 * its first answer: such a limit refuses a share of our requests whatever our pace (a bucket of burst 1
 * refuses whoever comes within a token of another's admission), and each refusal is a wave that cuts the
 * pace by about that share. Against PROBE_GROWTH_PER_SECOND the cuts won at a fifth of the limit between
 * three workers (bench:sim s86, 110/s: 9.9x the floor). Tuned on bench:sim: at 0.15 s86 went to 8.2x and
 * seed 2 s45 barely moved (2.65 -> 2.62); at 0.3 s86 7.7x, s45 1.91, s190 1.93 -> 1.53; at 0.5 s86 6.3x
 * but s45 2.53, s190 1.61.
 */
export const SHARED_PROBE_GROWTH_PER_SECOND = 0.3;
/**
 * Admissions since the last wave after which a 429 on a pace others spend too is theirs (workers.ts
 * `othersRefusal`): at most one request in six refused, where a pace over a limit meets one in two (a
 * bucket of burst 1) or a run of them. Tuned on bench:sim (seed 1 s86, seed 2 s45: three and four
 * workers at 110/s and 5/s, burst 1): at 0, s86 5.15x the floor but s45 1.91x -> 2.16x and a row failed;
 * at 2, 5.66x and 2.02x; at 5, 5.34x and 1.93x; at 10, 5.81x and 1.91x.
 */
export const OTHERS_REFUSAL_ANSWERS = 5;
/**
 * Admissions with no congestion event after which the probe beyond the last event's rate speeds up
 * (pace.ts): more than a pace at the limit gets between its waves, more than a sheet of 20 rows at a
 * limit of one a second has.
 */
export const PROBE_QUIET_ANSWERS = 50;
/** ...and this long: longer than a window of a few seconds, paced exactly, goes without a 429. */
export const PROBE_QUIET_MS = 5_000;
/** Beyond PROBE_QUIET_MS, the time over which the probe's growth doubles (with PROBE_DOUBLING_ANSWERS, whichever is slower). */
export const PROBE_DOUBLING_MS = 1_000;
/** Beyond PROBE_QUIET_ANSWERS, quiet admissions over which the probe's growth doubles: 2% to 100% a second in about 60. */
export const PROBE_DOUBLING_ANSWERS = 10;
/**
 * Work left that would take this long at the pace makes probing worth its 429s (pace.ts): one row's
 * Retry-After against a minute of every row waiting on a pace that may be far below the limit.
 */
export const LONG_WORK_S = 60;
/** With less work left than this many seconds at the pace, the pace stops probing beyond the last event's rate. */
export const END_OF_WORK_S = 2;
/** The window over which the registry's refill rate is estimated from X-RateLimit-Remaining. */
export const REFILL_WINDOW_MS = 3_000;
/** The shortest span of counts that tells a refill rate: shorter, one request more or less swings it. */
export const REFILL_SPAN_MIN_MS = 500;
/**
 * A 429 while the registry's count still leaves this many requests comes from another limit than the
 * count's: more than the few requests other clients of a shared limit spend within one round trip.
 */
export const QUOTA_LEFT_AT_429 = 10;
/** A remaining budget older than this no longer describes the registry. */
export const REMAINING_TTL_MS = 5_000;
/**
 * A count others spent too (count.ts) is halved until this long after the last refusal that showed it:
 * the span its refill is measured over, which by then no longer counts the others' spending. Halved for
 * good, a worker left alone with a small burst went on at its share's refill (bench:sim seed 2 s200,
 * four workers: 1.111 -> 1.159); where the others still spend, the next refusal says so again.
 */
export const SHARED_COUNT_QUIET_MS = REFILL_WINDOW_MS;
/** A controller nobody used for this long starts afresh (the limit may have changed). */
export const IDLE_RESET_MS = 10 * 60_000;
/** The moving average of latency: a tenth per answer follows a change within a few dozen answers. */
export const LATENCY_SMOOTHING = 0.1;
/** The lowest pace a wave may leave: a request every 10 s still learns when the limit comes back. */
export const MIN_RATE = 0.1;
/** At a wave the pace to climb back to is at most this much above the pace that met it... */
export const WAVE_CEILING_ABOVE = 1.25;
/** ...and at least this share of it: one second of few answers must not halve the pace twice. */
export const WAVE_CEILING_BELOW = 0.5;
/** Every wave lowers the pace at least this much: 5% is one decrease that a few waves make count. */
export const WAVE_DECREASE = 0.95;
/** After a wave, a burst of credit at most a tenth of a second at the pace (rate / 10): the registry just refused one. */
export const WAVE_BURST_PARTS_OF_SECOND = 10;
/**
 * A 429 saying 0 left with a reset further than this is a window's or a quota's, waited for whole: a
 * bucket's next token is at most a second away, told in whole seconds (as Unix time, up to 2 s).
 */
export const TOLD_RESET_MIN_MS = 2_000;
/** The first pause of a storm, doubling up to STORM_PAUSE_MAX_MS. */
export const STORM_PAUSE_MS = 1_000;
/**
 * A storm's pause where no Retry-After says how long is a guess: at a fast pace this much, doubling up
 * to STORM_PAUSE_MS. A window that refuses until a reset nobody told (of a second, usually) resets
 * within the guess; a second-long guess ended on average halfway into the next window, its budget half
 * unspent (bench:sim n8n-fixed-window-no-headers, windowBare.test.ts).
 */
export const STORM_UNTOLD_PAUSE_MS = 400;
/**
 * ...but never shorter than this many requests at the pace: at a slow pace a shorter guess gains a
 * request or two, each likely refused, and cuts the pace at the wave it meets (bench:sim s43, s91, s166).
 */
export const STORM_UNTOLD_PAUSE_REQUESTS = 40;
/**
 * A window's length is whole seconds as registries state them: its turns, however many seconds apart,
 * fall at one phase of this period (windowTurn.ts).
 */
export const TURN_PERIOD_MS = 1_000;
/** Brackets on one phase before a learned turn ends an untold storm's pause: one could be a bucket's chance. */
export const TURN_BRACKETS = 2;
/**
 * A learned turn wider than this is halved at each pause (windowTurn.ts nextTurn): a pause ended at its
 * late edge would lose up to its width of every window, and an admission only ever narrows it to where
 * we sent. Narrower, a pause ends at its late edge: at most a hundredth of a one-second window lost.
 */
export const TURN_NARROW_MS = 10;
/**
 * A count the registry admitted requests beyond (count.ts countAdmitted), on a 429 with 0 left and its
 * same reset this far away or further, is not believed: a quota's reset (an hour's, a day's) the registry
 * let us past; paused until it, every row failed at once (bench:sim seed 5 s62: 270 rows). A window's
 * reset of seconds told by the same fields is (seed 5 s207: 0.1% -> 2.6% 429s when doubted at 10 s).
 */
export const OVERRUN_RESET_DOUBTED_MS = 60_000;
/**
 * Admissions past a count's 0 (count.ts countAdmitted) that a counter lagging behind its own admissions
 * lets through before it refuses; beyond them the registry is not enforcing that count. A handful: a
 * quota enforced with a count one behind admits two past its 0, four behind five (bench:sim --guards);
 * one the registry does not enforce goes on admitting at the pace it is sent (seed 4 s178: 9,000 rows).
 * Each admission waited for before is paced as the count's refill (about 0.05x the floor each in
 * countOverrun.test's two workers: 1.15 at one, 1.35 at five, 1.55 at ten).
 */
export const OVERRUN_ADMISSIONS = 5;
/** A window's refusal that tells no reset nor Retry-After: a second, the usual unit of a limit. */
export const WINDOW_FALLBACK_RESET_MS = 1_000;
/** The early-reset hold doubles at most this many times (25 ms to 1.6 s). */
export const EARLY_RESET_DOUBLINGS = 6;
/**
 * 429 waves in a row with nothing admitted, at the floor pace, that make a worker in step with another
 * (workers.ts): two are a pace meeting its limit (a sliding window's), three at a floor are not.
 */
export const IN_STEP_WAVES = 3;
/** A pace within 3% of the last wave's rate is back: from there it probes slowly instead of climbing. */
export const RECOVERED_SHARE = 0.97;
/**
 * Counts that say ours alone (count.ts `othersSpend` false) for this long: the others stopped spending
 * the quota, and the pace is no longer shared (transitions.ts). Two windows of counts (REFILL_WINDOW_MS):
 * one window read ours alone at times while workers still shared the quota (bench:sim s86 5.34 -> 5.53x
 * its floor, seed 2 s45 1.93 -> 2.28x); two read none.
 */
export const SHARED_QUIET_MS = 2 * REFILL_WINDOW_MS;

/**
 * A sliding log's lead found fewer others in it than this share of ours that went less than a window
 * before it: no log (slidingLog.ts leadReset). A log holds every one of them, but a few of ours the
 * count did not see (a fault, an arrival at the window's edge) made a log of 46 look like none: 40
 * found for 43 (bench:sim s272, 1.153 -> 1.241 at "fewer than all"). A fixed window beside workers is
 * found holding a few of theirs for dozens of ours (s57 of seed 2: 2 for 9).
 */
export const LOG_HOLDS_OURS_SHARE = 0.5;
