import { TOOL_DESCRIPTION } from '../../nodes/CompanyRegistry/CompanyRegistry.node.ts';
import { startSandbox, type Sandbox } from '../../sandbox/server';
import { branchesOf, lookupWorkflow } from '../../harness/fixtures';
import { callTool, exampleToolNode, toolEngineFor, type ToolCaller } from '../../harness/tool';

// The Company Registry Tool executed as n8n 2.41 executes tools, against the sandbox over loopback:
// - 'mcp': n8n-core's getInputConnectionData → createNodeAsTool → SupplyDataContext (isToolExecution),
//   the path of the MCP Server Trigger, which hands the client the tool's JSON text;
// - 'agent': the AI Agent v3's engine request, where WorkflowExecute runs the tool node as a workflow
//   node (ExecuteContext) and the agent reads the first output of its run.
// In both, an agent sees only the first output: every answer must be there (issue 11).
describe('Company Registry Tool (AI agents, MCP)', () => {
	let sandbox: Sandbox;
	beforeAll(async () => {
		sandbox = await startSandbox({ port: 0 });
	});
	afterAll(async () => await sandbox.close());
	beforeEach(() => sandbox.resetCounters());

	const accepted = {
		country:
			"Accepted: a two-letter ISO 3166-1 code such as 'de', a three-letter code such as 'deu', or the English name such as 'Germany'.",
		state:
			"Accepted: a two-letter state code such as 'ca' or 'ny' (also 'US-CA'), or the state's name such as 'California'.",
	};

	describe.each<ToolCaller>(['mcp', 'agent'])('called by the %s path', (caller) => {
		it('answers a registered company with isRegistered true and the record (section 2.1)', async () => {
			const [call] = await callTool(toolEngineFor(sandbox), caller, [
				{ country: 'de', companyId: 'HRB12345' },
			]);
			expect(call.isError).toBe(false);
			expect(call.answer).toEqual([
				{
					isRegistered: true,
					officialName: 'Müller & Söhne Präzisionsteile GmbH',
					status: 'Active',
					registrationDate: '1998-04-17',
					registeredAddress: 'Königstraße 12, 70173 Stuttgart',
					lookup: { countryCode: 'de', companyId: 'HRB12345' },
				},
			]);
		});

		it('answers an unknown company with isRegistered false, not with nothing (4.2 rule 2)', async () => {
			const [call] = await callTool(toolEngineFor(sandbox), caller, [
				{ country: 'Germany', companyId: 'HRB00000' },
			]);
			expect(call.isError).toBe(false);
			expect(call.answer).toEqual([
				{
					isRegistered: false,
					officialName: 'N/A',
					status: 'N/A',
					registrationDate: 'N/A',
					registeredAddress: 'N/A',
					lookup: { countryCode: 'de', companyId: 'HRB00000' },
				},
			]);
		});

		it('looks a US company up in the state the agent names, by code or by name (2.2)', async () => {
			const calls = await callTool(toolEngineFor(sandbox), caller, [
				{ country: 'us', companyId: 'C0806592', state: 'ca' },
				{ country: 'USA', companyId: 'C0806592', state: 'California' },
			]);
			for (const call of calls) {
				expect(call.answer).toEqual([
					expect.objectContaining({
						isRegistered: true,
						officialName: 'Redwood Hollow Analytics, Inc.',
						lookup: { countryCode: 'us', companyId: 'C0806592', stateCode: 'ca' },
					}),
				]);
			}
			expect(sandbox.counters.lookups).toBe(2);
		});

		it('tells the agent that a US company needs a state, and which values are accepted, without a request', async () => {
			const [call] = await callTool(toolEngineFor(sandbox), caller, [
				{ country: 'us', companyId: 'C0806592' },
			]);
			expect(call.isError).toBe(false);
			expect(call.answer).toEqual([
				{
					error: `A United States company needs a State: US companies are registered per state. ${accepted.state}`,
				},
			]);
			expect(sandbox.counters.lookups).toBe(0);
		});

		it('answers bad input with what is wrong and what is accepted', async () => {
			const calls = await callTool(toolEngineFor(sandbox), caller, [
				{ country: 'Atlantis', companyId: '12345' },
				{ country: 'de', companyId: '  ' },
				{ country: 'us', companyId: 'C0806592', state: 'Narnia' },
			]);
			expect(calls.map((call) => call.answer)).toEqual([
				[{ error: `Unknown country 'Atlantis'. ${accepted.country}` }],
				[
					{
						error:
							"Company ID is empty. Accepted: the company's registration number as the national register writes it, e.g. 'HRB12345'.",
					},
				],
				[{ error: `Unknown United States state 'Narnia'. ${accepted.state}` }],
			]);
			expect(sandbox.counters.lookups).toBe(0);
		});

		it("answers a registry failure as an error text with the lookup, never as 'not registered'", async () => {
			const [call] = await callTool(toolEngineFor(sandbox), caller, [
				{ country: 'de', companyId: 'HRB99500' },
			]);
			expect(call.answer).toEqual([
				{
					error: expect.stringMatching(
						/^The registry could not process the lookup \(HTTP 500 Internal Server Error\) \(tried 3 times\)\. .*try again later/,
					),
					lookup: { countryCode: 'de', companyId: 'HRB99500' },
				},
			]);
			expect(JSON.stringify(call.answer)).not.toContain('isRegistered');
		});

		it('does not run Watch for Changes for an agent', async () => {
			const watching = {
				...exampleToolNode(),
				parameters: { ...exampleToolNode().parameters, operation: 'watch' },
			};
			const [call] = await callTool(
				toolEngineFor(sandbox),
				caller,
				[{ country: 'de', companyId: 'HRB12345' }],
				watching,
			);
			expect(call.text).toContain('Watch for Changes is not available to AI agents');
			expect(sandbox.counters.lookups).toBe(0);
		});
	});

	describe('what the MCP client is told about the tool', () => {
		it("names the tool after its node and describes it, its arguments and its answers (n8n's own would be 'Look up company in Company Registry')", async () => {
			const [call] = await callTool(toolEngineFor(sandbox), 'mcp', [
				{ country: 'de', companyId: 'HRB12345' },
			]);
			expect(call.name).toBe('Company_Registry');
			expect(call.description).toBe(TOOL_DESCRIPTION);
			for (const word of ['country', 'companyId', 'state', 'isRegistered', 'error'])
				expect(call.description).toContain(word);
		});

		it("uses the description a user wrote instead (the node's Description field)", async () => {
			const node = exampleToolNode();
			node.parameters = {
				...node.parameters,
				toolDescription: 'Checks suppliers in the German register only',
			};
			const [call] = await callTool(
				toolEngineFor(sandbox),
				'mcp',
				[{ country: 'de', companyId: 'HRB12345' }],
				node,
			);
			expect(call.description).toBe('Checks suppliers in the German register only');
		});

		it('makes state optional in the argument schema, and country and companyId required', async () => {
			const calls = await callTool(toolEngineFor(sandbox), 'mcp', [
				{ country: 'de', companyId: 'HRB12345' },
				{ country: 'de' },
			]);
			expect(calls[0].schemaAcceptsArguments).toBe(true);
			expect(calls[1].schemaAcceptsArguments).toBe(false);
			// n8n refuses arguments that break the schema before the node runs: the client gets an error.
			expect(calls[1].isError).toBe(true);
			expect(sandbox.counters.lookups).toBe(1);
		});
	});

	it('keeps the two outputs of the normal node (Registered, Not Registered)', async () => {
		const engine = toolEngineFor(sandbox);
		const rows = [
			{ country: 'de', companyId: 'HRB12345' },
			{ country: 'de', companyId: 'HRB00000' },
		];
		const { registered, notRegistered } = branchesOf(
			await engine.execute(lookupWorkflow({ onError: 'continueErrorOutput' }), { rows }),
		);
		expect(registered.map((item) => item.json.officialName)).toEqual([
			'Müller & Söhne Präzisionsteile GmbH',
		]);
		expect(notRegistered.map((item) => item.json.isRegistered)).toEqual([false]);
	});
});
