import type { IDataObject } from 'n8n-workflow';

import { DEMO_CLIENT, type Sandbox } from '../../sandbox/server';
import type { CompanyStatus } from '../../sandbox/registry';
import type { Engine } from '../../harness/engine';
import { CREDENTIAL_ID, triggerWorkflow } from '../../harness/fixtures';
import { sandboxEachTest } from '../support/sandboxEachTest';

// The trigger's memory between polls, where the other trigger tests do not look: a company whose lookup
// fails after it has a baseline, a poll in which every lookup fails, an empty list, and secrets that a
// registry echoes into the errors and warnings of a poll.
const TRIGGER = 'Company Registry Trigger';
const MUELLER = { country: 'de', companyId: 'HRB12345' };
const NORTHWIND = { country: 'gb', companyId: '09876543' };

/** The message, description and every enumerable field of what a poll threw, for secret hunting. */
const textOf = (error: unknown) => {
	const { message, description } = error as { message?: string; description?: string };
	return `${message} ${description} ${JSON.stringify(error)}`;
};

describe('Company Registry Trigger: memory between polls', () => {
	let sandbox: Sandbox;
	let engine: Engine;
	sandboxEachTest((running) => ({ sandbox, engine } = running));

	const poll = async (companies?: IDataObject[]) =>
		(await engine.poll(triggerWorkflow(companies), TRIGGER))?.[0].map((item) => [
			item.json.event,
			(item.json.lookup as IDataObject).companyId,
		]) ?? null;

	it('a company whose lookup fails after its baseline raises no change (a checkFailed item, issue 26), and is compared with its last known state afterwards', async () => {
		expect(await poll()).toBeNull();
		// The registry answers a status outside its contract for this company only: its lookup fails, the other's does not.
		sandbox.changeCompany(MUELLER, { status: 'Dissolved' as CompanyStatus });
		expect(await poll()).toEqual([['checkFailed', 'HRB12345']]);
		expect(engine.logs.filter((line) => line.includes('Company Registry Trigger:'))).toHaveLength(
			1,
		);
		// Answered again, unchanged: nothing happened to it (not "reregistered", not "turnedActive").
		sandbox.changeCompany(MUELLER, { status: 'Active' });
		expect(await poll()).toBeNull();
		// And a real change is still seen against the remembered state, once.
		sandbox.changeCompany(MUELLER, { status: 'Inactive' });
		expect(await poll()).toEqual([['turnedInactive', 'HRB12345']]);
		expect(await poll()).toBeNull();
	});

	it('a poll in which every lookup fails leaves the memory as it was, also across a restart of n8n', async () => {
		expect(await poll()).toBeNull();
		const remembered = engine.staticDataOf('trigger-workflow');
		sandbox.setFaults({ share500: 1 });
		await expect(poll()).rejects.toThrow('HTTP 500');
		expect(engine.staticDataOf('trigger-workflow')).toEqual(remembered);
		sandbox.setFaults({ share500: 0 });
		engine.restart();
		expect(await poll()).toBeNull();
		sandbox.changeCompany(NORTHWIND, { status: 'Active' });
		expect(await poll()).toEqual([['turnedActive', '09876543']]);
		expect(await poll()).toBeNull();
	});

	it('an empty list fails the poll with a message saying what to do, before any request', async () => {
		await expect(poll([])).rejects.toThrow('Add at least one company to watch');
		const workflow = triggerWorkflow([MUELLER, NORTHWIND]);
		workflow.nodes[0].parameters = { options: {} };
		await expect(engine.poll(workflow, TRIGGER)).rejects.toThrow(
			'Add at least one company to watch',
		);
		expect(sandbox.counters.tokenRequests).toBe(0);
		expect(sandbox.counters.lookups).toBe(0);
	});

	it("a registry that echoes the Authorization header puts no token in the poll's error or warnings", async () => {
		expect(await poll()).toBeNull();
		const token = String(engine.credentials.stored(CREDENTIAL_ID)?.accessToken);
		expect(token.split('.')).toHaveLength(3);
		sandbox.setEcho({ route: 'lookup', status: 400 });
		const error = await engine.poll(triggerWorkflow([MUELLER, NORTHWIND]), TRIGGER).then(
			() => undefined,
			(thrown: unknown) => thrown,
		);
		expect(error).toBeDefined();
		const warnings = engine.logs.filter((line) => line.includes('Company Registry Trigger:'));
		expect(warnings).toHaveLength(2);
		const all = `${textOf(error)}\n${warnings.join('\n')}`;
		// The echo reached the messages (so this test can see a leak), with the token taken out.
		expect(all).toContain('Authorization: Bearer [redacted]');
		expect(all).not.toContain(token);
		expect(all).not.toContain(token.split('.')[2]);
	});

	it("a token endpoint that echoes the request puts no client secret in the poll's error or n8n's log", async () => {
		sandbox.setEcho({ route: 'token', field: 'error_description' });
		const error = await engine.poll(triggerWorkflow([MUELLER, NORTHWIND]), TRIGGER).then(
			() => undefined,
			(thrown: unknown) => thrown,
		);
		expect(error).toBeDefined();
		expect(`${textOf(error)}\n${engine.logs.join('\n')}`).not.toContain(DEMO_CLIENT.clientSecret);
	});
});
