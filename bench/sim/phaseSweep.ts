// npx tsx bench/sim/phaseSweep.ts [--only n8n-fixed-window-no-headers] [--from 0] [--to 950] [--step 50] [--seed 1]
// One matrix scenario run from many starts within a window aligned to the clock (issue 20 item 5: a real
// run starts anywhere in one), in one process: per start its figure, 429 share and time; last the
// worst, the median and how many starts pass 1.10 of the floor and 2% 429s.
import { parseArgs } from 'node:util';

import { matrixScenarios } from './catalogue';
import { runScenario, startingWithinSecond } from './simulate';

const { values } = parseArgs({
	options: {
		only: { type: 'string', default: 'n8n-fixed-window-no-headers' },
		from: { type: 'string', default: '0' },
		to: { type: 'string', default: '950' },
		step: { type: 'string', default: '50' },
		seed: { type: 'string', default: '1' },
	},
});

async function main(): Promise<void> {
	const scenario = matrixScenarios().find(({ name }) => name === values.only);
	if (!scenario) throw new Error(`no matrix scenario named ${values.only}`);
	const figures: { phase: number; vsFloor: number; share429: number }[] = [];
	for (let phase = Number(values.from); phase <= Number(values.to); phase += Number(values.step)) {
		const result = await runScenario(scenario, Number(values.seed), startingWithinSecond(phase));
		figures.push({ phase, vsFloor: result.vsFloor!, share429: result.share429 });
		console.log(
			`phase=${phase} vs_floor=${result.vsFloor!.toFixed(3)} share_429=${result.share429.toFixed(4)} s=${(result.ms / 1000).toFixed(2)} floor_s=${(result.floorMs! / 1000).toFixed(2)}`,
		);
	}
	const sorted = figures.map(({ vsFloor }) => vsFloor).sort((a, b) => a - b);
	console.log(
		`phaseSweep ${values.only} starts=${figures.length} min=${sorted[0].toFixed(3)} median=${sorted[Math.floor((sorted.length - 1) / 2)].toFixed(3)} worst=${sorted.at(-1)!.toFixed(3)} above_1.10=${figures.filter(({ vsFloor }) => vsFloor > 1.1).length} above_2pct_429=${figures.filter(({ share429 }) => share429 > 0.02).length} max_429=${Math.max(...figures.map(({ share429 }) => share429)).toFixed(4)}`,
	);
}

void main();
