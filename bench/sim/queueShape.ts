// npx tsx bench/sim/queueShape.ts [--cpu <factor>]: test:queue's scenarios 2 then 3 on the virtual clock
// (queue.ts), for three seeds, with either worker taking two of the three sheets, the warm worker's
// sheets taken 0-1,000 ms after the other's; one line per run, and last the 429 share over all runs.
// test:queue's target (issue 20): under 3% 429s. --cpu multiplies n8n's CPU per lookup (a worker given a
// share of a loaded core: test:queue's real runs were CPU-bound at load 14-26).
import { parseArgs } from 'node:util';

import { ALONE_LOOKUPS, queueFloorMs, queueShape, SHARED_LOOKUPS } from './queue';

const { values } = parseArgs({ options: { cpu: { type: 'string', default: '1' } } });
const CPU_FACTOR = Number(values.cpu);
/** How much later the warm worker's sheets start than the other's (a job taken from n8n's queue). */
const LATE_MS = [0, 50, 200, 500, 1000];

async function main(): Promise<void> {
	let requests = 0;
	let refused = 0;
	let runs = 0;
	for (const seed of [1, 2, 3])
		for (const onWarm of [1, 2])
			for (const lateMs of LATE_MS) {
				runs += 1;
				const { alone, shared } = await queueShape(seed, onWarm, lateMs, CPU_FACTOR);
				requests += alone.requests + shared.requests;
				refused += alone.rateLimited + shared.rateLimited;
				console.log(
					`queue: seed=${seed} warm_worker_sheets=${onWarm} late_ms=${lateMs} ` +
						`scenario2 vs_floor=${(alone.ms / queueFloorMs(ALONE_LOOKUPS)).toFixed(3)} 429=${alone.rateLimited}/${alone.requests} ` +
						`scenario3 vs_floor=${(shared.ms / queueFloorMs(3 * SHARED_LOOKUPS)).toFixed(3)} 429=${shared.rateLimited}/${shared.requests} ` +
						`share_429=${(shared.rateLimited / shared.requests).toFixed(4)}`,
				);
			}
	console.log(
		`queue: cpu=${CPU_FACTOR} runs=${runs} share_429=${(refused / requests).toFixed(4)} (${refused} of ${requests})`,
	);
}

void main();
