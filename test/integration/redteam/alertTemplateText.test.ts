import {
	NodeConnectionTypes,
	NodeHelpers,
	type IExecuteFunctions,
	type INodeType,
} from 'n8n-workflow';

import type { Engine } from '../../../harness/engine';
import { loadWorkflow } from '../../../harness/engine';
import type { Sandbox } from '../../../sandbox/server';
import { sandboxEachTest } from '../../support/sandboxEachTest';

// Red team: the importable alert template (examples/workflows/inactive-alerts.json), run as its schedule
// runs it. Its email named a company that left the register "N/A" (the registry's answer for an unknown
// company has officialName "N/A", which the subject took before the remembered name), and never showed
// a US company's state: it read `lookup.state`, where the lookup key says `stateCode`.

const TEMPLATE = 'examples/workflows/inactive-alerts.json';
const WATCHLIST_NODE = 'One item per company';
const EMAIL_NODE = 'Email the change';

/** Stand-in for n8n's Send Email: each item's Subject and Text as n8n evaluates them, nothing sent. */
const emailStandIn: INodeType = {
	description: {
		displayName: 'Send Email',
		name: 'emailSend',
		group: ['output'],
		version: [2, 2.1],
		description: 'Sends an email (evaluated only, in these tests)',
		defaults: { name: 'Send Email' },
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		properties: [
			{ displayName: 'Subject', name: 'subject', type: 'string', default: '' },
			{ displayName: 'Text', name: 'text', type: 'string', default: '' },
		],
	},
	async execute(this: IExecuteFunctions) {
		return [
			this.getInputData().map((_item, itemIndex) => ({
				json: {
					subject: this.getNodeParameter('subject', itemIndex) as string,
					text: this.getNodeParameter('text', itemIndex) as string,
				},
				pairedItem: { item: itemIndex },
			})),
		];
	},
};

function withEmailStandIn(engine: Engine): void {
	const types = engine.nodeTypes;
	const known = types.getByNameAndVersion.bind(types);
	types.getByNameAndVersion = (type: string, version?: number) =>
		type === 'n8n-nodes-base.emailSend'
			? NodeHelpers.getVersionedNodeType(emailStandIn, version)
			: known(type, version);
}

const WATCHLIST = [
	{ country: 'de', companyId: 'HRB12345' },
	{ country: 'us', companyId: 'C0806592', state: 'ca' },
];

/** The template as imported, less its sticky notes (no node type here) and with its schedule as a manual start. */
function template() {
	const workflow = loadWorkflow(TEMPLATE);
	workflow.nodes = workflow.nodes
		.filter((node) => node.type !== 'n8n-nodes-base.stickyNote')
		.map((node) =>
			node.type === 'n8n-nodes-base.scheduleTrigger'
				? { ...node, type: 'n8n-nodes-base.manualTrigger', typeVersion: 1, parameters: {} }
				: node,
		);
	return workflow;
}

async function morningRun(engine: Engine, onWorker = false) {
	const result = await engine.execute(template(), {
		rows: WATCHLIST,
		rowsNode: WATCHLIST_NODE,
		mode: 'trigger',
		onWorker,
	});
	const [emails = []] = result.outputOf(EMAIL_NODE);
	return emails.map((item) => item.json as { subject: string; text: string });
}

describe('the Inactive alerts template, as its schedule runs it', () => {
	let sandbox: Sandbox;
	let engine: Engine;
	sandboxEachTest((running) => {
		({ sandbox, engine } = running);
		withEmailStandIn(engine);
	});

	it('names a company that left the register by the name it had, with its state', async () => {
		expect(await morningRun(engine)).toEqual([]);
		sandbox.changeCompany(
			{ country: 'us', companyId: 'C0806592', state: 'ca' },
			{ deregistered: true },
		);
		const emails = await morningRun(engine);
		expect(emails).toHaveLength(1);
		expect(emails[0].subject).toBe('Redwood Hollow Analytics, Inc. is no longer in the register');
		expect(emails[0].text).toMatch(
			/^Redwood Hollow Analytics, Inc\. \(US C0806592, CA\) is no longer in the register\./,
		);
	});

	// A queue-mode worker remembers no names (n8n's processed-items store keeps hashes): the email says which company.
	it('on a queue-mode worker, names a company that left the register by its id', async () => {
		expect(await morningRun(engine, true)).toEqual([]);
		sandbox.changeCompany(
			{ country: 'us', companyId: 'C0806592', state: 'ca' },
			{ deregistered: true },
		);
		const emails = await morningRun(engine, true);
		expect(emails.map((email) => email.subject)).toEqual([
			'Company US C0806592 is no longer in the register',
		]);
	});

	it('names a company that turned Inactive by its name', async () => {
		await morningRun(engine);
		sandbox.changeCompany({ country: 'de', companyId: 'HRB12345' }, { status: 'Inactive' });
		const emails = await morningRun(engine);
		expect(emails).toEqual([
			expect.objectContaining({
				subject: 'Müller & Söhne Präzisionsteile GmbH is now Inactive',
			}),
		]);
		expect(emails[0].text).toContain('- status: Active -> Inactive');
	});
});
