import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import { realClock } from '../../nodes/shared/transport/wait';
import { loadCompanies } from '../../sandbox/registry';

import { startSandbox, type Sandbox } from '../../sandbox/server';
import type { Engine } from '../../harness/engine';
import { engineFor, triggerWorkflow } from '../../harness/fixtures';
import { sandboxEachTest } from '../support/sandboxEachTest';
import { savedCompanies } from '../support/savedCompanies';

const TRIGGER = 'Company Registry Trigger';

// The polling trigger, polled as n8n's scheduler polls it (production) and as "Fetch Test Event" does.
describe('Company Registry Trigger', () => {
	let sandbox: Sandbox;
	let engine: Engine;
	sandboxEachTest((running) => ({ sandbox, engine } = running));

	it('records the watchlist on the first poll and starts nothing while nothing changes', async () => {
		expect(await engine.poll(triggerWorkflow(), TRIGGER)).toBeNull();
		expect(await engine.poll(triggerWorkflow(), TRIGGER)).toBeNull();
		const companies = savedCompanies(engine.staticDataOf('trigger-workflow')[`node:${TRIGGER}`]);
		expect(Object.keys(companies).sort()).toEqual(['de/HRB12345', 'gb/09876543', 'us:ca/C0806592']);
		expect(sandbox.counters.tokenRequests).toBe(1);
	});

	it('reports a change once, also across later polls and a restart of n8n (its saved state is current)', async () => {
		await engine.poll(triggerWorkflow(), TRIGGER);
		sandbox.changeCompany({ country: 'gb', companyId: '09876543' }, { status: 'Active' });
		const changed = await engine.poll(triggerWorkflow(), TRIGGER);
		expect(changed?.[0].map((item) => item.json.event)).toEqual(['turnedActive']);
		expect(await engine.poll(triggerWorkflow(), TRIGGER)).toBeNull();
		engine.restart();
		expect(await engine.poll(triggerWorkflow(), TRIGGER)).toBeNull();
	});

	// An earlier version saved an object per company; this one one JSON text (memory.ts says why). An
	// upgrade restarts n8n, which activates the trigger anew from what was saved.
	it('reads the companies as an earlier version saved them (an object each): a change across the upgrade is reported once, and the companies are saved as one text', async () => {
		await engine.poll(triggerWorkflow(), TRIGGER);
		const key = `node:${TRIGGER}`;
		const saved = engine.staticDataOf('trigger-workflow');
		const nodeState = saved[key] as IDataObject;
		nodeState.companies = savedCompanies(nodeState);
		engine.setStaticData(saved, 'trigger-workflow');
		engine.restart();
		sandbox.changeCompany({ country: 'gb', companyId: '09876543' }, { status: 'Active' });
		const changed = await engine.poll(triggerWorkflow(), TRIGGER);
		expect(changed?.[0].map((item) => item.json.event)).toEqual(['turnedActive']);
		const after = engine.staticDataOf('trigger-workflow')[key] as IDataObject;
		expect(typeof after.companies).toBe('string');
		expect(savedCompanies(after)['gb/09876543']).toMatchObject({ s: 'A' });
		expect(await engine.poll(triggerWorkflow(), TRIGGER)).toBeNull();
		engine.restart();
		expect(await engine.poll(triggerWorkflow(), TRIGGER)).toBeNull();
	});

	it('a watchlist entry that is not well-formed text fails the poll with a message naming the entry, before any request', async () => {
		const workflow = triggerWorkflow([
			{ country: 'de', companyId: 'HRB12345' },
			{ country: 'de', companyId: 'FAKE\uD800' },
		]);
		await expect(engine.poll(workflow, TRIGGER)).rejects.toThrow(
			'Company 2 of the list: Company ID contains a broken character (a lone UTF-16 surrogate)',
		);
		expect(sandbox.counters.lookups).toBe(0);
	});

	it('starts the workflow with one item per change', async () => {
		await engine.poll(triggerWorkflow(), TRIGGER);
		sandbox.changeCompany(
			{ country: 'us', companyId: 'C0806592', state: 'ca' },
			{ status: 'Inactive' },
		);
		sandbox.changeCompany({ country: 'gb', companyId: '09876543' }, { deregistered: true });
		const result = await engine.poll(triggerWorkflow(), TRIGGER);
		expect(result).toHaveLength(1);
		expect(
			result![0].map((item) => [item.json.event, (item.json.lookup as IDataObject).companyId]),
		).toEqual([
			['deregistered', '09876543'],
			['turnedInactive', 'C0806592'],
		]);
		expect(await engine.poll(triggerWorkflow(), TRIGGER)).toBeNull();
	});

	it('a company whose lookup fails is no change: it is reported as a failed check, and the others are still checked', async () => {
		const list = [
			{ country: 'de', companyId: 'HRB12345' },
			{ country: 'de', companyId: 'HRB99500' },
		];
		const first = await engine.poll(triggerWorkflow(list), TRIGGER);
		expect(first![0].map((item) => item.json)).toMatchObject([
			{ event: 'checkFailed', lookup: { companyId: 'HRB99500' }, lastCheckedOn: null },
		]);
		sandbox.changeCompany(
			{ country: 'de', companyId: 'HRB12345' },
			{ officialName: 'Müller Präzision GmbH' },
		);
		const result = await engine.poll(triggerWorkflow(list), TRIGGER);
		expect(result![0].map((item) => item.json.event)).toEqual(['detailsChanged']);
		expect(engine.logs.join('\n')).toContain(
			'The registry could not process the lookup (HTTP 500 Internal Server Error)',
		);
	});

	it('fails the poll when no company could be checked at all', async () => {
		sandbox.setFaults({ share504: 1 });
		await expect(engine.poll(triggerWorkflow(), TRIGGER)).rejects.toThrow(
			'HTTP 504 Gateway Timeout',
		);
	});

	it('forgets a company taken off the list at once', async () => {
		await engine.poll(triggerWorkflow(), TRIGGER);
		await engine.poll(triggerWorkflow([{ country: 'de', companyId: 'HRB12345' }]), TRIGGER);
		const companies = savedCompanies(engine.staticDataOf('trigger-workflow')[`node:${TRIGGER}`]);
		expect(Object.keys(companies)).toEqual(['de/HRB12345']);
	});

	it('"Fetch Test Event" returns the current state of the first company and remembers nothing', async () => {
		const result = await engine.poll(triggerWorkflow(), TRIGGER, 'manual');
		expect(result![0]).toHaveLength(1);
		expect(result![0][0].json).toMatchObject({
			event: 'firstSeen',
			company: {
				isRegistered: true,
				officialName: 'Müller & Söhne Präzisionsteile GmbH',
				status: 'Active',
			},
			lookup: { countryCode: 'de', companyId: 'HRB12345' },
		});
		expect(sandbox.counters.lookups).toBe(1);
		expect(engine.staticDataOf('trigger-workflow')).toEqual({});
	});

	it('names a bad entry of the list', async () => {
		await expect(
			engine.poll(triggerWorkflow([{ country: 'us', companyId: 'C0806592', state: '' }]), TRIGGER),
		).rejects.toThrow('Company 1 of the list: A United States company needs a State');
	});
});

// Issue 26: a company that cannot be checked is reported, and never holds back the others' alerts.
describe('Company Registry Trigger › a company whose checks fail', () => {
	let sandbox: Sandbox;
	let engine: Engine;
	let clock = Date.UTC(2026, 10, 2, 8);
	const COMPANIES = loadCompanies().slice(0, 20);
	const LIST = COMPANIES.map((company) => ({
		country: company.country,
		companyId: company.companyId,
		state: company.state ?? '',
	}));
	// Two Active companies of the twenty: one fails on every request, one changes meanwhile.
	const [failingAt, otherAt] = COMPANIES.flatMap((company, index) =>
		company.status === 'Active' && index > 0 ? [index] : [],
	);
	const FAILING = LIST[failingAt];
	const OTHER = LIST[otherAt];
	// A 3 s Request Timeout against a 10 s slow answer: on a loaded machine a healthy answer can take over
	// 1 s (a 1 s timeout failed every company of a poll there), and a slow one is still never in time.
	const options = { timeout: 3, maxAttempts: 1 };
	const poll = async () => (await engine.poll(triggerWorkflow(LIST, options), TRIGGER))?.[0] ?? [];
	const events = (items: INodeExecutionData[]) =>
		items.map((item) => [item.json.event, (item.json.lookup as IDataObject).companyId]);
	beforeEach(async () => {
		sandbox = await startSandbox({ port: 0, faults: { slowMs: 10_000 } });
		engine = engineFor(sandbox);
		// The watch's time is the test's: a day passes between two polls.
		engine.nodeTypes.useClock({ now: () => clock, sleep: realClock.sleep });
	});
	afterEach(async () => {
		await sandbox.close();
	});

	it('is reported once when its failures start (500, a timeout, a broken record), again a day later, and a change made meanwhile once it answers', async () => {
		expect(await poll()).toEqual([]);
		const other = sandbox.changeCompany.bind(sandbox);
		sandbox.setCompanyFault(FAILING, '500');
		other(OTHER, { status: 'Inactive' });
		clock += 3_600_000;
		const first = await poll();
		expect(events(first).sort()).toEqual([
			['checkFailed', FAILING.companyId],
			['turnedInactive', OTHER.companyId],
		]);
		expect(first.find((item) => item.json.event === 'checkFailed')!.json).toMatchObject({
			error: { message: expect.stringContaining('HTTP 500'), kind: 'http' },
			lastCheckedOn: '2026-11-02',
			failingSince: '2026-11-02T09:00:00.000Z',
			failingForHours: 0,
		});
		sandbox.setCompanyFault(FAILING, 'timeout');
		clock += 3_600_000;
		expect(await poll()).toEqual([]);
		sandbox.setCompanyFault(FAILING, 'status');
		other(OTHER, { status: 'Active' });
		clock += 3_600_000;
		expect(events(await poll())).toEqual([['turnedActive', OTHER.companyId]]);
		// A day after it was reported: reported again, with how long it has been failing.
		clock += 22 * 3_600_000;
		const again = await poll();
		expect(events(again)).toEqual([['checkFailed', FAILING.companyId]]);
		expect(again[0].json).toMatchObject({
			error: { kind: 'contract' },
			failingSince: '2026-11-02T09:00:00.000Z',
			failingForHours: 24,
		});
		// It turned Inactive during the outage: reported once it answers again, once.
		other(FAILING, { status: 'Inactive' });
		sandbox.setCompanyFault(FAILING, undefined);
		clock += 3_600_000;
		expect(events(await poll())).toEqual([['turnedInactive', FAILING.companyId]]);
		expect(await poll()).toEqual([]);
		// Failing again within a day of its last report: a new spell, not reported yet (a company failing on
		// and off is reported once an interval, not once a spell) ...
		sandbox.setCompanyFault(FAILING, '500');
		clock += 3_600_000;
		expect(await poll()).toEqual([]);
		// ... but once the interval has passed, with when this spell started.
		clock += 22 * 3_600_000;
		const later = await poll();
		expect(events(later)).toEqual([['checkFailed', FAILING.companyId]]);
		expect(later[0].json).toMatchObject({
			failingSince: '2026-11-03T11:00:00.000Z',
			failingForHours: 22,
		});
	});

	it('with the interval 0 a failed check is not reported; a poll where nothing could be checked still fails', async () => {
		expect(await poll()).toEqual([]);
		sandbox.setCompanyFault(FAILING, '500');
		const quiet = await engine.poll(
			triggerWorkflow(LIST, { ...options, failedCheckInterval: 0 }),
			TRIGGER,
		);
		expect(quiet).toBeNull();
		sandbox.setFaults({ share500: 1 });
		await expect(poll()).rejects.toThrow('HTTP 500');
	});
});
