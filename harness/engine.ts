import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';

import { Logger } from '@n8n/backend-common';
import { Container } from '@n8n/di';
import { ExecutionLifecycleHooks, PollContext, WorkflowExecute } from 'n8n-core';
import {
	createRunExecutionData,
	LoggerProxy,
	Workflow,
	type ICredentialDataDecryptedObject,
	type IConnections,
	type IDataObject,
	type INode,
	type INodeExecutionData,
	type IPinData,
	type IRun,
	type IWorkflowBase,
	type IWorkflowExecuteAdditionalData,
	type IWorkflowSettings,
	type WorkflowExecuteMode,
} from 'n8n-workflow';

import { RateController } from '../nodes/shared/transport/rateControl';
import { TestCredentialsHelper } from './credentialsHelper';
import { TestNodeTypes } from './nodeTypes';
import { ProcessedItemsStore } from './processedItems';
import { useProcessedItemsStore } from './processedItemsService';

/** A workflow in the JSON shape n8n exports (Download / n8n export:workflow). */
export interface WorkflowFile {
	id?: string;
	name: string;
	nodes: INode[];
	connections: IConnections;
	pinData?: IPinData;
	settings?: IWorkflowSettings;
	staticData?: IDataObject | null;
}

export function loadWorkflow(path: string): WorkflowFile {
	return JSON.parse(readFileSync(resolve(path), 'utf8')) as WorkflowFile;
}

export interface EngineResult {
	run: IRun;
	/** The output arrays (one per output) of a node's last run. */
	outputOf(nodeName: string): INodeExecutionData[][];
	/** The error a node stopped with, if it did. */
	errorOf(nodeName: string): IRun['data']['resultData']['error'];
	/** The workflow's static data after the run (what n8n would save). */
	staticData: IDataObject;
}

/**
 * Runs workflows through n8n-core's WorkflowExecute, as n8n does for a manual or production run, with
 * the project's credentials helper and node types. One Engine is one n8n instance: its credential
 * store lives across executions, so a token fetched in one run is reused by the next.
 */
export class Engine {
	readonly credentials = new TestCredentialsHelper();
	readonly nodeTypes = new TestNodeTypes();
	/** Every line n8n's logger received (the engine's and the nodes' `this.logger`), with its metadata. */
	readonly logs: string[] = [];
	/** Called with every log line as it arrives: lets a test act when the engine does something (a try of a node failed). */
	onLog: ((line: string) => void) | undefined;
	/** Workflow static data as n8n's database keeps it, by workflow id. */
	private readonly savedStaticData = new Map<string, IDataObject>();
	/** n8n's processed-items store (the deduplication helpers' table) of this n8n. */
	readonly processedItems = new ProcessedItemsStore();

	constructor() {
		// One Engine is one n8n process: what the rate controllers learned in another one does not apply.
		RateController.forgetAll();
		// n8n's logger (what nodes reach as `this.logger`, and LoggerProxy) writes into `logs` instead of
		// the console. Debug lines arrive when N8N_LOG_LEVEL is debug, as jest's setup sets it.
		const logger = Container.get(Logger);
		const recorder = {
			log: (level: string, message: string, meta?: object) => {
				const line = `${level} ${message} ${meta ? JSON.stringify(meta) : ''}`;
				this.logs.push(line);
				this.onLog?.(line);
			},
			child: () => recorder,
		};
		(logger as unknown as { setInternalLogger(internal: unknown): void }).setInternalLogger(
			recorder,
		);
		LoggerProxy.init(logger);
	}

	saveCredential(
		id: string,
		data: ICredentialDataDecryptedObject,
		type = 'companyRegistryApi',
	): void {
		this.credentials.save(id, type, data);
	}

	/** The static data n8n has saved for a workflow (a deep copy, as read back from the database). */
	staticDataOf(workflowId = 'test-workflow'): IDataObject {
		return structuredClone(this.savedStaticData.get(workflowId) ?? {});
	}

	setStaticData(data: IDataObject, workflowId = 'test-workflow'): void {
		this.savedStaticData.set(workflowId, structuredClone(data));
	}

	private workflowOf(
		workflowFile: WorkflowFile,
		pinData: IPinData = {},
		staticDataLoaded = true,
	): Workflow {
		const id = workflowFile.id ?? 'test-workflow';
		useProcessedItemsStore(this.processedItems);
		return new Workflow({
			id,
			name: workflowFile.name,
			nodes: workflowFile.nodes,
			connections: workflowFile.connections,
			active: false,
			nodeTypes: this.nodeTypes,
			staticData: staticDataLoaded ? this.staticDataOf(id) : {},
			settings: { executionOrder: 'v1', ...workflowFile.settings },
			pinData,
		});
	}

	/**
	 * As n8n does after an execution or a poll: static data is saved only when it changed, and never
	 * for a manual run (WorkflowStaticDataService / ActiveWorkflowManager).
	 */
	private saveStaticData(workflow: Workflow, mode: WorkflowExecuteMode): void {
		const data = workflow.staticData as IDataObject & { __dataChanged?: boolean };
		if (mode === 'manual' || data.__dataChanged !== true) return;
		this.savedStaticData.set(workflow.id, JSON.parse(JSON.stringify(data)) as IDataObject);
		// n8n clears the flag once it has saved: only later writes it can see make the next save.
		data.__dataChanged = false;
	}

	/** Active workflows: n8n keeps one Workflow object per active workflow and polls it again and again. */
	private readonly active = new Map<string, Workflow>();

	/** As a restart of n8n: active workflows are built anew from what was saved. */
	restart(): void {
		this.active.clear();
	}

	/**
	 * Calls `listener` each time a try of the node ends with an error, with how many of its tries have
	 * failed so far: WorkflowExecute logs each one before Retry On Fail waits and runs the node again.
	 */
	onTryFailed(nodeName: string, listener: (failedTries: number) => void): void {
		let failedTries = 0;
		this.onLog = (line) => {
			if (line.includes(`Running node "${nodeName}" finished with error`)) listener(++failedTries);
		};
	}

	/**
	 * How often the node was run, from the engine's debug log: each try after a thrown error counts (a try
	 * that n8n repeats because the node returned an item with `error` first is not logged).
	 */
	triesOf(nodeName: string): number {
		return this.logs.filter((line) => line.includes(`Running node "${nodeName}" started`)).length;
	}

	/**
	 * Runs one poll of a polling trigger node, as n8n's poll scheduler does (mode 'trigger'): on the same
	 * Workflow object each time, as n8n's ActiveWorkflows do; or its "Fetch Test Event" ('manual').
	 * `pollBudgetMs`: the time budget n8n 2.41.1 gives a poll (`getPollBudgetMs`). Under the durable
	 * scheduler it is min(N8N_SCHEDULER_POLL_TIMEOUT, N8N_SCHEDULER_LEASE_DURATION) less a margin, and a
	 * poll past the timeout is abandoned (TriggerExecutionContextFactory.getExecutePollFunctions,
	 * PollTriggerTaskHandler); without it PollContext's default (5 minutes) applies, as here by default.
	 *
	 * Static data is saved as n8n 2.41.1 saves it, not after every poll:
	 * - legacy scheduler (the default, `scheduler: 'legacy'`): the first poll on a Workflow object is the
	 *   activation poll, saved by ActiveWorkflowManager.add after addTriggers (also after a restart, which
	 *   activates every workflow anew); a later poll is saved only when it returns items, by the poll
	 *   context's `__emit` (TriggerExecutionContextFactory.getExecutePollFunctions). A poll that returns
	 *   null (PollTriggerExecutor) or throws (recordTriggerFailure) saves nothing: its static data lives
	 *   only in the Workflow object, until the next save or a restart.
	 * - `scheduler: 'durable'` (N8N_SCHEDULER_ENABLED with N8N_SCHEDULER_POLL_TRIGGERS_ENABLED): every
	 *   poll builds a new Workflow from the saved data (createPollExecutionContext) and only `__emit`
	 *   saves.
	 * - `scheduler: 'durableCursors'` (and N8N_POLLER_DURABLE_CURSORS_ENABLED): as 'durable', and a poll
	 *   that returns null commits its static data as the poll cursor (`__commitCursor`,
	 *   PollCursorService.commitCursorOnly), which the next poll starts from.
	 */
	async poll(
		workflowFile: WorkflowFile,
		nodeName: string,
		mode: 'trigger' | 'manual' = 'trigger',
		{
			pollBudgetMs,
			scheduler = 'legacy',
		}: { pollBudgetMs?: number; scheduler?: 'legacy' | 'durable' | 'durableCursors' } = {},
	) {
		// Saving a changed workflow re-activates it in n8n: a new definition gets a new Workflow object.
		const activation = `${workflowFile.id ?? 'test-workflow'} ${JSON.stringify(workflowFile.nodes)}`;
		const kept =
			mode === 'manual' || scheduler !== 'legacy' ? undefined : this.active.get(activation);
		const activationPoll = mode !== 'manual' && scheduler === 'legacy' && kept === undefined;
		// n8n's Workflow writes the parameters' defaults into the nodes it is given: a copy keeps the
		// definition, and so the activation above, the same from poll to poll.
		const workflow =
			kept ?? this.workflowOf({ ...workflowFile, nodes: structuredClone(workflowFile.nodes) });
		if (mode !== 'manual' && scheduler === 'legacy') this.active.set(activation, workflow);
		const node = workflow.getNode(nodeName);
		if (!node) throw new Error(`No node ${nodeName}`);
		const nodeType = this.nodeTypes.getByNameAndVersion(node.type, node.typeVersion);
		const context = new PollContext(
			workflow,
			node,
			this.additionalData(mode, workflowFile),
			mode,
			mode === 'manual' ? 'manual' : 'activate',
			undefined,
			undefined,
			undefined,
			undefined,
			undefined,
			pollBudgetMs === undefined ? undefined : () => pollBudgetMs,
		);
		let result: INodeExecutionData[][] | null;
		try {
			result = await nodeType.poll!.call(context);
		} catch (error) {
			// A failed activation poll fails the activation (nothing saved; n8n activates it anew later,
			// ActiveWorkflowManager.add); a failed later poll saves nothing either (recordTriggerFailure).
			if (activationPoll) this.active.delete(activation);
			throw error;
		}
		if (result !== null || activationPoll || scheduler === 'durableCursors')
			this.saveStaticData(workflow, mode);
		return result;
	}

	/**
	 * Runs a workflow. `rows` become the output of `rowsNode` (pinned, as a user pins a node's output in
	 * the editor), and the run starts there; by default that is the workflow's Manual Trigger. `onWorker`
	 * runs it as n8n 2.41.1 runs a production execution on a queue-mode worker: from no static data (the
	 * saved state is not loaded; README › Running at scale), saving what the run leaves.
	 */
	async execute(
		workflowFile: WorkflowFile,
		options: {
			rows?: IDataObject[];
			rowsNode?: string;
			mode?: WorkflowExecuteMode;
			onWorker?: boolean;
			/** Called once the run has started, with what n8n calls when a user stops the execution. */
			onStarted?: (cancel: () => void) => void;
		} = {},
	): Promise<EngineResult> {
		const mode = options.mode ?? 'manual';
		const trigger = options.rowsNode
			? workflowFile.nodes.find((node) => node.name === options.rowsNode)
			: workflowFile.nodes.find((node) => node.type === 'n8n-nodes-base.manualTrigger');
		const pinData: IPinData = { ...(workflowFile.pinData ?? {}) };
		if (options.rows && trigger) pinData[trigger.name] = options.rows.map((json) => ({ json }));
		const workflow = this.workflowOf(workflowFile, pinData, options.onWorker !== true);
		const additionalData = this.additionalData(mode, workflowFile);
		const runExecutionData = createRunExecutionData({ resultData: { runData: {}, pinData } });
		const execution = new WorkflowExecute(additionalData, mode, runExecutionData);
		const running = execution.run({ workflow, startNode: trigger, pinData });
		options.onStarted?.(() => running.cancel());
		const run = await running;
		this.saveStaticData(workflow, mode);

		return {
			run,
			outputOf(nodeName) {
				const taskData = run.data.resultData.runData[nodeName];
				const last = taskData?.[taskData.length - 1];
				return (last?.data?.main ?? []).map((items) => items ?? []);
			},
			errorOf(nodeName) {
				const taskData = run.data.resultData.runData[nodeName];
				return taskData?.[taskData.length - 1]?.error;
			},
			staticData: workflow.staticData as IDataObject,
		};
	}

	/** What n8n hands an execution (also the credential Test, harness/credentialsTester.ts). */
	additionalData(
		mode: WorkflowExecuteMode,
		workflowFile: WorkflowFile,
	): IWorkflowExecuteAdditionalData {
		const executionId = randomUUID();
		const workflowData: IWorkflowBase = {
			id: workflowFile.id ?? 'test-workflow',
			name: workflowFile.name,
			active: false,
			activeVersionId: null,
			isArchived: false,
			nodes: workflowFile.nodes,
			connections: workflowFile.connections,
			createdAt: new Date(),
			updatedAt: new Date(),
		} as IWorkflowBase;
		return {
			credentialsHelper: this.credentials,
			hooks: new ExecutionLifecycleHooks(mode, executionId, workflowData),
			executionId,
			currentNodeExecutionIndex: 0,
			restApiUrl: 'http://localhost:5678/rest',
			instanceBaseUrl: 'http://localhost:5678/',
			formBaseUrl: 'http://localhost:5678/form',
			formWaitingBaseUrl: 'http://localhost:5678/form-waiting',
			formTestBaseUrl: 'http://localhost:5678/form-test',
			webhookBaseUrl: 'http://localhost:5678/webhook',
			webhookWaitingBaseUrl: 'http://localhost:5678/webhook-waiting',
			webhookTestBaseUrl: 'http://localhost:5678/webhook-test',
			mcpBaseUrl: 'http://localhost:5678/mcp',
			mcpTestBaseUrl: 'http://localhost:5678/mcp-test',
			variables: {},
			executeWorkflow: async () => {
				throw new Error('Sub-workflows are not part of these tests');
			},
			getRunExecutionData: async () => undefined,
			getRuntimeCredential: async () => undefined,
			logAiEvent: () => {},
			startRunnerTask: async () => {
				throw new Error('Task runners are not part of these tests');
			},
		} as unknown as IWorkflowExecuteAdditionalData;
	}
}
