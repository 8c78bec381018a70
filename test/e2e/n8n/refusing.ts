// test:n8n: a registry that refuses every request and tells nothing (a key blocked, a daily quota spent
// without headers or Retry-After), in a real n8n. A production run (webhook) of a 100-row sheet, On Error →
// Continue (using error output), Max Rate-Limit Wait at its default (60 s): every row must leave by the
// error output with the rate-limit message, once, and the run end within about that wait. Each row waiting
// its own turn and its own minute took 12 minutes (bench:sim's guard); the execution now gives up the rows
// not yet answered once the registry has admitted none of its lookups for the wait (refusalStreak.ts).
import { startSandbox } from '../../../sandbox/server';
import { nodeOutputs, waitFor, type Checklist, type RunningN8n } from '../lib/realN8n';
import { Rest } from '../lib/rest';
import { lookUp, sheet, webhook, workflow } from '../lib/workflows';

const ROWS = 100;
const WEBHOOK_PATH = 'refusing-registry';
/** The default Max Rate-Limit Wait, and what the run may take beyond it (the last lone ask, n8n's own). */
const WAIT_S = 60;
const SLACK_S = 30;
const MESSAGE = 'The registry kept answering 429 Too Many Requests beyond the Max Rate-Limit Wait';

export async function checkRefusing(n8n: RunningN8n, checklist: Checklist): Promise<void> {
	const check = checklist.check.bind(checklist);
	const log = checklist.log.bind(checklist);
	const rest = new Rest(n8n);
	const sandbox = await startSandbox({
		port: 0,
		rateLimit: { dailyQuota: 0 },
		rateLimitHeaders: 'none',
	});
	let workflowId = '';
	try {
		const credential = await rest.createSandboxCredential(
			'Company Registry (refusing everything)',
			sandbox,
		);
		const rows = Array.from({ length: ROWS }, (_, index) => ({
			country: 'gb',
			companyId: String(50_000_000 + index),
		}));
		workflowId = await rest.createActiveWorkflow(
			workflow(`Refusing registry: ${ROWS} rows`, [
				webhook(WEBHOOK_PATH),
				sheet(rows),
				lookUp({ id: credential.id, name: credential.name }),
			]),
		);
		sandbox.resetCounters();
		// The first call the production webhook takes is the measured run.
		let started = 0;
		await waitFor(
			'the production webhook',
			async () => {
				started = performance.now();
				return (
					(await fetch(`${n8n.base}/webhook/${WEBHOOK_PATH}`, { method: 'POST' })).status !== 404
				);
			},
			60,
		);
		await waitFor(
			'the refused run',
			async () => (await rest.finishedExecutions(workflowId)).length >= 1,
			15 * 60,
		);
		const seconds = (performance.now() - started) / 1000;
		const execution = (await rest.finishedExecutions(workflowId)).at(-1)!;
		const output = await rest.execution(execution.id);
		const { registered, notRegistered, failed, rowOf, errorOf } = nodeOutputs(output);
		const failedRows = new Set(failed.map(rowOf));
		const withMessage = failed.filter((item) => errorOf(item).startsWith(MESSAGE)).length;
		log(
			`refusing registry: rows=${ROWS} failed=${failed.length} with_message=${withMessage} passed=${registered.length + notRegistered.length} ` +
				`requests=${sandbox.counters.lookups} wall_s=${seconds.toFixed(1)} (wait ${WAIT_S} s)`,
		);
		check(
			execution.status === 'success' && output.data.resultData.error === undefined,
			`refusing registry: the execution succeeded, its rows on the error output (${execution.status})`,
		);
		check(
			failed.length === ROWS && failedRows.size === ROWS && withMessage === ROWS,
			`refusing registry: each of the ${ROWS} rows fails once, with "${MESSAGE}…" (${failed.length} failed, ${failedRows.size} rows, ${withMessage} with the message)`,
		);
		check(
			registered.length + notRegistered.length === 0,
			'refusing registry: no row leaves by Registered or Not Registered',
		);
		check(
			seconds >= WAIT_S && seconds < WAIT_S + SLACK_S,
			`refusing registry: the run ends after the Max Rate-Limit Wait and within ${WAIT_S + SLACK_S} s (${seconds.toFixed(1)} s)`,
		);
	} finally {
		if (workflowId) await rest.call('POST', `/workflows/${workflowId}/deactivate`, {});
		await sandbox.close();
	}
}
