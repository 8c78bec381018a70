import {
	deepCopy,
	NodeConnectionTypes,
	type EngineRequest,
	type EngineResponse,
	type IDataObject,
	type IExecuteFunctions,
	type INode,
	type INodeExecutionData,
	type INodeProperties,
	type INodeType,
	type INodeTypeDescription,
} from 'n8n-workflow';

import { CompanyRegistry } from '../nodes/CompanyRegistry/CompanyRegistry.node.ts';
import { DEMO_CLIENT, type Sandbox } from '../sandbox/server';
import { Engine, loadWorkflow, type WorkflowFile } from './engine';
import { CREDENTIAL_ID } from './fixtures';
import { PACKAGE, TestNodeTypes } from './nodeTypes';

const COMPANY_REGISTRY_TOOL_TYPE = `${PACKAGE}.companyRegistryTool`;
const MCP_CLIENT_TYPE = 'test.mcpToolCaller';
const AGENT_TYPE = 'test.agentV3ToolCaller';

/**
 * The node's tool variant, made as n8n 2.41 makes it from `usableAsTool` (packages/cli
 * tool-generation/ai-tools.ts, convertNodeToAiTool): `<name>Tool`, no inputs, one ai_tool output,
 * and Tool Description fields unless the node brings its own `toolDescription`. Same class, same execute.
 */
function toolVariant(nodeType: INodeType): INodeType {
	const description = deepCopy(nodeType.description) as INodeTypeDescription;
	const replacements =
		typeof description.usableAsTool === 'object'
			? description.usableAsTool.replacements
			: undefined;
	Object.assign(description, replacements);
	description.name += 'Tool';
	description.displayName += ' Tool';
	description.inputs = [];
	description.outputs = [NodeConnectionTypes.AiTool];
	delete description.usableAsTool;
	if (!description.properties.some((property) => property.name === 'toolDescription')) {
		const hasOperation = description.properties.some(
			(property) => property.name === 'operation' || property.name === 'resource',
		);
		const descriptionProperty: INodeProperties = {
			displayName: 'Description',
			name: 'toolDescription',
			type: 'string',
			default: description.description,
			required: true,
			...(hasOperation ? { displayOptions: { show: { descriptionType: ['manual'] } } } : {}),
		};
		const descriptionType: INodeProperties = {
			displayName: 'Tool Description',
			name: 'descriptionType',
			type: 'options',
			noDataExpression: true,
			options: [
				{ name: 'Set Automatically', value: 'auto' },
				{ name: 'Set Manually', value: 'manual' },
			],
			default: 'auto',
		};
		description.properties.unshift(
			...(hasOperation ? [descriptionType, descriptionProperty] : [descriptionProperty]),
		);
	}
	const tool = Object.create(nodeType) as INodeType;
	tool.description = description;
	return tool;
}

/** One tool call and what the caller got back, as an output item of the caller nodes below. */
interface ToolCall {
	/** The tool's name and description as n8n gave them to the caller (MCP path only). */
	name?: string;
	description?: string;
	/** The text the agent reads: the tool's answer, or n8n's error text. */
	text: string;
	/** Whether the caller got an error instead of an answer (MCP: `isError`). */
	isError: boolean;
}

interface LangchainTool {
	name: string;
	description: string;
	schema: { safeParse(value: unknown): { success: boolean } };
	invoke(args: IDataObject): Promise<unknown>;
}

/**
 * What the MCP Server Trigger does with its tools (@n8n/n8n-nodes-langchain 2.41, McpTrigger and
 * McpServer): `getInputConnectionData(ai_tool)` hands it the DynamicStructuredTool that n8n-core's
 * createNodeAsTool made of the connected node, and a tools/call invokes it with the arguments;
 * a thrown error becomes `isError` with `<name>: <message>`. One input item is one tools/call.
 */
class McpToolCaller implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'MCP tool caller',
		name: 'mcpToolCaller',
		group: ['transform'],
		version: 1,
		description: "Calls its tools as n8n's MCP Server Trigger does",
		defaults: { name: 'MCP client' },
		inputs: [NodeConnectionTypes.Main, { type: NodeConnectionTypes.AiTool, displayName: 'Tools' }],
		outputs: [NodeConnectionTypes.Main],
		properties: [],
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const tools = (await this.getInputConnectionData(
			NodeConnectionTypes.AiTool,
			0,
		)) as LangchainTool[];
		const output: INodeExecutionData[] = [];
		for (const [index, item] of this.getInputData().entries()) {
			const tool = tools.find((candidate) => candidate.name === item.json.tool) ?? tools[0];
			const args = item.json.arguments as IDataObject;
			let call: ToolCall;
			try {
				const result = await tool.invoke(args);
				call = {
					text: typeof result === 'string' ? result : JSON.stringify(result),
					isError: false,
				};
			} catch (error) {
				call = { text: `${(error as Error).name}: ${(error as Error).message}`, isError: true };
			}
			output.push({
				json: {
					...call,
					name: tool.name,
					description: tool.description,
					schemaAcceptsArguments: tool.schema.safeParse(args).success,
				},
				pairedItem: { item: index },
			});
		}
		return [output];
	}
}

/**
 * What the AI Agent v3 does (@n8n/n8n-nodes-langchain 2.41, ToolsAgent V3 createEngineRequests and
 * buildSteps): for a tool call it asks the engine to run the tool node (an EngineRequest); the engine
 * runs it as a workflow node, with the arguments as its input item, and resumes the agent with the
 * node's run, from which the agent reads `ai_tool[0]` (the first output), or the run's error.
 */
class AgentV3ToolCaller implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Agent v3 tool caller',
		name: 'agentV3ToolCaller',
		group: ['transform'],
		version: 1,
		description: "Calls its tools as n8n's AI Agent v3 does",
		defaults: { name: 'AI Agent' },
		inputs: [NodeConnectionTypes.Main, { type: NodeConnectionTypes.AiTool, displayName: 'Tools' }],
		outputs: [NodeConnectionTypes.Main],
		properties: [],
	};

	async execute(
		this: IExecuteFunctions,
		response?: EngineResponse,
	): Promise<INodeExecutionData[][] | EngineRequest> {
		const items = this.getInputData();
		if (!response?.actionResponses.length) {
			const toolNode = this.getParentNodes(this.getNode().name, {
				connectionType: NodeConnectionTypes.AiTool,
				depth: 1,
			})[0];
			return {
				actions: items.map((item, itemIndex) => ({
					actionType: 'ExecutionNodeAction' as const,
					nodeName: toolNode.name,
					input: item.json.arguments as IDataObject,
					type: NodeConnectionTypes.AiTool,
					id: `call_${itemIndex}`,
					metadata: { itemIndex },
				})),
				metadata: {},
			};
		}
		return [
			response.actionResponses.map(({ action, data }) => {
				const answer = data?.data?.ai_tool?.[0]?.map((item) => item?.json);
				const call: ToolCall =
					answer && answer.length > 0
						? { text: JSON.stringify(answer), isError: false }
						: {
								text: JSON.stringify({ error: data?.error?.message ?? 'Unknown error' }),
								isError: data?.error !== undefined,
							};
				return {
					json: { ...call },
					pairedItem: { item: (action.metadata as { itemIndex: number }).itemIndex },
				};
			}),
		];
	}
}

class ToolNodeTypes extends TestNodeTypes {
	private readonly extra = new Map<string, INodeType>([
		[COMPANY_REGISTRY_TOOL_TYPE, toolVariant(new CompanyRegistry())],
		[MCP_CLIENT_TYPE, new McpToolCaller()],
		[AGENT_TYPE, new AgentV3ToolCaller()],
	]);

	override getByNameAndVersion(nodeType: string, version?: number): INodeType {
		return this.extra.get(nodeType) ?? super.getByNameAndVersion(nodeType, version);
	}
}

/** An Engine (one n8n instance) that also knows the tool variant and the two tool callers. */
class ToolEngine extends Engine {
	override readonly nodeTypes = new ToolNodeTypes();
}

export type ToolCaller = 'mcp' | 'agent';

/** The Company Registry Tool node of examples/workflows/kyb-agent.json, its $fromAI parameters as shipped. */
export function exampleToolNode(): INode {
	const node = loadWorkflow('examples/workflows/kyb-agent.json').nodes.find(
		(candidate) => candidate.type === COMPANY_REGISTRY_TOOL_TYPE,
	)!;
	return {
		...node,
		credentials: { companyRegistryApi: { id: CREDENTIAL_ID, name: 'Company Registry sandbox' } },
	};
}

/** Manual Trigger → caller, with the tool node attached to the caller's Tools input. */
function toolWorkflow(caller: ToolCaller, toolNode: INode = exampleToolNode()): WorkflowFile {
	const callerNode: INode = {
		id: 'caller',
		name: caller === 'mcp' ? 'MCP client' : 'AI Agent',
		type: caller === 'mcp' ? MCP_CLIENT_TYPE : AGENT_TYPE,
		typeVersion: 1,
		position: [200, 0],
		parameters: {},
	};
	return {
		name: `Company Registry Tool called by ${caller}`,
		nodes: [
			{
				id: 'trigger',
				name: 'Manual Trigger',
				type: 'n8n-nodes-base.manualTrigger',
				typeVersion: 1,
				position: [0, 0],
				parameters: {},
			},
			callerNode,
			toolNode,
		],
		connections: {
			'Manual Trigger': {
				main: [[{ node: callerNode.name, type: NodeConnectionTypes.Main, index: 0 }]],
			},
			[toolNode.name]: {
				ai_tool: [[{ node: callerNode.name, type: NodeConnectionTypes.AiTool, index: 0 }]],
			},
		},
	};
}

export function toolEngineFor(sandbox: Pick<Sandbox, 'baseUrl' | 'authUrl'>): Engine {
	const engine = new ToolEngine();
	engine.saveCredential(CREDENTIAL_ID, {
		clientId: DEMO_CLIENT.clientId,
		clientSecret: DEMO_CLIENT.clientSecret,
		baseUrl: sandbox.baseUrl,
		authUrl: sandbox.authUrl,
	});
	return engine;
}

/** Runs one execution in which the caller makes one tool call per argument set; returns what it got. */
export async function callTool(
	engine: Engine,
	caller: ToolCaller,
	calls: IDataObject[],
	toolNode?: INode,
): Promise<
	Array<
		ToolCall & {
			answer: unknown;
			name?: string;
			description?: string;
			schemaAcceptsArguments?: boolean;
		}
	>
> {
	const workflow = toolWorkflow(caller, toolNode);
	const result = await engine.execute(workflow, {
		rows: calls.map((args) => ({ arguments: args })),
	});
	const error = result.run.data.resultData.error;
	if (error) throw new Error(`The execution failed: ${error.message}`);
	const callerName = workflow.nodes[1].name;
	return (result.outputOf(callerName)[0] ?? []).map((item) => {
		const call = item.json as unknown as ToolCall;
		let answer: unknown;
		try {
			answer = JSON.parse(call.text);
		} catch {
			answer = undefined;
		}
		return { ...item.json, ...call, answer };
	});
}
