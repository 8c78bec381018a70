import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeParameters,
	INodeType,
} from 'n8n-workflow';

import { startSandbox, type Sandbox } from '../../sandbox/server';
import { loadWorkflow, type Engine } from '../../harness/engine';
import { CREDENTIAL_ID, REGISTRY_NODE, engineFor } from '../../harness/fixtures';
import { COMPANY_REGISTRY_TYPE } from '../../harness/nodeTypes';
import { sandboxEachTest } from '../support/sandboxEachTest';

// Watch for Changes across runs, for companies the other watch tests never name: one the register does not
// know (isRegistered false) and one registered without an address; in the three places its memory can
// live: static data with n8n's processed-items store (a main process), the store alone (a queue-mode
// worker starts without static data), and static data alone (an n8n without the store's helpers).
const NOT_REGISTERED = { country: 'de', companyId: 'HRB10001' };
const NO_ADDRESS = { country: 'de', companyId: 'HRA40917' };
const REGISTERED = { country: 'gb', companyId: '04417982' };
const LIST = [NOT_REGISTERED, NO_ADDRESS, REGISTERED];

type Where = 'main process' | 'queue-mode worker' | 'n8n without the processed-items store';
const PLACES: Where[] = [
	'main process',
	'queue-mode worker',
	'n8n without the processed-items store',
];

function watchWorkflow(options: IDataObject = {}) {
	const workflow = loadWorkflow('test/workflows/watch-companies.json');
	const node = workflow.nodes.find((candidate) => candidate.name === REGISTRY_NODE)!;
	node.parameters = { ...node.parameters, options } as INodeParameters;
	return workflow;
}

/**
 * An n8n from before the processed-items store (its helpers lack checkProcessedAndRecord and
 * removeProcessed): the node is handed the context n8n gives, without those two helpers.
 */
function withoutProcessedItemsStore(engine: Engine): void {
	const registry = engine.nodeTypes.getByNameAndVersion(COMPANY_REGISTRY_TYPE, 1);
	const older: INodeType = {
		description: registry.description,
		methods: registry.methods,
		async execute(this: IExecuteFunctions) {
			const helpers = this.helpers as Partial<IExecuteFunctions['helpers']>;
			delete helpers.checkProcessedAndRecord;
			delete helpers.removeProcessed;
			return await registry.execute!.call(this);
		},
	};
	const byName = engine.nodeTypes.getByNameAndVersion.bind(engine.nodeTypes);
	engine.nodeTypes.getByNameAndVersion = (type, version) =>
		type === COMPANY_REGISTRY_TYPE ? older : byName(type, version);
}

const events = (items: INodeExecutionData[]) =>
	items.map((item) => [item.json.event, (item.json.lookup as IDataObject).companyId]);

describe.each(PLACES)('Watch for Changes, memory across runs (%s)', (where) => {
	let sandbox: Sandbox;
	let engine: Engine;
	sandboxEachTest((running) => {
		({ sandbox, engine } = running);
		if (where === 'n8n without the processed-items store') withoutProcessedItemsStore(engine);
	});

	const run = async (options: IDataObject = {}) => {
		const result = await engine.execute(watchWorkflow(options), {
			rows: LIST,
			mode: 'trigger',
			onWorker: where === 'queue-mode worker',
		});
		expect(result.errorOf(REGISTRY_NODE)).toBeUndefined();
		return result.outputOf(REGISTRY_NODE)[0] ?? [];
	};

	it('a company the register does not know, and one without an address, stay quiet run after run', async () => {
		const first = await run({ reportFirstSightings: true });
		expect(
			first.map((item) => [
				item.json.event,
				(item.json.company as IDataObject).isRegistered,
				(item.json.company as IDataObject).registeredAddress,
			]),
		).toEqual([
			['firstSeen', false, 'N/A'],
			['firstSeen', true, undefined],
			['firstSeen', true, expect.any(String)],
		]);
		for (let again = 0; again < 3; again++) expect(events(await run())).toEqual([]);
	});

	it('an address that appears and goes again is reported, with what was there before', async () => {
		await run();
		sandbox.changeCompany(NO_ADDRESS, { registeredAddress: 'Hafenstraße 1, 20457 Hamburg' });
		const added = await run();
		expect(events(added)).toEqual([['detailsChanged', 'HRA40917']]);
		expect(added[0].json).toMatchObject({
			changedFields: ['registeredAddress'],
			changes: { registeredAddress: { previous: null, current: 'Hafenstraße 1, 20457 Hamburg' } },
		});
		expect(events(await run())).toEqual([]);
		sandbox.changeCompany(NO_ADDRESS, { registeredAddress: null });
		const removed = await run();
		expect(events(removed)).toEqual([['detailsChanged', 'HRA40917']]);
		if (where === 'queue-mode worker') {
			// The store is written anew each run, so the removal is seen; but only hashes are kept there, and a
			// worker has no static data: the previous value cannot be named.
			expect(removed[0].json).toMatchObject({ changedFields: ['registeredAddress'] });
			expect(events(await run())).toEqual([]);
			return;
		}
		expect(removed[0].json).toMatchObject({
			changedFields: ['registeredAddress'],
			changes: { registeredAddress: { previous: 'Hafenstraße 1, 20457 Hamburg', current: null } },
		});
		expect(events(await run())).toEqual([]);
	});

	it('reports each kind of change exactly once, in every combination of runs', async () => {
		await run();
		const steps: Array<[() => void, Array<[string, string]>]> = [
			[
				() => sandbox.changeCompany(REGISTERED, { status: 'Inactive' }),
				[['turnedInactive', '04417982']],
			],
			[
				() => sandbox.changeCompany(REGISTERED, { deregistered: true }),
				[['deregistered', '04417982']],
			],
			// Back on the register, Inactive as it left: a return, not also a status change.
			[
				() => sandbox.changeCompany(REGISTERED, { deregistered: false }),
				[['reregistered', '04417982']],
			],
			[
				() =>
					sandbox.changeCompany(REGISTERED, {
						status: 'Active',
						officialName: 'Harrowgate Tin Limited',
					}),
				[['turnedActive', '04417982']],
			],
			[
				() => sandbox.changeCompany(REGISTERED, { registeredAddress: '1 Tin Lane, Leeds LS1 1AA' }),
				[['detailsChanged', '04417982']],
			],
			[
				() =>
					sandbox.changeCompany(REGISTERED, { officialName: 'Harrowgate Tin & Pewter Limited' }),
				[['detailsChanged', '04417982']],
			],
		];
		for (const [change, expected] of steps) {
			change();
			expect(events(await run())).toEqual(expected);
			expect(events(await run())).toEqual([]);
		}
	});

	it('a status change that comes with a new name names both fields, with their previous values', async () => {
		await run();
		sandbox.changeCompany(REGISTERED, {
			status: 'Inactive',
			officialName: 'Harrowgate Tin Limited',
		});
		const [change, ...rest] = await run();
		expect(rest).toEqual([]);
		const previousName = where === 'queue-mode worker' ? null : 'Harrowgate Tinware Limited';
		expect(change.json).toMatchObject({
			event: 'turnedInactive',
			changedFields: ['status', 'officialName'],
			changes: {
				status: { previous: 'Active', current: 'Inactive' },
				officialName: { previous: previousName, current: 'Harrowgate Tin Limited' },
			},
			previous: { isRegistered: true, status: 'Active', officialName: previousName },
		});
	});
});

describe('Watch for Changes without the processed-items store', () => {
	let sandbox: Sandbox;
	beforeEach(async () => (sandbox = await startSandbox({ port: 0 })));
	afterEach(async () => await sandbox.close());

	it('keeps its memory in static data alone, and says when the last check was', async () => {
		const engine = engineFor(sandbox);
		withoutProcessedItemsStore(engine);
		const run = async () =>
			(await engine.execute(watchWorkflow(), { rows: LIST, mode: 'trigger' })).outputOf(
				REGISTRY_NODE,
			)[0] ?? [];
		await run();
		expect(engine.processedItems.calls).toBe(0);
		sandbox.changeCompany(REGISTERED, { status: 'Inactive' });
		const [change] = await run();
		expect(change.json.previous).toMatchObject({
			status: 'Active',
			lastCheckedOn: new Date().toISOString().slice(0, 10),
		});
		expect(engine.processedItems.calls).toBe(0);
	});
});

describe('Watch for Changes, error items of a registry that echoes secrets', () => {
	let sandbox: Sandbox;
	beforeEach(async () => (sandbox = await startSandbox({ port: 0 })));
	afterEach(async () => await sandbox.close());

	it('no token in the error items, the run data or the log when the registry echoes the Authorization header', async () => {
		const engine = engineFor(sandbox);
		await engine.execute(watchWorkflow(), { rows: LIST, mode: 'trigger' });
		const token = String(engine.credentials.stored(CREDENTIAL_ID)?.accessToken);
		expect(token.split('.')).toHaveLength(3);
		sandbox.setEcho({ route: 'lookup', status: 400 });
		const workflow = watchWorkflow();
		workflow.nodes.find((node) => node.name === REGISTRY_NODE)!.onError = 'continueRegularOutput';
		const result = await engine.execute(workflow, { rows: LIST, mode: 'trigger' });
		const [items = []] = result.outputOf(REGISTRY_NODE);
		expect(items.map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 1 }, { item: 2 }]);
		// The echo reached the messages (so a leak would show), with the token taken out.
		expect(String(items[0].json.error)).toContain('Bearer [redacted]');
		const everything = JSON.stringify(result.run) + engine.logs.join('\n');
		expect(everything).not.toContain(token);
		expect(everything).not.toContain(token.split('.')[2]);
	});
});
