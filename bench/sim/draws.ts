// npx tsx bench/sim/draws.ts --only s281[,s299...] [--seed 1] [--draws 30] [--changing]
// bench:sim runs each scenario once, with one draw of its chance (latency jitter, faults, the
// controllers' own Random): a scenario near a tipping point (a wave that lands a request earlier or
// later) can read 1.08 in one draw and 1.40 in the next. This runs the same scenario under `--draws`
// other draws of chance and prints the spread, so that a change is judged by the class, not by a draw.
// Deterministic for its arguments.
import { parseArgs } from 'node:util';

import { drawScenarios } from './catalogue';
import { changingScenarios } from './changing';
import { runScenario } from './simulate';

const { values } = parseArgs({
	options: {
		only: { type: 'string' },
		seed: { type: 'string', default: '1' },
		draws: { type: 'string', default: '30' },
		changing: { type: 'boolean', default: false },
	},
});

const at = (sorted: number[], share: number): number =>
	sorted[Math.min(sorted.length - 1, Math.floor(share * sorted.length))];

async function main(): Promise<void> {
	if (!values.only) throw new Error('--only <scenario>[,<scenario>...] is required');
	const seed = Number(values.seed);
	const catalogue = values.changing ? changingScenarios() : drawScenarios(seed, 300);
	for (const name of values.only.split(',')) {
		const scenario = catalogue.find((candidate) => candidate.name === name);
		if (!scenario) throw new Error(`no scenario named ${name}`);
		const figures: number[] = [];
		let share429 = 0;
		let failedByLimit = 0;
		for (let draw = 1; draw <= Number(values.draws); draw++) {
			// A chance seed of its own per draw (bench:sim's own draw is seed 1's, not among these).
			const result = await runScenario(scenario, seed + draw * 7919, {});
			figures.push(result.vsFloor ?? Number.NaN);
			share429 = Math.max(share429, result.share429);
			failedByLimit += result.failedByLimit;
		}
		const sorted = [...figures].sort((a, b) => a - b);
		const mean = figures.reduce((sum, figure) => sum + figure, 0) / figures.length;
		console.log(
			`draws ${name} n=${figures.length} min=${sorted[0].toFixed(3)} median=${at(sorted, 0.5).toFixed(3)} p90=${at(sorted, 0.9).toFixed(3)} max=${sorted.at(-1)!.toFixed(3)} mean=${mean.toFixed(3)} above_1.15=${figures.filter((figure) => figure > 1.15).length} max_429_share=${share429.toFixed(4)} rows_failed_by_limit=${failedByLimit}`,
		);
	}
}

void main();
