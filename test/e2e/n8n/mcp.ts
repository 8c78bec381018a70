// The Company Registry Tool behind n8n's own MCP server (issue 11): a workflow with the MCP Server
// Trigger and the tool, published before `n8n start`, then an MCP client (the @modelcontextprotocol/sdk
// copy that n8n ships) lists the tool and calls it the way an agent would. The checks assert what the
// agent receives: the text of each tools/call result.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

import { TOOL_DESCRIPTION } from '../../../nodes/CompanyRegistry/CompanyRegistry.node.ts';
import type { Sandbox } from '../../../sandbox/server';
import {
	importWorkflow,
	n8nCli,
	n8nDir,
	PACKAGE_NAME,
	root,
	waitFor,
	type Checklist,
	type RunningN8n,
} from '../lib/realN8n';

const WORKFLOW_ID = 'companyRegistryMcp';
const MCP_PATH = 'company-registry';
const TOOL_NAME = 'Company_Registry';
const KYB_AGENT_ID = 'kybAgentExample';

/** The MCP Server Trigger with the Company Registry Tool of examples/workflows/kyb-agent.json attached. */
function mcpWorkflow() {
	const example = JSON.parse(
		readFileSync(join(root, 'examples', 'workflows', 'kyb-agent.json'), 'utf8'),
	) as {
		nodes: Array<{ name: string; type: string }>;
	};
	const tool = example.nodes.find((node) => node.type === `${PACKAGE_NAME}.companyRegistryTool`)!;
	return {
		name: 'Company Registry over MCP',
		nodes: [
			{
				parameters: { path: MCP_PATH },
				id: '3f0c2d1e-5b6a-4c7d-8e9f-0a1b2c3d4e01',
				name: 'MCP Server Trigger',
				type: '@n8n/n8n-nodes-langchain.mcpTrigger',
				typeVersion: 2.1,
				position: [0, 0],
				webhookId: '3f0c2d1e-5b6a-4c7d-8e9f-0a1b2c3d4e0a',
			},
			{ ...tool, position: [0, 240] },
		],
		connections: {
			[tool.name]: { ai_tool: [[{ node: 'MCP Server Trigger', type: 'ai_tool', index: 0 }]] },
		},
		settings: { executionOrder: 'v1' },
	};
}

/** Before `n8n start` (after the sandbox credential is imported): import and publish the MCP workflow. */
export async function prepareMcpWorkflow(userFolder: string): Promise<void> {
	await importWorkflow(userFolder, mcpWorkflow(), WORKFLOW_ID);
	await n8nCli(userFolder, ['publish:workflow', `--id=${WORKFLOW_ID}`]);
	await importWorkflow(userFolder, 'examples/workflows/kyb-agent.json', KYB_AGENT_ID);
}

interface ToolResult {
	content: Array<{ type: string; text?: string }>;
	isError?: boolean;
}

interface McpClient {
	connect(transport: unknown): Promise<void>;
	listTools(): Promise<{
		tools: Array<{
			name: string;
			description?: string;
			inputSchema: { properties?: Record<string, unknown>; required?: string[] };
		}>;
	}>;
	callTool(request: { name: string; arguments: Record<string, unknown> }): Promise<ToolResult>;
	close(): Promise<void>;
}

/** The MCP SDK client from n8n's own node_modules: the same protocol version n8n's server speaks. */
function mcpSdk() {
	const requireFromN8n = createRequire(join(n8nDir, 'package.json'));
	const { Client } = requireFromN8n('@modelcontextprotocol/sdk/client/index.js') as {
		Client: new (info: { name: string; version: string }) => McpClient;
	};
	const { StreamableHTTPClientTransport } = requireFromN8n(
		'@modelcontextprotocol/sdk/client/streamableHttp.js',
	) as {
		StreamableHTTPClientTransport: new (url: URL) => unknown;
	};
	return { Client, StreamableHTTPClientTransport };
}

/** After `n8n start`: the agent's view of the tool, over n8n's production MCP endpoint. */
export async function checkMcp(
	n8n: RunningN8n,
	checklist: Checklist,
	sandbox: Pick<Sandbox, 'counters'>,
): Promise<void> {
	const { check, log } = {
		check: checklist.check.bind(checklist),
		log: checklist.log.bind(checklist),
	};

	// How n8n turned usableAsTool into the tool variant: our Description field, no Watch for Changes.
	const nodeTypes = (await (
		await fetch(`${n8n.base}/types/nodes.json`, { headers: { cookie: n8n.cookie } })
	).json()) as Array<{
		name: string;
		properties: Array<{
			name: string;
			default?: unknown;
			options?: Array<{ value: string; displayOptions?: unknown }>;
		}>;
	}>;
	const variant = nodeTypes.find((type) => type.name === `${PACKAGE_NAME}.companyRegistryTool`);
	const properties = variant?.properties ?? [];
	check(
		TOOL_DESCRIPTION.length > 0 &&
			properties.find((property) => property.name === 'toolDescription')?.default ===
				TOOL_DESCRIPTION &&
			!properties.some((property) => property.name === 'descriptionType'),
		"the tool variant keeps the node's own Description field (n8n adds no 'Set Automatically' description)",
	);
	const watch = properties
		.find((property) => property.name === 'operation')
		?.options?.find((option) => option.value === 'watch');
	check(
		JSON.stringify(watch?.displayOptions) === '{"show":{"@tool":[false]}}',
		'Watch for Changes is hidden from the tool variant',
	);

	// The example KYB agent imports, and every node it uses is one this n8n knows.
	const kybAgent = (await (
		await fetch(`${n8n.base}/rest/workflows/${KYB_AGENT_ID}`, { headers: { cookie: n8n.cookie } })
	).json()) as {
		data?: { nodes: Array<{ type: string }> };
	};
	const known = new Set(nodeTypes.map((type) => type.name));
	const kybTypes = kybAgent.data?.nodes.map((node) => node.type) ?? [];
	check(
		kybTypes.length === 4 && kybTypes.every((type) => known.has(type)),
		`examples/workflows/kyb-agent.json imports, with node types n8n knows: ${kybTypes.join(', ')}`,
	);

	const url = new URL(`${n8n.base}/mcp/${MCP_PATH}`);
	// The production endpoint answers 404 for a moment after n8n is ready, until the workflow's webhooks are registered.
	await checklist.timed('MCP endpoint registered', () =>
		waitFor(
			`${url.href} to accept MCP requests`,
			async () => {
				const response = await fetch(url, {
					method: 'POST',
					headers: {
						'content-type': 'application/json',
						accept: 'application/json, text/event-stream',
					},
					body: JSON.stringify({
						jsonrpc: '2.0',
						id: 0,
						method: 'initialize',
						params: {
							protocolVersion: '2025-03-26',
							capabilities: {},
							clientInfo: { name: 'probe', version: '0' },
						},
					}),
				});
				await response.body?.cancel();
				return response.status !== 404;
			},
			60,
		),
	);

	const { Client, StreamableHTTPClientTransport } = mcpSdk();
	const client = new Client({ name: 'test-n8n', version: '1.0.0' });
	await client.connect(new StreamableHTTPClientTransport(url));
	try {
		const { tools } = await client.listTools();
		const tool = tools.find((candidate) => candidate.name === TOOL_NAME);
		check(
			tools.length === 1 && tool !== undefined,
			`tools/list offers one tool, ${TOOL_NAME} (got ${tools.map((t) => t.name).join(', ')})`,
		);
		check(
			tool?.description === TOOL_DESCRIPTION,
			`its description is the node's Description field: ${tool?.description?.slice(0, 60)}…`,
		);
		const schema = tool?.inputSchema;
		check(
			['country', 'companyId', 'state'].every((name) => schema?.properties?.[name] !== undefined) &&
				JSON.stringify([...(schema?.required ?? [])].sort()) === '["companyId","country"]',
			`its arguments are country, companyId (required) and state (optional): required ${JSON.stringify(schema?.required)}`,
		);

		const call = async (what: string, args: Record<string, unknown>) => {
			const result = await client.callTool({ name: TOOL_NAME, arguments: args });
			const text = result.content.map((part) => part.text ?? '').join('');
			log(
				`agent receives for ${what} ${JSON.stringify(args)}: ${result.isError ? '(isError) ' : ''}${text}`,
			);
			let answer: unknown;
			try {
				answer = JSON.parse(text);
			} catch {
				answer = undefined;
			}
			return {
				answer: answer as Array<Record<string, unknown>> | undefined,
				text,
				isError: result.isError === true,
			};
		};
		const lookupsBefore = sandbox.counters.lookups;

		const registered = await call('a registered company', { country: 'de', companyId: 'HRB12345' });
		check(
			!registered.isError &&
				registered.answer?.length === 1 &&
				registered.answer[0].isRegistered === true &&
				registered.answer[0].officialName === 'Müller & Söhne Präzisionsteile GmbH' &&
				registered.answer[0].status === 'Active',
			'a registered company: isRegistered true with its record',
		);

		const unknown = await call('an unknown company', { country: 'de', companyId: 'HRB00000' });
		check(
			!unknown.isError &&
				unknown.answer?.length === 1 &&
				unknown.answer[0].isRegistered === false &&
				unknown.answer[0].officialName === 'N/A',
			"an unknown company: isRegistered false (not '[]')",
		);

		const usWithState = await call('a US company with its state', {
			country: 'us',
			companyId: 'C0806592',
			state: 'ca',
		});
		check(
			usWithState.answer?.[0]?.isRegistered === true &&
				usWithState.answer[0].officialName === 'Redwood Hollow Analytics, Inc.',
			'a US company with its state: registered, Redwood Hollow Analytics, Inc.',
		);

		const usWithoutState = await call('a US company without a state', {
			country: 'us',
			companyId: 'C0806592',
		});
		check(
			!usWithoutState.isError &&
				String(usWithoutState.answer?.[0]?.error).startsWith(
					'A United States company needs a State',
				) &&
				String(usWithoutState.answer?.[0]?.error).includes(
					"Accepted: a two-letter state code such as 'ca'",
				),
			'a US company without a state: an error text naming the State and what is accepted',
		);

		const badCountry = await call('an unknown country', {
			country: 'Atlantis',
			companyId: '12345',
		});
		check(
			String(badCountry.answer?.[0]?.error).startsWith(
				"Unknown country 'Atlantis'. Accepted: a two-letter ISO 3166-1 code",
			),
			'bad input (unknown country): an error text with what is accepted',
		);
		const failed = await call('a lookup the registry fails', {
			country: 'de',
			companyId: 'HRB99500',
		});
		check(
			!failed.isError &&
				String(failed.answer?.[0]?.error).startsWith(
					'The registry could not process the lookup (HTTP 500',
				) &&
				failed.answer?.[0]?.isRegistered === undefined,
			"a registry failure: an error text, never 'not registered'",
		);
		check(
			sandbox.counters.lookups - lookupsBefore === 6,
			`only the four valid calls reached the registry, the failing one tried 3 times (${sandbox.counters.lookups - lookupsBefore} requests)`,
		);

		const missing = await call('arguments without companyId', { country: 'de' });
		check(
			missing.isError && /companyId/.test(missing.text),
			'arguments that break the schema: isError from n8n, naming companyId',
		);
	} finally {
		await client.close();
	}
}
