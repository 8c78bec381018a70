import { appendFileSync } from 'node:fs';

import { jsonParse } from 'n8n-workflow';

import { evaluation } from './projectModule';

/** What one test file of the pair found, as test/unit/workerContext.test.ts reads it. */
export interface FileReport {
	file: string;
	/** The file before it in this worker that marked n8n-workflow's jsonParse, if it is the same function. */
	n8nWorkflowMarkedBy: string | undefined;
	/** A global the file before it set, if it is still there. */
	globalLeftBy: string | undefined;
	/** The project module as the file before it had it, if it is the same module. */
	projectModuleOf: string | undefined;
	/** Whether an error n8n-workflow throws is an `Error` to this file's code. */
	n8nErrorIsError: boolean;
	/** Whether tslib's helpers, which n8n-workflow's loading puts in the globals, are there. */
	loadedGlobalsKept: boolean;
	/** What the file before it wrote in process.env, if it is still there. */
	processEnvLeftBy: string | undefined;
	/** Whether the file before it left its fake timers on this one. */
	fakeTimersLeft: boolean;
}

interface Marked {
	markedBy?: string;
	projectModule?: typeof evaluation;
}

/** Looks at what the file before left, then leaves the same marks for the next, and reports. */
export function reportAndMark(file: string): void {
	const n8nWorkflow = jsonParse as Marked;
	const global = globalThis as { leftByFile?: string };
	let n8nErrorIsError = false;
	try {
		jsonParse('{');
	} catch (error) {
		n8nErrorIsError = error instanceof Error;
	}
	const report: FileReport = {
		file,
		n8nWorkflowMarkedBy: n8nWorkflow.markedBy,
		globalLeftBy: global.leftByFile,
		projectModuleOf: n8nWorkflow.projectModule === evaluation ? evaluation.file : undefined,
		n8nErrorIsError,
		loadedGlobalsKept: typeof (globalThis as { __extends?: unknown }).__extends === 'function',
		processEnvLeftBy: process.env.WORKER_CONTEXT_LEFT_BY,
		fakeTimersLeft: jest.isMockFunction(setTimeout) || Date.now() === 0,
	};
	process.env.WORKER_CONTEXT_LEFT_BY = file;
	n8nWorkflow.markedBy = file;
	evaluation.file = file;
	n8nWorkflow.projectModule = evaluation;
	global.leftByFile = file;
	jest.useFakeTimers({ now: 0 });
	appendFileSync(process.env.WORKER_CONTEXT_REPORT ?? '', `${JSON.stringify(report)}\n`);
}
