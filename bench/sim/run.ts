// npm run bench:sim [-- --seed 1] [--count 300] [--only s12[,s29...]] [--quiet] [--matrix | --changing | --guards] [--trace]
// The real rate controller and batch runner on a virtual clock against simulated registries (no sockets,
// no real waits): one line per limiter configuration drawn from the seed, and last the figures over
// every configuration whose limit lets the sheet finish within Max Rate-Limit Wait. Deterministic for a seed.
// --trace prints, each virtual second, every process's requests, 429s and pace (with --only).
// --matrix runs `npm run bench`'s eight scenarios instead, to set beside its real-time figures.
// --changing runs limits that change during the run instead (changing.ts): halved, raised, a window
// lengthened, a budget refilled mid-run.
// --guards runs the registries that broke rules judged on the catalogue alone (guards.ts), each against
// what a user expects of it, and last `bench:sim guards=N broken=K`.
// --requests <file> writes every request (arrival, answer, status) of the run, with --only, in the form
// of test:n8n's scale trace (TEST_N8N_TRACE), for windowTrace.ts; --phase <ms> starts the virtual clock
// that far into a second (real runs start anywhere in a window aligned to the clock).
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

import type { LookupTraceEntry } from '../../sandbox/server';
import { describe, drawScenarios, matrixScenarios } from './catalogue';
import { changingScenarios } from './changing';
import { guardScenarios } from './guards';
import { runScenario, startingWithinSecond, summarize } from './simulate';

const { values } = parseArgs({
	options: {
		seed: { type: 'string', default: '1' },
		count: { type: 'string', default: '300' },
		only: { type: 'string' },
		quiet: { type: 'boolean', default: false },
		matrix: { type: 'boolean', default: false },
		changing: { type: 'boolean', default: false },
		guards: { type: 'boolean', default: false },
		trace: { type: 'boolean', default: false },
		requests: { type: 'string' },
		phase: { type: 'string' },
	},
});

async function main(): Promise<void> {
	const wallStart = performance.now();
	if (values.guards) return await runGuards(wallStart);
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

async function runGuards(wallStart: number): Promise<void> {
	let broken = 0;
	const guards = guardScenarios().filter(
		(guard) => values.only === undefined || values.only.split(',').includes(guard.scenario.name),
	);
	for (const guard of guards) {
		const result = await runScenario(
			guard.scenario,
			Number(values.seed),
			{},
			values.trace ? console.log : undefined,
		);
		const failed = guard.broken(result);
		if (failed.length > 0) broken += 1;
		console.log(
			`guard: ${guard.scenario.name} ${failed.length === 0 ? 'holds' : `BROKEN (${failed.join(', ')})`} rows_failed_by_limit=${result.rowsRateLimited} requests=${result.requests} refused=${result.refused} s=${(result.ms / 1000).toFixed(1)} | expected: ${guard.expected} | ${describe(guard.scenario)}`,
		);
	}
	console.log(
		`bench:sim guards=${guards.length} broken=${broken} wall_s=${((performance.now() - wallStart) / 1000).toFixed(1)}`,
	);
}

void main();
