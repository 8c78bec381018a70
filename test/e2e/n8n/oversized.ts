// test:n8n, issue 21: oversized answers in a real n8n. A production run (webhook) of a 1,000-row sheet
// in the running `n8n start` process, On Error → Continue (using error output), against a registry
// that answers 50 of the companies with a gzip body of 8 KB inflating to 8 MB, and 50 with a plain
// 256 KB record. Those rows must leave by the error output with the size message, every other row by
// Registered or Not Registered; n8n must stay up (the following runs work the same), and the main process's
// RSS stay bounded: the node reads at most 64 KB of an answer (before issue 21, five 100 MB answers took
// an n8n process from 411 MB to 1.2 GB, and twenty ran it out of heap).
import { readFileSync } from 'node:fs';

import { startSandbox, type CompanyFault } from '../../../sandbox/server';
import { nodeOutputs, waitFor, type Checklist, type RunningN8n } from '../lib/realN8n';
import { Rest } from '../lib/rest';
import {
	lookUp,
	sheet,
	webhook,
	workflow,
	type CredentialRef,
	type WorkflowFile,
} from '../lib/workflows';

const ROWS = 1000;
/** Every 10th row gets an oversized answer: gzip bombs and plain large bodies in turn. */
const OVERSIZED_EVERY = 10;
const WEBHOOK_PATH = 'oversized-answers';
const RUNS = 3;
/** Then the same sheet with every answer normal, for comparison: what n8n's RSS does without them. */
const CONTROL_RUNS = 2;
/**
 * The bound on the n8n process's RSS over all runs, above its RSS before the first: what the 50 gzip
 * bodies of a single run inflate to (400 MB), so that reading them whole, once, would pass it. n8n's
 * own growth over runs of this sheet, without oversized answers, is printed beside it (control runs).
 */
const RSS_GROWTH_BOUND_MB = 400;
const SIZE_MESSAGE = "The registry's answer is larger than 64 KB";

const companyId = (index: number) => String(40_000_000 + index);
const faultOf = (index: number): CompanyFault | undefined =>
	index % OVERSIZED_EVERY === OVERSIZED_EVERY - 1
		? (index / OVERSIZED_EVERY) % 2 < 1
			? 'gzip-bomb'
			: 'oversized'
		: undefined;

function sheetWorkflow(credential: CredentialRef): WorkflowFile {
	const rows = Array.from({ length: ROWS }, (_, index) => ({
		country: 'gb',
		companyId: companyId(index),
	}));
	return workflow(`Oversized answers: ${ROWS} rows`, [
		webhook(WEBHOOK_PATH),
		sheet(rows),
		lookUp(credential),
	]);
}

/** The process's resident set size now, in MB (Linux). */
function rssMb(pid: number): number {
	const line = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
	return line ? Number(line[1]) / 1024 : NaN;
}

export async function checkOversized(n8n: RunningN8n, checklist: Checklist): Promise<void> {
	const { check, log } = {
		check: checklist.check.bind(checklist),
		log: checklist.log.bind(checklist),
	};
	const pid = n8n.process.pid!;
	const rest = new Rest(n8n);
	const sandbox = await startSandbox({ port: 0 });
	let workflowId = '';
	try {
		for (let index = 0; index < ROWS; index++) {
			const fault = faultOf(index);
			if (fault) sandbox.setCompanyFault({ country: 'gb', companyId: companyId(index) }, fault);
		}
		const oversizedRows = new Set(
			Array.from({ length: ROWS }, (_, index) => index).filter((index) => faultOf(index)),
		);
		const credential = await rest.createSandboxCredential(
			'Company Registry (oversized answers)',
			sandbox,
		);
		workflowId = await rest.createActiveWorkflow(
			sheetWorkflow({ id: credential.id, name: credential.name }),
		);
		await waitFor(
			'the production webhook',
			async () =>
				(await fetch(`${n8n.base}/webhook/${WEBHOOK_PATH}`, { method: 'POST' })).status !== 404,
			60,
		);
		// The probe above started a run: wait for it, so that each measured run starts from quiet.
		await waitFor(
			'the probe run',
			async () => (await rest.finishedExecutions(workflowId)).length >= 1,
			300,
		);
		const rssBefore = rssMb(pid);
		for (let run = 1; run <= RUNS + CONTROL_RUNS; run++) {
			const control = run > RUNS;
			if (run === RUNS + 1)
				for (const index of oversizedRows)
					sandbox.setCompanyFault({ country: 'gb', companyId: companyId(index) }, undefined);
			const expectedFailed = control ? new Set<number>() : oversizedRows;
			const what = control
				? `control run ${run - RUNS} (no oversized answer)`
				: `oversized run ${run}`;
			const finished = (await rest.finishedExecutions(workflowId)).length;
			sandbox.resetCounters();
			let peak = rssMb(pid);
			const sampler = setInterval(() => {
				peak = Math.max(peak, rssMb(pid));
			}, 100);
			const started = performance.now();
			try {
				await fetch(`${n8n.base}/webhook/${WEBHOOK_PATH}`, { method: 'POST' });
				await waitFor(
					what,
					async () => (await rest.finishedExecutions(workflowId)).length > finished,
					300,
				);
			} finally {
				clearInterval(sampler);
			}
			const seconds = (performance.now() - started) / 1000;
			const execution = (await rest.finishedExecutions(workflowId)).at(-1)!;
			const output = await rest.execution(execution.id);
			const { registered, notRegistered, failed, rowOf, errorOf } = nodeOutputs(output);
			const failedRows = new Set(failed.map(rowOf));
			const passedRows = new Set([...registered, ...notRegistered].map(rowOf));
			const sizeMessages = failed.filter((item) => errorOf(item).startsWith(SIZE_MESSAGE)).length;
			const messages = [...new Set(failed.map(errorOf))];
			const rssAfter = rssMb(pid);
			log(
				`${what}: rows=${ROWS} oversized=${expectedFailed.size} failed=${failed.length} size_messages=${sizeMessages} ` +
					`passed=${passedRows.size} rss_before_mb=${rssBefore.toFixed(0)} rss_peak_mb=${peak.toFixed(0)} ` +
					`rss_after_mb=${rssAfter.toFixed(0)} wall_s=${seconds.toFixed(1)} (lookups ${sandbox.counters.lookups}, open sockets ${sandbox.openSockets()})`,
			);
			if (!control) log(`${what}: messages ${JSON.stringify(messages)}`);
			check(
				execution.status === 'success' && output.data.resultData.error === undefined,
				`${what}: the execution succeeded (${execution.status} ${output.data.resultData.error?.message ?? ''})`,
			);
			check(
				failed.length === expectedFailed.size &&
					sizeMessages === expectedFailed.size &&
					[...expectedFailed].every((index) => failedRows.has(index)),
				`${what}: the ${expectedFailed.size} oversized rows, and only they, fail with "${SIZE_MESSAGE}…" (${failed.length} failed, ${sizeMessages} with the message: ${JSON.stringify(failed[0]?.json.error)})`,
			);
			check(
				passedRows.size === ROWS - expectedFailed.size &&
					registered.length + notRegistered.length === passedRows.size &&
					[...passedRows].every((index) => !expectedFailed.has(index)),
				`${what}: every other row passes, once (${passedRows.size} of ${ROWS - expectedFailed.size})`,
			);
			if (!control)
				check(
					peak - rssBefore <= RSS_GROWTH_BOUND_MB,
					`${what}: n8n's RSS grew at most ${RSS_GROWTH_BOUND_MB} MB (${rssBefore.toFixed(0)} → peak ${peak.toFixed(0)} MB)`,
				);
			check(
				n8n.process.exitCode === null && (await fetch(`${n8n.base}/healthz`)).ok,
				`${what}: n8n is still up`,
			);
		}
	} finally {
		if (workflowId) await rest.call('POST', `/workflows/${workflowId}/deactivate`, {});
		await sandbox.close();
	}
}
