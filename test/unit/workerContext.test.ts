import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

import type { FileReport } from '../workerContext/report';

// The suite's jest environment (test/workerContextEnvironment.js) and runtime (test/workerCacheRuntime.js):
// the test files of one worker share node_modules' modules, evaluated once in one vm context, and nothing
// else. Two files run one after the other in one worker, each reporting what the other left.
// A minute of wall time for a few seconds of CPU: a jest of its own on a loaded machine.
jest.setTimeout(180_000);

it("a worker's second test file gets n8n's modules from the first, but not its globals, timers or own modules", () => {
	const root = resolve(__dirname, '..', '..');
	const reportFile = join(mkdtempSync(join(tmpdir(), 'worker-context-')), 'files.jsonl');
	const jest = spawnSync(
		process.execPath,
		[
			join(root, 'node_modules', 'jest', 'bin', 'jest.js'),
			'--ci',
			'--runInBand',
			'--roots',
			'<rootDir>/test/workerContext',
			'--testMatch',
			'**/*.fixture.ts',
		],
		{
			cwd: root,
			encoding: 'utf8',
			// The suite's global setup makes a signing key only when none is given (a second of CPU).
			env: { ...process.env, WORKER_CONTEXT_REPORT: reportFile, SANDBOX_SIGNING_KEY: 'unused' },
		},
	);
	expect(jest.stderr).toContain('2 passed');
	const [first, second] = readFileSync(reportFile, 'utf8')
		.trim()
		.split('\n')
		.map((line) => JSON.parse(line) as FileReport);
	expect(first).toEqual({
		file: first.file,
		n8nWorkflowMarkedBy: undefined,
		globalLeftBy: undefined,
		projectModuleOf: undefined,
		n8nErrorIsError: true,
		loadedGlobalsKept: true,
		processEnvLeftBy: undefined,
		fakeTimersLeft: false,
	});
	expect(second).toEqual({
		file: second.file,
		n8nWorkflowMarkedBy: first.file,
		globalLeftBy: undefined,
		projectModuleOf: undefined,
		n8nErrorIsError: true,
		loadedGlobalsKept: true,
		processEnvLeftBy: undefined,
		fakeTimersLeft: false,
	});
});
