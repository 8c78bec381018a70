// The users' three journeys (issue 13), each an example workflow run for real in the running n8n:
//   1. onboarding-form.json: the production form submitted as a browser submits it, five answers;
//   2. spreadsheet-check.json: a 2,000-row CSV uploaded through the form, the XLSX read back;
//   3. inactive-alerts.json: Watch for Changes on a schedule, emails caught by a local SMTP server.
// Workflows and the SMTP credential are created over the REST API and published (activated), so every
// run is a production run: Watch for Changes keeps its memory only then (n8n does not save static data
// of manual runs), and the forms answer only on their production URLs.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import ExcelJS from 'exceljs';
import { SMTPServer } from 'smtp-server';

import type { Sandbox } from '../../../sandbox/server';
import { Browser } from '../lib/browser';
import { Rest, type ExecutionSummary } from '../lib/rest';
import {
	freePort,
	root,
	waitFor,
	type Checklist,
	type Processes,
	type RunningN8n,
} from '../lib/realN8n';
import type { WorkflowFile } from '../lib/workflows';

const ONBOARDING_PATH = 'company-onboarding';
const SHEET_PATH = 'company-sheet-check';
const SHEET_ROWS = 2000;

function readWorkflow(file: string): WorkflowFile {
	return JSON.parse(
		readFileSync(join(root, 'examples', 'workflows', file), 'utf8'),
	) as WorkflowFile;
}

/** The visible text of an HTML page: no scripts, styles or tags, entities decoded. */
function pageText(html: string): string {
	return html
		.replace(/<(script|style)[\s\S]*?<\/\1>/gi, ' ')
		.replace(/<[^>]+>/g, ' ')
		.replace(/&#x([0-9a-f]+);/gi, (_, hex: string) => String.fromCodePoint(parseInt(hex, 16)))
		.replace(/&#(\d+);/g, (_, decimal: string) => String.fromCodePoint(Number(decimal)))
		.replace(/&quot;/g, '"')
		.replace(/&lt;/g, '<')
		.replace(/&gt;/g, '>')
		.replace(/&amp;/g, '&')
		.replace(/\s+/g, ' ')
		.trim();
}

/**
 * What the form page's script does on submit: POST multipart/form-data (fields named field-0, field-1…)
 * to the production URL, which answers with the form-waiting URL of the new execution; poll its status
 * until the run waits on an ending page; GET that page; then POST to it, as the page does, so the
 * execution finishes. Returns the ending page's HTML and the execution id.
 */
async function submitForm(
	base: string,
	path: string,
	fields: Array<string | File>,
): Promise<{ html: string; executionId: string }> {
	const body = new FormData();
	fields.forEach((value, index) => body.append(`field-${index}`, value));
	const response = await fetch(`${base}/form/${path}`, { method: 'POST', body });
	const text = await response.text();
	if (!response.ok)
		throw new Error(`POST /form/${path}: HTTP ${response.status} ${text.slice(0, 300)}`);
	const { formWaitingUrl } = JSON.parse(text) as { formWaitingUrl: string };
	const waitingUrl = new URL(formWaitingUrl);
	const executionId = waitingUrl.pathname.split('/').pop()!;
	const statusUrl = new URL(waitingUrl);
	statusUrl.pathname += '/n8n-execution-status';
	let status = '';
	await waitFor(
		`execution ${executionId} to reach its ending page`,
		async () => {
			status = (await (await fetch(statusUrl)).text()).trim();
			if (status === 'error' || status === 'crashed')
				throw new Error(`execution ${executionId} ended with ${status}`);
			return status === 'form-waiting';
		},
		300,
	);
	const html = await (await fetch(waitingUrl)).text();
	await fetch(waitingUrl, { method: 'POST', body: '{}' });
	await waitFor(
		`execution ${executionId} to finish`,
		async () => (await (await fetch(statusUrl)).text()).trim() === 'success',
		60,
	);
	return { html, executionId };
}

/** Decodes what a plain-text email from nodemailer carries: encoded-word headers, quoted-printable or base64 bodies. */
function readEmail(raw: string): { headers: Record<string, string>; text: string } {
	const split = raw.indexOf('\r\n\r\n');
	const headerLines = raw
		.slice(0, split)
		.replace(/\r\n[ \t]+/g, ' ')
		.split('\r\n');
	const headers: Record<string, string> = {};
	for (const line of headerLines) {
		const colon = line.indexOf(':');
		const value = line
			.slice(colon + 1)
			.trim()
			.replace(/=\?utf-8\?([qb])\?([^?]*)\?=\s*/gi, (_, encoding: string, data: string) =>
				encoding.toLowerCase() === 'b'
					? Buffer.from(data, 'base64').toString('utf8')
					: decodeQuotedPrintable(data.replace(/_/g, ' ')),
			);
		headers[line.slice(0, colon).toLowerCase()] = value;
	}
	const body = raw.slice(split + 4);
	const encoding = (headers['content-transfer-encoding'] ?? '7bit').toLowerCase();
	const text =
		encoding === 'quoted-printable'
			? decodeQuotedPrintable(body)
			: encoding === 'base64'
				? Buffer.from(body, 'base64').toString('utf8')
				: body;
	return { headers, text: text.replace(/\r\n/g, '\n') };
}

function decodeQuotedPrintable(text: string): string {
	const bytes: number[] = [];
	const input = text.replace(/=\r?\n/g, '');
	for (let index = 0; index < input.length; index++) {
		if (input[index] === '=' && /^[0-9A-F]{2}$/i.test(input.slice(index + 1, index + 3))) {
			bytes.push(parseInt(input.slice(index + 1, index + 3), 16));
			index += 2;
		} else bytes.push(...Buffer.from(input[index], 'utf8'));
	}
	return Buffer.from(bytes).toString('utf8');
}

/** A row of the uploaded sheet and what the returned sheet must say about it. */
interface SheetCase {
	country: string;
	companyId: string;
	state: string;
	registered: string;
	status: string;
	officialName: string;
	/** The start of the error message; '' when the row must have none. */
	error: string;
}

// Sandbox companies (sandbox/companies.json), unknown ids, and rows the node must refuse.
const SHEET_CASES: SheetCase[] = [
	{
		country: 'de',
		companyId: 'HRB12345',
		state: '',
		registered: 'yes',
		status: 'Active',
		officialName: 'Müller & Söhne Präzisionsteile GmbH',
		error: '',
	},
	{
		country: 'gb',
		companyId: '09876543',
		state: '',
		registered: 'yes',
		status: 'Inactive',
		officialName: 'Thistlewick Brewing Company Limited',
		error: '',
	},
	{
		country: 'us',
		companyId: 'C0806592',
		state: 'ca',
		registered: 'yes',
		status: 'Active',
		officialName: 'Redwood Hollow Analytics, Inc.',
		error: '',
	},
	{
		country: 'jp',
		companyId: '1010001000001',
		state: '',
		registered: 'yes',
		status: 'Active',
		officialName: '株式会社さくら精機',
		error: '',
	},
	{
		country: 'France',
		companyId: '732829320',
		state: '',
		registered: 'yes',
		status: 'Active',
		officialName: 'Société des Confitures Bérangère SAS',
		error: '',
	},
	{
		country: 'de',
		companyId: 'HRB00000',
		state: '',
		registered: 'no',
		status: '',
		officialName: '',
		error: '',
	},
	{
		country: 'gb',
		companyId: '99999999',
		state: '',
		registered: 'no',
		status: '',
		officialName: '',
		error: '',
	},
	{
		country: 'Atlantis',
		companyId: '12345',
		state: '',
		registered: '',
		status: '',
		officialName: '',
		error: "Unknown country 'Atlantis'",
	},
	{
		country: 'de',
		companyId: '',
		state: '',
		registered: '',
		status: '',
		officialName: '',
		error: 'Company ID is empty',
	},
	{
		country: 'us',
		companyId: 'C3350216',
		state: '',
		registered: '',
		status: '',
		officialName: '',
		error: 'A United States company needs a State',
	},
];

function sheetRows(): Array<{ ref: string } & SheetCase> {
	// Every case over and over, in a scrambled order, so rows repeat and kinds interleave.
	return Array.from({ length: SHEET_ROWS }, (_, index) => ({
		ref: `R${String(index + 1).padStart(4, '0')}`,
		...SHEET_CASES[(index * 7 + Math.floor(index / 10)) % SHEET_CASES.length],
	}));
}

async function screenshotExecution(
	browser: Browser,
	base: string,
	workflowId: string,
	executionId: string,
	path: string,
): Promise<void> {
	// The executions tab shows the run in an iframe preview; item counts label the connections.
	const ready = `(() => {
		const texts = [document.body.innerText];
		for (const frame of document.querySelectorAll('iframe')) { try { texts.push(frame.contentDocument.body.innerText); } catch {} }
		return /\\d items?/.test(texts.join(' '));
	})()`;
	// n8n opens a "Production Checklist" popover over the list of executions of a newly published workflow.
	const hideChecklist = `(() => {
		const panels = [...document.querySelectorAll('div')].filter(
			(element) => element.innerText?.startsWith('Production Checklist') && !element.innerText.includes('Auto refresh'),
		);
		panels.sort((a, b) => b.innerText.length - a.innerText.length);
		if (panels[0]) panels[0].style.display = 'none';
	})()`;
	await browser.screenshot(
		`${base}/workflow/${workflowId}/executions/${executionId}`,
		ready,
		path,
		2500,
		hideChecklist,
	);
}

export async function checkJourneys(
	n8n: RunningN8n,
	userFolder: string,
	sandbox: Sandbox,
	{ checklist, processes }: { checklist: Checklist; processes: Processes },
): Promise<void> {
	const { check, log } = {
		check: checklist.check.bind(checklist),
		log: checklist.log.bind(checklist),
	};
	const rest = new Rest(n8n);
	const screenshots: Array<
		| { url: string; ready: string; path: string }
		| { workflowId: string; executionId: string; path: string }
	> = [];

	// 1. Onboarding form.
	const onboardingId = await rest.createActiveWorkflow(readWorkflow('onboarding-form.json'));
	// Production webhooks register a moment after activation.
	await waitFor(
		'the production onboarding form',
		async () => (await fetch(`${n8n.base}/form/${ONBOARDING_PATH}`)).ok,
		60,
	);
	const answers: Array<{ what: string; fields: string[]; expect: string[] }> = [
		{
			what: 'registered and Active (de/HRB12345)',
			fields: ['DE', 'HRB12345', ''],
			expect: ['Welcome, Müller & Söhne Präzisionsteile GmbH', 'registered since 1998-04-17'],
		},
		{
			what: 'registered and Active, with a state (us/C0806592, California)',
			fields: ['United States', 'C0806592', 'California'],
			expect: ['Welcome, Redwood Hollow Analytics, Inc.'],
		},
		{
			what: 'Inactive (gb/09876543)',
			fields: ['United Kingdom', '09876543', ''],
			expect: [
				'Thistlewick Brewing Company Limited is in the register, but its status there is Inactive',
				'reviews your application by hand',
			],
		},
		{
			what: 'not registered (de/HRB00000)',
			fields: ['de', 'HRB00000', ''],
			expect: [
				'We could not find your company',
				'There is no company with the ID HRB00000 in the DE register',
			],
		},
		{
			what: 'bad input (Atlantis)',
			fields: ['Atlantis', '12345', ''],
			expect: ["The register check did not work: Unknown country 'Atlantis'", 'correct your entry'],
		},
	];
	let activeExecution = '';
	await checklist.timed(`journey 1: onboarding form, ${answers.length} submissions`, async () => {
		for (const answer of answers) {
			const { html, executionId } = await submitForm(n8n.base, ONBOARDING_PATH, answer.fields);
			const text = pageText(html);
			const page = text.slice(0, 400);
			check(
				answer.expect.every((part) => text.includes(part)),
				`onboarding form, ${answer.what}: the ending page says ${JSON.stringify(page)}`,
			);
			check(
				!/\bat \S+ \(|Error:|node_modules|NodeOperationError|stack/i.test(text),
				`onboarding form, ${answer.what}: no stack trace or error class on the page`,
			);
			if (!activeExecution) activeExecution = executionId;
		}
	});
	const onboardingRuns = await rest.finishedExecutions(onboardingId);
	check(
		onboardingRuns.length === answers.length &&
			onboardingRuns.every((run) => run.status === 'success'),
		`the ${answers.length} onboarding executions succeeded (${onboardingRuns.map((run) => run.status).join(', ')})`,
	);
	screenshots.push({
		url: `${n8n.base}/form/${ONBOARDING_PATH}`,
		ready: "document.body.innerText.includes('Company ID')",
		path: join(root, 'docs', 'template-onboarding-form.png'),
	});
	screenshots.push({
		workflowId: onboardingId,
		executionId: activeExecution,
		path: join(root, 'docs', 'template-onboarding-run.png'),
	});

	// 2. Spreadsheet check.
	const sheetId = await rest.createActiveWorkflow(readWorkflow('spreadsheet-check.json'));
	await waitFor(
		'the production sheet form',
		async () => (await fetch(`${n8n.base}/form/${SHEET_PATH}`)).ok,
		60,
	);
	const rows = sheetRows();
	const csv =
		[
			'ref,country,companyId,state',
			...rows.map((row) => [row.ref, row.country, row.companyId, row.state].join(',')),
		].join('\n') + '\n';
	const lookupsBefore = sandbox.counters.lookups;
	const { html, executionId: sheetExecution } = await checklist.timed(
		`journey 2: ${SHEET_ROWS}-row CSV uploaded, XLSX returned`,
		() =>
			submitForm(n8n.base, SHEET_PATH, [new File([csv], 'companies.csv', { type: 'text/csv' })]),
	);
	log(
		`the sheet made ${sandbox.counters.lookups - lookupsBefore} lookups for ${SHEET_ROWS} rows (${SHEET_CASES.length} distinct rows, some refused before any request)`,
	);
	const encoded = /const binaries = "([^"]*)"/.exec(html)?.[1] ?? '';
	const binaries = encoded
		? (JSON.parse(decodeURIComponent(encoded)) as Array<{
				data: string | { data: number[] };
				fileName: string;
				type: string;
			}>)
		: [];
	check(
		binaries.length === 1 && binaries[0].fileName === 'checked-companies.xlsx',
		`the ending page carries one download, ${binaries[0]?.fileName} (${binaries[0]?.type})`,
	);
	if (binaries.length === 1) {
		const { data } = binaries[0];
		const bytes = typeof data === 'string' ? Buffer.from(data, 'latin1') : Buffer.from(data.data);
		const workbook = new ExcelJS.Workbook();
		await workbook.xlsx.load(bytes as unknown as ArrayBuffer);
		const sheet = workbook.worksheets[0];
		const header = (sheet.getRow(1).values as unknown[]).slice(1).map(String);
		const expectedHeader = [
			'rowNumber',
			'ref',
			'country',
			'companyId',
			'state',
			'registered',
			'status',
			'officialName',
			'error',
		];
		check(
			JSON.stringify(header) === JSON.stringify(expectedHeader),
			`the XLSX columns are ${header.join(', ')}`,
		);
		const cell = (row: ExcelJS.Row, name: string) => {
			const value = row.getCell(header.indexOf(name) + 1).value;
			return value === null || value === undefined ? '' : String(value);
		};
		const problems: string[] = [];
		const counts = { yes: 0, no: 0, error: 0 };
		check(
			sheet.rowCount === SHEET_ROWS + 1,
			`the XLSX has ${sheet.rowCount - 1} data rows for ${SHEET_ROWS} input rows`,
		);
		rows.forEach((input, index) => {
			const row = sheet.getRow(index + 2);
			const got = Object.fromEntries(expectedHeader.map((name) => [name, cell(row, name)]));
			const wrong =
				got.rowNumber !== String(index + 1) ||
				got.ref !== input.ref ||
				got.country !== input.country ||
				got.companyId !== input.companyId ||
				got.state !== input.state ||
				got.registered !== input.registered ||
				got.status !== input.status ||
				got.officialName !== input.officialName ||
				(input.error ? !got.error.startsWith(input.error) : got.error !== '');
			if (wrong && problems.length < 5) problems.push(`row ${index + 1}: ${JSON.stringify(got)}`);
			if (got.registered === 'yes') counts.yes++;
			else if (got.registered === 'no') counts.no++;
			else if (got.error) counts.error++;
		});
		check(
			problems.length === 0,
			`every input row is present once, in order, with the right result columns ${problems.join('; ')}`,
		);
		log(
			`the XLSX (${bytes.length} bytes): ${counts.yes} registered, ${counts.no} not registered, ${counts.error} with an error`,
		);
		const errors = [
			...new Set(rows.map((_, index) => cell(sheet.getRow(index + 2), 'error')).filter(Boolean)),
		];
		log(`errors in the sheet: ${errors.map((error) => JSON.stringify(error)).join(', ')}`);
	}
	screenshots.push({
		workflowId: sheetId,
		executionId: sheetExecution,
		path: join(root, 'docs', 'template-spreadsheet-run.png'),
	});

	// 3. Inactive alerts. The template runs at 07:00 daily; the copy under test runs every 3 seconds, so
	// its runs are real schedule (production) runs whose watch memory n8n saves.
	const messages: string[] = [];
	const smtp = new SMTPServer({
		authOptional: true,
		disabledCommands: ['STARTTLS', 'AUTH'],
		logger: false,
		onData(stream, _session, callback) {
			const chunks: Buffer[] = [];
			stream.on('data', (chunk: Buffer) => chunks.push(chunk));
			stream.on('end', () => {
				messages.push(Buffer.concat(chunks).toString('utf8'));
				callback();
			});
		},
	});
	const smtpPort = await freePort();
	await new Promise<void>((done) => smtp.listen(smtpPort, '127.0.0.1', done));
	try {
		const credential = await rest.call<{ id: string }>('POST', '/credentials', {
			name: 'SMTP for alerts (test)',
			type: 'smtp',
			data: {
				host: '127.0.0.1',
				port: smtpPort,
				secure: false,
				disableStartTls: true,
				user: '',
				password: '',
			},
		});
		const alerts = readWorkflow('inactive-alerts.json');
		for (const node of alerts.nodes) {
			if (node.type === 'n8n-nodes-base.scheduleTrigger')
				node.parameters.rule = { interval: [{ field: 'seconds', secondsInterval: 3 }] };
			if (node.credentials?.smtp)
				node.credentials.smtp = { id: credential.id, name: 'SMTP for alerts (test)' };
		}
		const watched = { country: 'de', companyId: 'HRB20481' };
		let alertsId = '';
		let emailExecution: ExecutionSummary | undefined;
		await checklist.timed(
			'journey 3: alerts, schedule runs before and after a change',
			async () => {
				alertsId = await rest.createActiveWorkflow(alerts);
				// Two runs: the baseline, then one without changes.
				await waitFor(
					'two schedule runs',
					async () => (await rest.finishedExecutions(alertsId)).length >= 2,
					60,
				);
				const quiet = await rest.finishedExecutions(alertsId);
				check(
					messages.length === 0 && quiet.every((run) => run.status === 'success'),
					`no email from the baseline run and a run without changes (${quiet.length} runs: ${quiet.map((run) => run.status).join(', ')}; ${messages.length} emails)`,
				);
				sandbox.changeCompany(watched, { status: 'Inactive' });
				const changedAt = Date.now();
				await waitFor('the alert email', async () => messages.length > 0, 60);
				const receivedAt = Date.now();
				// Two more runs after the email: the change must not be reported again.
				const seen = (await rest.finishedExecutions(alertsId)).length;
				await waitFor(
					'two more schedule runs',
					async () => (await rest.finishedExecutions(alertsId)).length >= seen + 2,
					60,
				);
				await rest.call('POST', `/workflows/${alertsId}/deactivate`, {});
				const runs = await rest.finishedExecutions(alertsId);
				check(
					messages.length === 1,
					`exactly one email over ${runs.length} schedule runs, one change (got ${messages.length})`,
				);
				check(
					runs.every((run) => run.status === 'success'),
					`every schedule run succeeded (${runs.map((run) => run.status).join(', ')})`,
				);
				emailExecution = runs.find(
					(run) =>
						Date.parse(run.startedAt) >= changedAt - 3000 &&
						Date.parse(run.startedAt) <= receivedAt &&
						(!run.stoppedAt || Date.parse(run.stoppedAt) >= changedAt),
				);
			},
		);
		sandbox.changeCompany(watched, { status: 'Active' });
		if (messages.length > 0) {
			const email = readEmail(messages[0]);
			check(
				email.headers.subject === 'Grünwald Solartechnik AG is now Inactive',
				`the email's subject names the company and the change: ${JSON.stringify(email.headers.subject)}`,
			);
			check(
				email.headers.to === 'compliance@example.com' &&
					email.headers.from === 'registry-alerts@example.com',
				`from ${email.headers.from} to ${email.headers.to}`,
			);
			const detected = /Detected: (\S+)/.exec(email.text)?.[1] ?? '';
			check(
				email.text.includes('Grünwald Solartechnik AG (DE HRB20481) is now Inactive.') &&
					email.text.includes('- status: Active -> Inactive') &&
					!Number.isNaN(Date.parse(detected)) &&
					Math.abs(Date.parse(detected) - Date.now()) < 10 * 60_000,
				`the email says what changed and when: ${JSON.stringify(email.text)}`,
			);
		}
		if (emailExecution)
			screenshots.push({
				workflowId: alertsId,
				executionId: emailExecution.id,
				path: join(root, 'docs', 'template-alerts-run.png'),
			});
		else check(false, 'found the schedule run that sent the email');
	} finally {
		await new Promise<void>((done) => smtp.close(() => done()));
	}

	await checklist.timed('journey screenshots', async () => {
		const browser = await Browser.start(processes, userFolder, log);
		try {
			await browser.setCookie(n8n.base, n8n.cookie);
			for (const shot of screenshots) {
				if ('url' in shot) await browser.screenshot(shot.url, shot.ready, shot.path);
				else
					await screenshotExecution(
						browser,
						n8n.base,
						shot.workflowId,
						shot.executionId,
						shot.path,
					);
				log(`screenshot ${shot.path}`);
			}
		} finally {
			browser.close();
		}
	});
	// Leave n8n as found: the forms stop answering, and n8n stops quickly.
	for (const workflowId of [onboardingId, sheetId])
		await rest.call('POST', `/workflows/${workflowId}/deactivate`, {});
}
