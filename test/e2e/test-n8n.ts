// npm run test:n8n: the package in a real n8n. Kept out of `npm test` and CI: the first run downloads
// about 3 GB. It
//   1. prepares Node 24 and n8n in a cache folder outside the repository (N8N_TEST_CACHE overrides
//      ~/.cache/n8n-nodes-company-registry/n8n-<version>), reused when present;
//   2. packs this project and installs the tarball into a fresh user folder the way the Community
//      Nodes screen does;
//   3. starts the sandbox, imports a credential pointing at it and the example workflows, runs them with
//      `n8n execute`, and checks their outputs;
//   4. starts `n8n start`, creates the owner over the REST API, checks /types/nodes.json, opens the
//      editor in headless Chromium on a workflow with the node's panel open, and saves a screenshot;
//      in that n8n, meets oversized answers (n8n/oversized.ts, issue 21), runs the Company
//      Registry Trigger with a failing company (n8n/trigger.ts, issue 26), one lookup's latency
//      beside the HTTP Request node (n8n/latency.ts, issue 20), and the journeys;
//   5. runs `npm run dev` and uses the editor it prints (n8n/dev.ts, issue 23);
//   6. stops every process it started, by its own process id.
// TEST_N8N_ONLY=retry-on-fail (or scale, oversized, trigger, latency, dev; several joined by commas)
// runs steps 1 and 2 and those checks alone.
// Each group of checks lives in n8n/ beside this file; lib/ holds what they and test:queue share,
// lib/workflows.ts the node builders of the workflows they create.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { DEMO_CLIENT, startSandbox, type Sandbox } from '../../sandbox/server';
import { Browser } from './lib/browser';
import { sandboxCredential } from './lib/sandboxCredential';
import { checkDev } from './n8n/dev';
import { checkJourneys } from './n8n/journeys';
import { checkLatency } from './n8n/latency';
import { checkMcp, prepareMcpWorkflow } from './n8n/mcp';
import { checkOversized } from './n8n/oversized';
import { checkRefusing } from './n8n/refusing';
import { checkRetryOnFail } from './n8n/retryOnFail';
import { checkScale } from './n8n/scale';
import { checkTrigger } from './n8n/trigger';
import {
	Checklist,
	executeWorkflow,
	importCredential,
	importWorkflow,
	installTarball,
	isN8nPrepared,
	N8N_VERSION,
	outputsOf,
	PACKAGE_NAME,
	packPackage,
	prepareN8n,
	Processes,
	root,
	run,
	startN8n,
	type RunningN8n,
} from './lib/realN8n';

const CREDENTIAL_ID = 'company-registry-sandbox';
const screenshotPath = join(root, 'docs', 'n8n-editor.png');
const checklist = new Checklist('test:n8n');
const { check, log } = {
	check: checklist.check.bind(checklist),
	log: checklist.log.bind(checklist),
};
const processes = new Processes();

function installPackage(userFolder: string): void {
	const tarball = packPackage();
	installTarball(tarball, userFolder);
	const files = run('tar', ['-tzf', tarball]).trim().split('\n');
	const clutter = files.filter(
		(file) =>
			!/^package\/(package\.json|README\.md|LICENSE|CHANGELOG\.md|dist\/.+)$/.test(file) ||
			/\.map$|\/(test|sandbox|bench)\//.test(file),
	);
	check(
		clutter.length === 0,
		`the tarball holds only dist/, package.json, README, CHANGELOG and LICENSE ${clutter.join(', ')}`,
	);
}

const CREDENTIAL = { id: CREDENTIAL_ID, name: 'Company Registry sandbox' };

async function checkWorkflows(userFolder: string, sandbox: Sandbox): Promise<void> {
	await importCredential(userFolder, sandboxCredential(CREDENTIAL, sandbox));
	await importWorkflow(userFolder, 'examples/workflows/company-lookup.json', 'lookupSampleSheet');
	await importWorkflow(userFolder, 'examples/workflows/watch-suppliers.json', 'watchSuppliers0');

	const first = await checklist.timed('n8n execute: sample sheet', () =>
		executeWorkflow(userFolder, 'lookupSampleSheet'),
	);
	check(
		first.data.resultData.error === undefined,
		`the sample sheet ran without a workflow error ${first.data.resultData.error?.message ?? ''}`,
	);
	const [registered = [], notRegistered = [], failed = []] = outputsOf(first, 'Company Registry');
	check(
		registered.length === 9 && notRegistered.length === 2 && failed.length === 1,
		`9 registered, 2 not registered, 1 failed (got ${registered.length}, ${notRegistered.length}, ${failed.length})`,
	);
	check(
		registered[0]?.json.officialName === 'Müller & Söhne Präzisionsteile GmbH',
		'the German name arrives byte for byte',
	);
	check(
		failed[0]?.json.error === "Unknown country 'Atlantis'" && failed[0]?.json.row === '12',
		'the invalid row leaves by the error output with its input row',
	);
	check(
		sandbox.counters.tokenRequests === 1,
		`one token request for the whole sheet (got ${sandbox.counters.tokenRequests})`,
	);
	check(
		!JSON.stringify(first).includes(DEMO_CLIENT.clientSecret),
		'the client secret appears nowhere in the execution',
	);

	await executeWorkflow(userFolder, 'lookupSampleSheet');
	check(
		sandbox.counters.tokenRequests === 1,
		`a second execution makes no token request: n8n stored the token (token requests: ${sandbox.counters.tokenRequests})`,
	);

	const baseline = await checklist.timed('n8n execute: watch, baseline', () =>
		executeWorkflow(userFolder, 'watchSuppliers0'),
	);
	check(
		baseline.data.resultData.error === undefined,
		`the watch workflow ran ${baseline.data.resultData.error?.message ?? ''}`,
	);
	check(
		(outputsOf(baseline, 'Watch for Changes')[0] ?? []).length === 0,
		'the first watch run only sets the baseline',
	);
	sandbox.changeCompany({ country: 'gb', companyId: '04417982' }, { status: 'Inactive' });
	const changed = await executeWorkflow(userFolder, 'watchSuppliers0');
	const changes = outputsOf(changed, 'Watch for Changes')[0] ?? [];
	check(
		changes.length === 1 && changes[0].json.event === 'turnedInactive',
		`the second run reports gb/04417982 turning Inactive (got ${JSON.stringify(changes.map((item) => item.json.event))})`,
	);
	const alerts = outputsOf(changed, 'Alert message')[0] ?? [];
	check(
		String(alerts[0]?.json.text ?? '').includes(
			'Harrowgate Tinware Limited (GB 04417982) is now Inactive',
		),
		`the alert message names the supplier: ${String(alerts[0]?.json.text)}`,
	);
}

async function checkEditor(
	n8n: RunningN8n,
	userFolder: string,
	sandbox: Pick<Sandbox, 'baseUrl' | 'authUrl'>,
): Promise<void> {
	const { base, cookie } = n8n;
	// The credential dialog's "Test" button: the token exchange, then the credential's test lookup.
	const testCredential = async (clientSecret: string) => {
		const response = await fetch(`${base}/rest/credentials/test`, {
			method: 'POST',
			headers: { 'content-type': 'application/json', cookie },
			body: JSON.stringify({ credentials: sandboxCredential(CREDENTIAL, sandbox, clientSecret) }),
		});
		return ((await response.json()) as { data?: { status: string; message: string } }).data;
	};
	const passed = await testCredential(DEMO_CLIENT.clientSecret);
	check(
		passed?.status === 'OK',
		`the credential test passes in n8n's credential dialog (${JSON.stringify(passed)})`,
	);
	const refused = await testCredential('not-the-secret');
	check(
		refused?.status === 'Error' && !JSON.stringify(refused).includes('not-the-secret'),
		`a wrong secret fails the credential test without showing it (${refused?.message})`,
	);

	const nodeTypes = (await (
		await fetch(`${base}/types/nodes.json`, { headers: { cookie } })
	).json()) as Array<{ name: string }>;
	const names = new Set(nodeTypes.map((type) => type.name));
	for (const name of ['companyRegistry', 'companyRegistryTool', 'companyRegistryTrigger']) {
		check(names.has(`${PACKAGE_NAME}.${name}`), `/types/nodes.json lists ${PACKAGE_NAME}.${name}`);
	}
	const credentialTypes = (await (
		await fetch(`${base}/types/credentials.json`, { headers: { cookie } })
	).json()) as Array<{ name: string }>;
	check(
		credentialTypes.some((type) => type.name === 'companyRegistryApi'),
		'/types/credentials.json lists companyRegistryApi',
	);

	await checklist.timed('editor screenshot', async () => {
		const browser = await Browser.start(processes, userFolder, log);
		await browser.setCookie(base, cookie);
		const workflow = JSON.parse(
			readFileSync(join(userFolder, 'lookupSampleSheet.json'), 'utf8'),
		) as { nodes: Array<{ id: string; name: string }> };
		const node = workflow.nodes.find((candidate) => candidate.name === 'Company Registry')!;
		await browser.screenshot(
			`${base}/workflow/lookupSampleSheet/${node.id}`,
			"document.body.innerText.includes('Company ID') && document.body.innerText.includes('Country')",
			screenshotPath,
		);
		browser.close();
		check(existsSync(screenshotPath), `the editor screenshot is saved at ${screenshotPath}`);
	});
}

async function main(): Promise<void> {
	const total = performance.now();
	await checklist.timed(isN8nPrepared() ? 'prepare n8n (warm)' : 'prepare n8n (cold)', () =>
		prepareN8n(log),
	);
	const userFolder = mkdtempSync(join(tmpdir(), 'n8n-user-'));
	log(`user folder ${userFolder}`);
	await checklist.timed('pack and install the package', () => installPackage(userFolder));
	const sandbox = await startSandbox({ port: 0 });
	try {
		// TEST_N8N_ONLY=<name>[,<name>] runs only those checks (scale, retry-on-fail, oversized, refusing, trigger, latency, dev).
		const only = process.env.TEST_N8N_ONLY?.split(',');
		const selected = (name: string) => !only || only.includes(name);
		if (!only) await checkWorkflows(userFolder, sandbox);
		if ((!only && process.env.SKIP_SCALE !== 'true') || only?.includes('scale'))
			await checklist.timed('scale: 2,000 rows, families 1 and 2, the bare fixed window', () =>
				checkScale(userFolder, checklist),
			);
		if (selected('retry-on-fail'))
			await checklist.timed('retry on fail: 2,000 rows, an outage', () =>
				checkRetryOnFail(userFolder, checklist),
			);
		if (!only) await prepareMcpWorkflow(userFolder);
		if (['oversized', 'refusing', 'trigger', 'latency'].some(selected)) {
			const n8n = await startN8n(userFolder, processes, checklist);
			if (!only) {
				await checkEditor(n8n, userFolder, sandbox);
				await checkMcp(n8n, checklist, sandbox);
			}
			if (selected('oversized'))
				await checklist.timed('oversized answers: 1,000 rows, three runs and two without', () =>
					checkOversized(n8n, checklist),
				);
			if (selected('refusing'))
				await checklist.timed('a registry refusing everything: 100 rows, the default wait', () =>
					checkRefusing(n8n, checklist),
				);
			if (selected('trigger'))
				await checklist.timed('trigger: 20 companies, one failing', () =>
					checkTrigger(n8n, checklist),
				);
			if (selected('latency'))
				await checklist.timed('latency: one lookup per execution, beside HTTP Request', () =>
					checkLatency(n8n, checklist),
				);
			if (!only) await checkJourneys(n8n, userFolder, sandbox, { checklist, processes });
		}
		if (selected('dev')) await checkDev(checklist, processes);
	} finally {
		await processes.stopAll();
		await sandbox.close();
	}
	checklist.timings.total = (performance.now() - total) / 1000;
	log(`n8n ${N8N_VERSION}, timings (s): ${checklist.summary()}`);
	if (checklist.failures > 0) {
		log(`${checklist.failures} check(s) failed`);
		process.exitCode = 1;
	} else {
		log('all checks passed');
		if (process.env.KEEP_N8N_USER_FOLDER !== 'true')
			rmSync(userFolder, { recursive: true, force: true });
	}
}

main().catch((error: unknown) => {
	console.error(error);
	processes.killAll();
	process.exit(1);
});
