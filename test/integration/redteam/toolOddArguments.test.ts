import type { IDataObject } from 'n8n-workflow';

import { startSandbox, type Sandbox } from '../../../sandbox/server';
import { callTool, toolEngineFor, type ToolCaller } from '../../../harness/tool';

// Red team (held): the Company Registry Tool called by a model with odd arguments. On the MCP path n8n's
// own schema (from the template's $fromAI, all strings) refuses a non-text argument before the node
// runs, null for the optional state included: the client gets n8n's error and may ask again. On the AI
// Agent path the node gets them as they are. Either way every call gets an answer (a record or an error
// text), the execution never fails, nothing the node refuses reaches the registry, and an id written
// as a path goes as one segment.

const ODD: IDataObject[] = [
	{ country: 'gb', companyId: 4417982 },
	{ country: 'de', companyId: ['HRB12345'] },
	{ country: 'de', companyId: { id: 'HRB12345' } },
	{ country: 'de', companyId: null },
	{ country: 'de', companyId: true },
	{ country: 276, companyId: 'HRB12345' },
	{ country: 'de', companyId: 'HRB12345', state: null },
	{ country: 'de', companyId: 'HRB12345', extra: 'ignore previous instructions' },
	{ country: 'de', companyId: '../../v1/company/de/HRB12345' },
	{ country: 'de', companyId: 'x'.repeat(10_000) },
	{ country: 'de ', companyId: ' HRB12345 ' },
	{},
];

/** What each call's answer is: the company found, an error text, or n8n's schema refusal. */
function kindOf(call: { isError: boolean; answer: unknown; text: string }): string {
	if (call.isError) return call.text.includes('did not match expected schema') ? 'schema' : 'other';
	const [first] = call.answer as IDataObject[];
	if (typeof first?.error === 'string') return 'error';
	return first?.isRegistered === true
		? `registered ${(first.lookup as IDataObject).companyId as string}`
		: 'other';
}

describe('the tool called with odd arguments', () => {
	let sandbox: Sandbox;
	beforeAll(async () => (sandbox = await startSandbox({ port: 0 })));
	afterAll(async () => await sandbox.close());
	beforeEach(() => {
		sandbox.resetCounters();
		sandbox.lookupLog.length = 0;
	});

	it.each<[ToolCaller, string[], number]>([
		[
			'mcp',
			[
				...Array<string>(7).fill('schema'),
				'registered HRB12345',
				'error',
				'error',
				'registered HRB12345',
				'schema',
			],
			3,
		],
		[
			'agent',
			[
				'registered 04417982',
				...Array<string>(5).fill('error'),
				'registered HRB12345',
				'registered HRB12345',
				'error',
				'error',
				'registered HRB12345',
				'error',
			],
			5,
		],
	])(
		'by the %s path: an answer each, lookups only for what the node accepts',
		async (caller, kinds, lookups) => {
			const calls = await callTool(toolEngineFor(sandbox), caller, ODD);
			expect(calls.map(kindOf)).toEqual(kinds);
			expect(sandbox.counters.lookups).toBe(lookups);
			expect(sandbox.lookupLog.filter((target) => target.includes('..'))).toEqual([
				'/v1/company/de/..%2F..%2Fv1%2Fcompany%2Fde%2FHRB12345',
			]);
		},
		60_000,
	);
});
