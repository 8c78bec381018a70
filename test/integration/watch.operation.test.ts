import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import type { Sandbox } from '../../sandbox/server';
import type { Engine } from '../../harness/engine';
import { REGISTRY_NODE } from '../../harness/fixtures';
import { loadCompanies } from '../../sandbox/registry';
import { sandboxEachTest } from '../support/sandboxEachTest';
import { savedCompanies } from '../support/savedCompanies';
import { LIST, watch, watchWorkflow } from '../support/watchRuns';

// Issue "Watch companies": successive production executions of a schedule-style workflow, with the
// sandbox changing records between them. Interface document section 6: no events, so the node must
// compare states itself.

describe('Company Registry › Watch for Changes', () => {
	let sandbox: Sandbox;
	let engine: Engine;
	sandboxEachTest((running) => ({ sandbox, engine } = running));

	it('sets a baseline on the first run and reports nothing while nothing changes', async () => {
		expect((await watch(engine)).changes).toEqual([]);
		expect((await watch(engine)).changes).toEqual([]);
		const state = engine.staticDataOf('watch-workflow');
		expect(Object.keys(state)).toEqual(['node:Company Registry']);
		// One JSON text (memory.ts says why), not an object per company.
		expect(typeof (state['node:Company Registry'] as IDataObject).companies).toBe('string');
		const companies = savedCompanies(state['node:Company Registry']);
		expect(Object.keys(companies).sort()).toEqual(['de/HRB12345', 'gb/04417982', 'nl/68750123']);
		expect(companies['de/HRB12345']).toMatchObject({
			s: 'A',
			n: 'Müller & Söhne Präzisionsteile GmbH',
		});
	});

	it('reports a company that turned Inactive, with previous and current values', async () => {
		await watch(engine);
		sandbox.changeCompany({ country: 'gb', companyId: '04417982' }, { status: 'Inactive' });
		const { changes } = await watch(engine);
		expect(changes).toHaveLength(1);
		expect(changes[0].pairedItem).toEqual({ item: 1 });
		expect(changes[0].json).toMatchObject({
			event: 'turnedInactive',
			changedFields: ['status'],
			changes: { status: { previous: 'Active', current: 'Inactive' } },
			company: {
				isRegistered: true,
				status: 'Inactive',
				officialName: 'Harrowgate Tinware Limited',
			},
			previous: { isRegistered: true, status: 'Active' },
			lookup: { countryCode: 'gb', companyId: '04417982' },
		});
		expect(Date.parse(String(changes[0].json.detectedAt))).toBeGreaterThan(Date.now() - 60_000);
		// Reported once: the next run compares with the new state.
		expect((await watch(engine)).changes).toEqual([]);
		sandbox.changeCompany({ country: 'gb', companyId: '04417982' }, { status: 'Active' });
		expect((await watch(engine)).changes.map((item) => item.json.event)).toEqual(['turnedActive']);
	});

	it('reports a company that left the register, and its return', async () => {
		await watch(engine);
		sandbox.changeCompany({ country: 'nl', companyId: '68750123' }, { deregistered: true });
		const gone = await watch(engine);
		expect(gone.changes.map((item) => item.json)).toMatchObject([
			{
				event: 'deregistered',
				changedFields: ['registration'],
				changes: { registration: { previous: true, current: false } },
				company: { isRegistered: false, status: 'N/A' },
				previous: { officialName: 'Tulpenveld Zaadveredeling B.V.', status: 'Active' },
			},
		]);
		sandbox.changeCompany({ country: 'nl', companyId: '68750123' }, { deregistered: false });
		expect((await watch(engine)).changes.map((item) => item.json.event)).toEqual(['reregistered']);
	});

	it('reports a change of official name or address', async () => {
		await watch(engine);
		sandbox.changeCompany(
			{ country: 'de', companyId: 'HRB12345' },
			{ officialName: 'Müller Präzision GmbH', registeredAddress: null },
		);
		const { changes } = await watch(engine);
		expect(changes.map((item) => item.json)).toMatchObject([
			{
				event: 'detailsChanged',
				changedFields: ['officialName', 'registeredAddress'],
				changes: {
					officialName: {
						previous: 'Müller & Söhne Präzisionsteile GmbH',
						current: 'Müller Präzision GmbH',
					},
					registeredAddress: { previous: 'Königstraße 12, 70173 Stuttgart', current: null },
				},
			},
		]);
	});

	it('never counts a failed lookup as a change: a 500 is not "deregistered"', async () => {
		await watch(engine);
		sandbox.setFaults({ share500: 1 });
		const failing = await watch(engine, LIST, {}, { onError: 'continueErrorOutput' });
		expect(failing.changes).toEqual([]);
		expect(failing.errors).toHaveLength(3);
		expect(failing.errors[0].json.error).toContain('HTTP 500');
		sandbox.setFaults({ share500: 0 });
		expect((await watch(engine)).changes).toEqual([]);
	});

	it('a failed row under On Error "continue" carries its error, never a change event', async () => {
		await watch(engine);
		sandbox.setFaults({ share504: 1 });
		const { changes } = await watch(
			engine,
			LIST.slice(0, 1),
			{},
			{ onError: 'continueRegularOutput' },
		);
		expect(changes).toHaveLength(1);
		expect(changes[0].json.event).toBeUndefined();
		expect(changes[0].json.error).toContain('HTTP 504');
	});

	it('counts a company listed twice once', async () => {
		const rows = [...LIST, { country: 'DE', companyId: ' HRB12345 ' }];
		await watch(engine, rows);
		sandbox.changeCompany({ country: 'de', companyId: 'HRB12345' }, { status: 'Inactive' });
		const { changes } = await watch(engine, rows);
		expect(changes).toHaveLength(1);
		expect(changes[0].pairedItem).toEqual({ item: 0 });
		expect(sandbox.counters.lookups).toBe(6);
	});

	it('forgets a company taken off the list after Forget Companies Not Seen For days', async () => {
		await watch(engine);
		// Two weeks pass for nl/68750123, which the list no longer names.
		const state = engine.staticDataOf('watch-workflow');
		const nodeState = state['node:Company Registry'] as IDataObject;
		const companies = savedCompanies(nodeState) as Record<string, { d: number }>;
		companies['nl/68750123'].d -= 14;
		nodeState.companies = JSON.stringify(companies);
		engine.setStaticData(state, 'watch-workflow');
		await watch(engine, LIST.slice(0, 2), { forgetAfterDays: 30 });
		// The companies, and the mark of the store's row the run wrote (processedItemsMemory.ts).
		expect(
			Object.keys(engine.staticDataOf('watch-workflow')['node:Company Registry'] as object),
		).toEqual(['companies', 'storeRow']);
		expect(
			Object.keys(savedCompanies(engine.staticDataOf('watch-workflow')['node:Company Registry'])),
		).toContain('nl/68750123');
		await watch(engine, LIST.slice(0, 2), { forgetAfterDays: 7 });
		const kept = savedCompanies(engine.staticDataOf('watch-workflow')['node:Company Registry']);
		expect(Object.keys(kept).sort()).toEqual(['de/HRB12345', 'gb/04417982']);
		// Back on the list, it is new again: reported only when first sightings are asked for.
		const back = await watch(engine, LIST, { reportFirstSightings: true });
		expect(
			back.changes.map((item) => [item.json.event, (item.json.lookup as IDataObject).companyId]),
		).toEqual([['firstSeen', '68750123']]);
	});

	it('reports first sightings when asked', async () => {
		const { changes } = await watch(engine, LIST, { reportFirstSightings: true });
		expect(changes.map((item) => item.json.event)).toEqual(['firstSeen', 'firstSeen', 'firstSeen']);
		expect(changes[0].json.company).toMatchObject({
			officialName: 'Müller & Söhne Präzisionsteile GmbH',
		});
		expect(changes[0].json.previous).toBeUndefined();
	});

	it('remembers nothing from a manual test run, as n8n saves static data only for production runs', async () => {
		await watch(engine, LIST, {}, { mode: 'manual' });
		expect(engine.staticDataOf('watch-workflow')).toEqual({});
		sandbox.changeCompany({ country: 'gb', companyId: '04417982' }, { status: 'Inactive' });
		expect((await watch(engine, LIST, {}, { mode: 'manual' })).changes).toEqual([]);
	});

	it('reads the companies as an earlier version saved them (an object each), reports a change once across the upgrade, and saves them as one text', async () => {
		await watch(engine);
		const nodeState = engine.staticDataOf('watch-workflow')['node:Company Registry'] as IDataObject;
		// The state as the version before this one saved it: the same snapshots, an object per company.
		nodeState.companies = savedCompanies(nodeState);
		engine.setStaticData({ 'node:Company Registry': nodeState }, 'watch-workflow');
		sandbox.changeCompany({ country: 'gb', companyId: '04417982' }, { status: 'Inactive' });
		const { changes } = await watch(engine);
		expect(changes.map((item) => item.json.event)).toEqual(['turnedInactive']);
		expect(changes[0].json.previous).toMatchObject({
			status: 'Active',
			lastCheckedOn: expect.any(String),
		});
		const saved = engine.staticDataOf('watch-workflow')['node:Company Registry'] as IDataObject;
		expect(typeof saved.companies).toBe('string');
		expect(savedCompanies(saved)['gb/04417982']).toMatchObject({ s: 'I' });
		expect((await watch(engine)).changes).toEqual([]);
	});

	describe('old or corrupt saved state (issue "Hostile world")', () => {
		const saved = (companies: unknown) =>
			engine.setStaticData({ 'node:Company Registry': { companies } }, 'watch-workflow');
		const companiesNow = () =>
			savedCompanies(engine.staticDataOf('watch-workflow')['node:Company Registry']);

		it.each([
			['a snapshot without a date', { s: 'A', n: 'Harrowgate Tinware Limited' }],
			['a date that is not a number', { s: 'A', n: 'Harrowgate Tinware Limited', d: 'yesterday' }],
			['an unknown status', { s: 'X', n: 'Harrowgate Tinware Limited', d: 20_000 }],
		])(
			'%s: the entry starts a new baseline, the run neither crashes nor reports a false change',
			async (_label, snapshot) => {
				saved({ 'gb/04417982': snapshot });
				const { changes, errors } = await watch(
					engine,
					LIST,
					{},
					{ onError: 'continueRegularOutput' },
				);
				expect(errors).toEqual([]);
				expect(changes).toEqual([]);
				expect(companiesNow()['gb/04417982']).toMatchObject({ s: 'A', d: expect.any(Number) });
				expect(engine.logs.filter((line) => line.includes('watch state had entries')).length).toBe(
					1,
				);
				// The next change is reported once, as usual.
				sandbox.changeCompany({ country: 'gb', companyId: '04417982' }, { status: 'Inactive' });
				expect((await watch(engine)).changes.map((item) => item.json.event)).toEqual([
					'turnedInactive',
				]);
				expect((await watch(engine)).changes).toEqual([]);
			},
		);

		it.each([
			['a string', 'corrupt'],
			['a number', 42],
			['a list', [{ s: 'A', d: 1 }]],
			['the JSON text of a list', JSON.stringify([{ s: 'A', d: 1 }])],
			['the JSON text of null', 'null'],
		])(
			'companies saved as %s: replaced by a fresh baseline that is saved',
			async (_label, companies) => {
				saved(companies);
				const { changes } = await watch(engine, LIST, {}, { onError: 'continueRegularOutput' });
				expect(changes).toEqual([]);
				expect(Object.keys(companiesNow()).sort()).toEqual([
					'de/HRB12345',
					'gb/04417982',
					'nl/68750123',
				]);
			},
		);
	});

	describe('a company that cannot be checked (issue 26)', () => {
		const COMPANIES = loadCompanies().slice(0, 20);
		const TWENTY = COMPANIES.map((company) => ({
			country: company.country,
			companyId: company.companyId,
			state: company.state ?? '',
		}));
		const [failingAt, otherAt] = COMPANIES.flatMap((company, index) =>
			company.status === 'Active' && index > 0 ? [index] : [],
		);
		const events = (items: INodeExecutionData[]) =>
			items.map((item) => [item.json.event, (item.json.lookup as IDataObject).companyId]);

		it("at n8n's default On Error, the changes of the other 19 leave in the run in which they happen, with an item for the one that failed", async () => {
			expect((await watch(engine, TWENTY)).changes).toEqual([]);
			sandbox.setCompanyFault(TWENTY[failingAt], '500');
			sandbox.changeCompany(TWENTY[otherAt], { status: 'Inactive' });
			const { changes } = await watch(engine, TWENTY, { maxAttempts: 1 });
			// In input order.
			const expected: Array<[number, string]> = [
				[failingAt, 'checkFailed'],
				[otherAt, 'turnedInactive'],
			];
			expect(events(changes)).toEqual(
				expected
					.sort(([a], [b]) => a - b)
					.map(([index, event]) => [event, TWENTY[index].companyId]),
			);
			const failed = changes.find((item) => item.json.event === 'checkFailed')!;
			expect(failed.pairedItem).toEqual({ item: failingAt });
			expect(failed.json).toMatchObject({
				error: { message: expect.stringContaining('HTTP 500'), kind: 'http' },
				lastCheckedOn: expect.any(String),
			});
			// It turned Inactive meanwhile: reported once it answers again, once.
			sandbox.changeCompany(TWENTY[failingAt], { status: 'Inactive' });
			sandbox.setCompanyFault(TWENTY[failingAt], undefined);
			expect(events((await watch(engine, TWENTY)).changes)).toEqual([
				['turnedInactive', TWENTY[failingAt].companyId],
			]);
			expect((await watch(engine, TWENTY)).changes).toEqual([]);
		});

		it('a row with bad input is a checkFailed item of kind "input", and the others\' changes still leave; only rows that are all bad fail the run', async () => {
			expect((await watch(engine, TWENTY)).changes).toEqual([]);
			sandbox.changeCompany(TWENTY[otherAt], { status: 'Inactive' });
			const rows = TWENTY.map((row, index) =>
				index === failingAt ? { ...row, companyId: '' } : row,
			);
			const lookupsBefore = sandbox.counters.lookups;
			const result = await engine.execute(watchWorkflow(), { rows, mode: 'trigger' });
			expect(result.errorOf(REGISTRY_NODE)).toBeUndefined();
			const [changes = []] = result.outputOf(REGISTRY_NODE);
			expect(changes.map((item) => [item.json.event, item.pairedItem])).toEqual(
				[
					[failingAt, 'checkFailed'],
					[otherAt, 'turnedInactive'],
				]
					.sort(([a], [b]) => Number(a) - Number(b))
					.map(([index, event]) => [event, { item: index }]),
			);
			expect(changes.find((item) => item.json.event === 'checkFailed')!.json).toMatchObject({
				error: { kind: 'input', message: expect.any(String) },
				lookup: null,
				lastCheckedOn: null,
			});
			expect(sandbox.counters.lookups - lookupsBefore).toBe(19);
			// The company of the bad row is not forgotten: named again, it is compared with its last state.
			expect((await watch(engine, TWENTY)).changes).toEqual([]);
			// Nothing could be checked: the run fails, with the input's error.
			const allBad = await engine.execute(watchWorkflow(), {
				rows: [{ ...TWENTY[0], companyId: '' }],
				mode: 'trigger',
			});
			expect(allBad.errorOf(REGISTRY_NODE)).toBeDefined();
		});

		it('on a queue-mode worker too', async () => {
			const onWorker = async () =>
				(
					await engine.execute(watchWorkflow({ maxAttempts: 1 }), {
						rows: TWENTY,
						mode: 'trigger',
						onWorker: true,
					})
				).outputOf(REGISTRY_NODE)[0] ?? [];
			expect(await onWorker()).toEqual([]);
			sandbox.setCompanyFault(TWENTY[failingAt], '500');
			sandbox.changeCompany(TWENTY[otherAt], { status: 'Inactive' });
			expect(
				events(await onWorker())
					.map(([event]) => event)
					.sort(),
			).toEqual(['checkFailed', 'turnedInactive']);
			sandbox.changeCompany(TWENTY[failingAt], { status: 'Inactive' });
			sandbox.setCompanyFault(TWENTY[failingAt], undefined);
			expect(events(await onWorker())).toEqual([['turnedInactive', TWENTY[failingAt].companyId]]);
		});

		// n8n's Retry On Fail runs the node again when its first item carries `error` (WorkflowExecute's
		// checkFailure): a failed check at the top of the list, under Continue (an error item) or at the
		// default On Error (a checkFailed item). The first try has saved the memory by then.
		describe.each([
			['On Error "continue (error output)"', 'continueErrorOutput' as const, false],
			["n8n's default On Error", undefined, false],
			[
				'On Error "continue (error output)", on a queue-mode worker',
				'continueErrorOutput' as const,
				true,
			],
		])('with Retry On Fail, %s', (_name, onError, onWorker) => {
			it('a change found in a try n8n repeats is reported once, in the try n8n keeps', async () => {
				const retried = async () => {
					const workflow = watchWorkflow({ maxAttempts: 1 }, onError);
					const node = workflow.nodes.find((candidate) => candidate.name === REGISTRY_NODE)!;
					Object.assign(node, { retryOnFail: true, maxTries: 3, waitBetweenTries: 0 });
					const result = await engine.execute(workflow, {
						rows: TWENTY,
						mode: 'trigger',
						onWorker,
					});
					const [changes = [], errors = []] = result.outputOf(REGISTRY_NODE);
					return { changes: events(changes), errors: errors.map((item) => item.pairedItem) };
				};
				expect(await retried()).toEqual({ changes: [], errors: [] });
				sandbox.setCompanyFault(TWENTY[0], '500');
				sandbox.changeCompany(TWENTY[otherAt], { status: 'Inactive' });
				const lookupsBefore = sandbox.counters.lookups;
				const run = await retried();
				// n8n did retry: the failing company was asked once per try.
				expect(sandbox.counters.lookups - lookupsBefore).toBeGreaterThan(20);
				expect(run).toEqual(
					onError
						? { changes: [['turnedInactive', TWENTY[otherAt].companyId]], errors: [{ item: 0 }] }
						: {
								changes: [
									['checkFailed', TWENTY[0].companyId],
									['turnedInactive', TWENTY[otherAt].companyId],
								],
								errors: [],
							},
				);
				// Reported once: the next run has nothing new.
				sandbox.setCompanyFault(TWENTY[0], undefined);
				expect((await retried()).changes).toEqual([]);
			});
		});

		it('the run fails when nothing could be checked; under On Error "continue (error output)" failed checks go to the error output', async () => {
			await watch(engine, TWENTY);
			sandbox.setFaults({ share500: 1 });
			const stopped = await engine.execute(watchWorkflow({ maxAttempts: 1 }), {
				rows: TWENTY,
				mode: 'trigger',
			});
			expect(stopped.errorOf(REGISTRY_NODE)?.message).toContain('HTTP 500');
			sandbox.setFaults({ share500: 0 });
			sandbox.setCompanyFault(TWENTY[failingAt], '500');
			const { changes, errors } = await watch(
				engine,
				TWENTY,
				{ maxAttempts: 1 },
				{ onError: 'continueErrorOutput' },
			);
			expect(changes).toEqual([]);
			expect(errors.map((item) => item.pairedItem)).toEqual([{ item: failingAt }]);
		});
	});

	it('keeps the state of a 50,000-company list small (the cost docs/watch.md gives)', async () => {
		const { snapshotOf, watchKey } = await import('../../nodes/shared/watch/snapshot');
		const { StaticDataMemory } = await import('../../nodes/shared/watch/memory');
		const current = new Map<string, ReturnType<typeof snapshotOf>>();
		for (let index = 0; index < 50_000; index++) {
			const key = { countryCode: 'gb', companyId: String(10_000_000 + index) };
			current.set(
				watchKey(key),
				snapshotOf(
					{
						isRegistered: true,
						officialName: `Example Trading Company ${index} Limited`,
						status: 'Active',
						registrationDate: '2015-10-28',
						registeredAddress: `${index} High Street, Leeds, LS1 ${index % 9}AB`,
					},
					20_000,
				),
			);
		}
		// What n8n stores: the static data's JSON, the companies' text in it with its quotes escaped.
		const staticData: Record<string, unknown> = {};
		await new StaticDataMemory(staticData, { warn: () => undefined }, () => true).remember(
			current,
			[],
		);
		const bytes = Buffer.byteLength(JSON.stringify(staticData));
		expect(bytes / 50_000).toBeLessThan(140);
	});
});
