// test:n8n, issue 23: `npm run dev` as a developer runs it, in a throwaway user folder
// (N8N_DEV_USER_FOLDER). It must print the editor's address; that address must serve n8n's editor with
// the node loaded; the sample-sheet template must run there with the "Company Registry (sandbox)"
// credential, clicked in headless Chromium as a user does; a screenshot of the node's panel with its
// result goes to docs/dev-node-panel.png; and Ctrl-C (SIGINT to the process group, as a terminal sends
// it) must stop everything it started.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { Browser } from '../lib/browser';
import {
	OWNER,
	PACKAGE_NAME,
	root,
	waitFor,
	type Checklist,
	type Processes,
	type RunningN8n,
} from '../lib/realN8n';
import { Rest } from '../lib/rest';

const TEMPLATE_ID = 'template-company-lookup';
const NODE_NAME = 'Company Registry';
/** The node's id in examples/workflows/company-lookup.json. */
const NODE_ID = '5b0e8a51-6f0c-4d8e-9a57-1a2f3c4d5e02';
export const devScreenshotPath = join(root, 'docs', 'dev-node-panel.png');

export async function checkDev(checklist: Checklist, processes: Processes): Promise<void> {
	const { check, log } = {
		check: checklist.check.bind(checklist),
		log: checklist.log.bind(checklist),
	};
	const userFolder = mkdtempSync(join(tmpdir(), 'n8n-dev-'));
	// Its own process group: SIGINT to the group is what a terminal's Ctrl-C does.
	const dev = spawn('npm', ['run', 'dev', '--silent'], {
		cwd: root,
		env: { ...process.env, N8N_DEV_USER_FOLDER: userFolder },
		detached: true,
		stdio: ['ignore', 'pipe', 'pipe'],
	});
	let output = '';
	dev.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
	dev.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
	const exited = new Promise<number | null>((done) => dev.once('exit', (code) => done(code)));
	let stopped = false;
	let passed = false;
	const stop = async () => {
		if (stopped || dev.exitCode !== null) return;
		stopped = true;
		process.kill(-dev.pid!, 'SIGINT');
		await Promise.race([exited, new Promise((done) => setTimeout(done, 30_000))]);
		if (dev.exitCode === null && dev.signalCode === null) process.kill(-dev.pid!, 'SIGKILL');
	};
	try {
		let editor = '';
		await checklist.timed('npm run dev until it prints the editor', () =>
			waitFor(
				'npm run dev to print "Editor: http://localhost:PORT"',
				async () => {
					if (dev.exitCode !== null) throw new Error(`npm run dev ended early:\n${output}`);
					editor = /Editor:\s+(http:\/\/localhost:\d+)/.exec(output)?.[1] ?? '';
					return editor !== '';
				},
				600,
			),
		);
		log(`npm run dev: ${editor}`);
		const page = await fetch(editor);
		check(
			page.ok && (await page.text()).includes('n8n'),
			`the printed editor address serves n8n's editor (HTTP ${page.status})`,
		);
		const login = await fetch(`${editor}/rest/login`, {
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body: JSON.stringify({ emailOrLdapLoginId: OWNER.email, password: OWNER.password }),
		});
		const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0];
		check(login.ok, `the printed sign-in works (HTTP ${login.status})`);
		const n8n = { base: editor, cookie } as RunningN8n;
		const nodeTypes = (await (
			await fetch(`${editor}/types/nodes.json`, { headers: { cookie } })
		).json()) as Array<{ name: string }>;
		check(
			nodeTypes.some((type) => type.name === `${PACKAGE_NAME}.companyRegistry`),
			`npm run dev: n8n loaded ${PACKAGE_NAME}.companyRegistry`,
		);

		const rest = new Rest(n8n);
		await checklist.timed('npm run dev: the template run in the editor, screenshot', async () => {
			// Chromium's log outside the dev user folder, which is removed before Chromium ends.
			const browser = await Browser.start(
				processes,
				mkdtempSync(join(tmpdir(), 'n8n-dev-browser-')),
				log,
			);
			try {
				await browser.setCookie(editor, cookie);
				await browser.send('Page.navigate', { url: `${editor}/workflow/${TEMPLATE_ID}` });
				const button = `document.querySelector('[data-test-id="execute-workflow-button"]')`;
				await waitFor(
					'the template on the canvas',
					async () => (await browser.evaluate<boolean>(`!!${button}`)) === true,
					120,
				);
				await new Promise((done) => setTimeout(done, 1500));
				await browser.evaluate(`${button}.click()`);
				await waitFor(
					'the manual run to finish',
					async () =>
						(await rest.finishedExecutions(TEMPLATE_ID)).length > 0 ||
						(await browser.evaluate<boolean>(
							`document.body.innerText.includes('Problem in node')`,
						)) === true,
					120,
				);
				const [execution] = await rest.finishedExecutions(TEMPLATE_ID);
				const run = execution ? await rest.execution(execution.id) : undefined;
				const [registered = [], notRegistered = [], failed = []] = (
					run?.data.resultData.runData[NODE_NAME]?.at(-1)?.data?.main ?? []
				).map((items) => items ?? []);
				check(
					execution?.status === 'success' &&
						registered.length === 9 &&
						notRegistered.length === 2 &&
						failed.length === 1,
					`npm run dev: the sample-sheet template runs with the sandbox credential, clicked in the editor (${execution?.status}; ${registered.length} registered, ${notRegistered.length} not registered, ${failed.length} failed)`,
				);
				// The node's panel (n8n's NDV) with the run's output: the editor's own route to it, followed
				// inside the page (a reload would drop the run's data from the editor).
				await browser.evaluate(
					`document.querySelector('#app').__vue_app__.config.globalProperties.$router.push('/workflow/${TEMPLATE_ID}/${NODE_ID}')`,
				);
				await browser.capture(
					`document.querySelector('[data-test-id="ndv"]') !== null && document.body.innerText.includes('Müller')`,
					devScreenshotPath,
					1500,
				);
			} finally {
				browser.close();
			}
		});
		check(
			existsSync(devScreenshotPath),
			`the node's panel with its result is at ${devScreenshotPath}`,
		);

		await stop();
		await exited;
		// npm itself ends by the signal; what matters is what dev.ts stopped, and that nothing of the
		// process group (npm, tsx, dev.ts, n8n, its task runner, tsc) is left.
		// npm ends at once; dev.ts then stops n8n (up to 10 s for its SIGTERM) and the compiler.
		const groupRunning = () => {
			try {
				process.kill(-dev.pid!, 0);
				return true;
			} catch {
				return false;
			}
		};
		await waitFor('the dev process group to end', async () => !groupRunning(), 30).catch(
			() => undefined,
		);
		const groupLeft = groupRunning();
		const after = await fetch(editor).then(
			() => 'still answering',
			() => 'stopped',
		);
		check(
			!groupLeft && after === 'stopped' && output.includes('nothing of this session is running'),
			`Ctrl-C stops npm run dev and everything it started (npm ${dev.exitCode ?? dev.signalCode}; process group ${groupLeft ? 'STILL RUNNING' : 'gone'}; the editor address ${after})`,
		);
		passed = checklist.failures === 0;
	} finally {
		await stop();
		if (passed) rmSync(userFolder, { recursive: true, force: true });
		else log(`npm run dev output:\n${output}\n(user folder kept: ${userFolder})`);
	}
}
