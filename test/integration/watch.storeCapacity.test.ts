import type { IDataObject, INodeExecutionData, INodeParameters } from 'n8n-workflow';

import { startSandbox, type Sandbox } from '../../sandbox/server';
import { loadCompanies } from '../../sandbox/registry';
import { loadWorkflow, type Engine } from '../../harness/engine';
import { REGISTRY_NODE, engineFor } from '../../harness/fixtures';

// Issue 22: the watch's memory in n8n's processed-items store, as a queue-mode worker sees it (no static
// data), driven through n8n's own engine: its cost per run and its behaviour at the store's capacity.

/** Ids the sandbox does not know (isRegistered false) and ten it knows: a list of any length. */
function list(companies: number): IDataObject[] {
	return Array.from({ length: companies }, (_, index) => ({
		country: 'gb',
		companyId: String(30_000_000 + index),
	}));
}

const REGISTERED = [
	{ country: 'de', companyId: 'HRB12345' },
	{ country: 'gb', companyId: '04417982' },
	{ country: 'nl', companyId: '68750123' },
	{ country: 'gb', companyId: '09876543' },
];

function watchWorkflow() {
	const workflow = loadWorkflow('test/workflows/watch-companies.json');
	const node = workflow.nodes.find((candidate) => candidate.name === REGISTRY_NODE)!;
	node.parameters = { ...node.parameters, options: {} } as INodeParameters;
	return workflow;
}

async function onWorker(engine: Engine, rows: IDataObject[]): Promise<INodeExecutionData[]> {
	const result = await engine.execute(watchWorkflow(), { rows, mode: 'trigger', onWorker: true });
	return result.outputOf(REGISTRY_NODE)[0] ?? [];
}

describe('Watch for Changes › memory in the processed-items store (issue 22)', () => {
	let sandbox: Sandbox;
	let engine: Engine;
	beforeEach(async () => {
		sandbox = await startSandbox({
			port: 0,
			rateLimit: { ratePerSecond: 1_000_000, burst: 1_000_000 },
		});
		engine = engineFor(sandbox);
	});
	afterEach(async () => await sandbox.close());

	it("a run's work in the store grows linearly with the list (no removal searched through the whole store per entry)", async () => {
		const workOfRun = async (companies: number) => {
			const rows = [...REGISTERED, ...list(companies)];
			await onWorker(engine, rows);
			sandbox.changeCompany({ country: 'gb', companyId: '04417982' }, { status: 'Inactive' });
			engine.processedItems.work = 0;
			await onWorker(engine, rows);
			sandbox.changeCompany({ country: 'gb', companyId: '04417982' }, { status: 'Active' });
			const work = engine.processedItems.work;
			engine = engineFor(sandbox);
			return work;
		};
		// 50 and 200 companies: a run's fixed work is small beside either, so the ratio shows the growth.
		const small = await workOfRun(50);
		const large = await workOfRun(200);
		// Four times the list: about four times the work (n8n's removeProcessed made it sixteen).
		expect(large / small).toBeLessThan(5);
	});

	it('past the store capacity a company whose memory was dropped starts a new baseline: never a false change', async () => {
		// Ten companies stand for 100,000: the capacity holds fewer entries than the list needs.
		engine.processedItems.capacity = 24;
		const rows = loadCompanies()
			.slice(0, 10)
			.map((company) => ({
				country: company.country,
				companyId: company.companyId,
				state: company.state ?? '',
			}));
		const events: unknown[] = [];
		for (let run = 0; run < 8; run++)
			events.push(...(await onWorker(engine, rows)).map((item) => item.json.event));
		expect(events).toEqual([]);
	});
});
