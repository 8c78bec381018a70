// npm run bench:sim [-- --seed 1] [--count 300] [--only s12[,s29...]] [--quiet] [--matrix | --changing] [--trace]
// The real rate controller and batch runner on a virtual clock against simulated registries (no sockets,
// no real waits): one line per limiter configuration drawn from the seed, and last the figures over
// every configuration whose limit lets the sheet finish within Max Rate-Limit Wait. Deterministic for a seed.
// --trace prints, each virtual second, every process's requests, 429s and pace (with --only).
// --matrix runs `npm run bench`'s eight scenarios instead, to set beside its real-time figures.
// --changing runs limits that change during the run instead (changing.ts): halved, raised, a window
// lengthened, a budget refilled mid-run.
// --requests <file> writes every request (arrival, answer, status) of the run, with --only, in the form
// of test:n8n's scale trace (TEST_N8N_TRACE), for windowTrace.ts; --phase <ms> starts the virtual clock
// that far into a second (real runs start anywhere in a window aligned to the clock).
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

import type { LookupTraceEntry } from '../../sandbox/server';
import { describe, drawScenarios, matrixScenarios } from './catalogue';
import { changingScenarios } from './changing';
import { runScenario, startingWithinSecond, summarize } from './simulate';

const { values } = parseArgs({
	options: {
		seed: { type: 'string', default: '1' },
		count: { type: 'string', default: '300' },
		only: { type: 'string' },
		quiet: { type: 'boolean', default: false },
		matrix: { type: 'boolean', default: false },
		changing: { type: 'boolean', default: false },
		trace: { type: 'boolean', default: false },
		requests: { type: 'string' },
		phase: { type: 'string' },
	},
});

async function main(): Promise<void> {
	const wallStart = performance.now();
	const seed = Number(values.seed);
	const scenarios = (
		values.matrix
			? matrixScenarios()
			: values.changing
				? changingScenarios()
				: drawScenarios(seed, Number(values.count))
	).filter(
		// --only s12 or a list (--only s12,s29): the scenarios a change moved, without the other 300.
		(scenario) => values.only === undefined || values.only.split(',').includes(scenario.name),
	);
	const results = [];
	for (const scenario of scenarios) {
		const requestLog: LookupTraceEntry[] | undefined = values.requests ? [] : undefined;
		const clockOptions =
			values.phase === undefined ? {} : startingWithinSecond(Number(values.phase));
		const result = await runScenario(
			scenario,
			seed,
			clockOptions,
			values.trace ? console.log : undefined,
			requestLog,
		);
		results.push(result);
		if (values.requests && requestLog)
			writeFileSync(
				values.requests,
				JSON.stringify({
					family: scenario.name,
					windowMs: scenario.registry.limiter.windowMs,
					nodeStartedAt: result.startedAt,
					nodeMs: result.ms,
					floorMs: result.floorMs,
					lookups: requestLog,
					controller: [],
				}),
			);
		if (!values.quiet) {
			const ratio = result.vsFloor === undefined ? 'n/a' : result.vsFloor.toFixed(3);
			console.log(
				`sim: ${scenario.name} vs_floor=${ratio} share_429=${result.share429.toFixed(4)} failed_by_limit=${result.failedByLimit} other_failed=${result.otherFailed} s=${(result.ms / 1000).toFixed(2)}${result.eligible ? '' : ' (beyond Max Rate-Limit Wait)'} | ${describe(scenario)}`,
			);
		}
	}
	console.log(summarize(results, (performance.now() - wallStart) / 1000));
}

void main();
