import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import { checkCompanyRecord } from '../nodes/shared/model/companyRecord';
import { mulberry32 } from '../sandbox/faults';
import { loadCompanies } from '../sandbox/registry';
import { DEMO_CLIENT, type Sandbox } from '../sandbox/server';
import { branchesOf, engineFor, lookupWorkflow, REGISTRY_NODE } from './fixtures';
import { callTool, toolEngineFor } from './tool';
import type { elsewhereServer } from './elsewhereServer';

/**
 * The chaos registry's sheets (issue 21): a seed makes a sheet (50 to 500 rows, an On Error mode or the
 * tool variant, a share of misbehaving requests) and the sandbox draws every request's misbehaviour from
 * the same seed. The sheet runs in n8n's engine; the invariants below are checked on what came out.
 */

export const ON_ERROR_MODES = [
	'stopWorkflow',
	'continueRegularOutput',
	'continueErrorOutput',
	'tool',
] as const;
export type ChaosMode = (typeof ON_ERROR_MODES)[number];

/** The bounds the invariants hold the node to. */
export const CHAOS_BOUNDS = {
	/** Lookups per row: Max Attempts (3), a renewal's resend, 429 retries within a 2 s wait, probes. */
	requestsPerRow: 12,
	/** A sheet of 500 rows with a Request Timeout of 1 s ends well within this. */
	sheetMs: 60_000,
	/** The sockets the sandbox still holds after a sheet, once the client closed its own. */
	openSockets: 0,
	/** Tool calls per tool sheet: an agent calls a tool a few times, not hundreds. */
	toolCalls: 12,
};

export interface ChaosSheet {
	seed: number;
	mode: ChaosMode;
	rows: IDataObject[];
	share: number;
}

export interface ChaosResult {
	sheet: ChaosSheet;
	violations: string[];
	lookups: number;
	wallMs: number;
}

export function chaosSheet(seed: number): ChaosSheet {
	const random = mulberry32(seed);
	const mode = ON_ERROR_MODES[seed % ON_ERROR_MODES.length];
	const count =
		mode === 'tool'
			? 3 + Math.floor(random() * (CHAOS_BOUNDS.toolCalls - 2))
			: 50 + Math.floor(random() * 451);
	const companies = loadCompanies();
	const rows: IDataObject[] = Array.from({ length: count }, (_, index) => {
		const pick = random();
		if (pick < 0.15) {
			const company = companies[Math.floor(random() * companies.length)];
			return { country: company.country, companyId: company.companyId, state: company.state ?? '' };
		}
		if (pick < 0.2) return { country: 'Atlantis', companyId: `X${index}` };
		return { country: 'gb', companyId: String(90_000_000 + seed * 1000 + index) };
	});
	return { seed, mode, rows, share: 0.05 + random() * 0.25 };
}

const OPTIONS = { timeout: 1, maxRateLimitWait: 2 };

/** Runs one seeded sheet against the sandbox (in chaos from `elsewhere`) and checks every invariant. */
export async function runChaosSheet(
	sandbox: Sandbox,
	elsewhere: Awaited<ReturnType<typeof elsewhereServer>>,
	seed: number,
): Promise<ChaosResult> {
	const sheet = chaosSheet(seed);
	sandbox.resetAll();
	sandbox.resetCounters();
	sandbox.issuedTokens.length = 0;
	elsewhere.received.length = 0;
	sandbox.setChaos({
		seed,
		share: sheet.share,
		tokenShare: sheet.share / 3,
		elsewhere: elsewhere.url,
		slowMs: 1500,
		trickleMs: 300,
	});
	const violations: string[] = [];
	const started = Date.now();
	let everything: string;
	if (sheet.mode === 'tool') {
		const engine = toolEngineFor(sandbox);
		const calls = sheet.rows.map((row) => ({
			country: row.country,
			companyId: row.companyId,
			...(row.state ? { state: row.state } : {}),
		}));
		const answers = await callTool(engine, 'agent', calls);
		if (answers.length !== calls.length)
			violations.push(`${calls.length} tool calls got ${answers.length} answers`);
		for (const [index, answer] of answers.entries()) {
			const records = Array.isArray(answer.answer) ? (answer.answer as IDataObject[]) : [];
			for (const record of records) {
				if (record.isRegistered === true)
					checkRegistered(record, calls[index], violations, `tool call ${index}`);
			}
		}
		everything = JSON.stringify(answers) + engine.logs.join('\n');
	} else {
		const engine = engineFor(sandbox);
		const result = await engine.execute(lookupWorkflow({ onError: sheet.mode, options: OPTIONS }), {
			rows: sheet.rows,
		});
		const branches = branchesOf(result);
		const error = result.errorOf(REGISTRY_NODE);
		if (sheet.mode === 'stopWorkflow' && error) {
			const outputs =
				branches.registered.length + branches.notRegistered.length + branches.errors.length;
			if (outputs > 0)
				violations.push(`stopped with "${error.message}" yet passed ${outputs} items on`);
			const itemIndex = (error as unknown as { context?: { itemIndex?: unknown } }).context
				?.itemIndex;
			if (typeof itemIndex !== 'number')
				violations.push(`the error that stopped the node names no row: ${error.message}`);
		} else {
			if (error) violations.push(`the node failed under ${sheet.mode}: ${error.message}`);
			checkEachRowOnce(branches, sheet.rows.length, violations);
			for (const item of branches.registered) {
				const row = sheet.rows[(item.pairedItem as { item: number }).item];
				checkRegistered(
					item.json,
					row,
					violations,
					`row ${(item.pairedItem as { item: number }).item}`,
				);
			}
		}
		everything = JSON.stringify(result.run) + engine.logs.join('\n');
	}
	const wallMs = Date.now() - started;
	checkNoSecret(everything, sandbox, violations);
	for (const request of elsewhere.received) {
		if (request.headers.authorization || request.body.includes(DEMO_CLIENT.clientSecret))
			violations.push('a credential reached another origin');
	}
	const open = await socketsClosed(sandbox, 2000);
	if (open > CHAOS_BOUNDS.openSockets)
		violations.push(`${open} sockets still open at the registry after the sheet`);
	const lookups = sandbox.counters.lookups;
	if (lookups > CHAOS_BOUNDS.requestsPerRow * sheet.rows.length)
		violations.push(`${lookups} lookups for ${sheet.rows.length} rows`);
	if (wallMs > CHAOS_BOUNDS.sheetMs) violations.push(`the sheet took ${wallMs} ms`);
	sandbox.setChaos(undefined);
	return { sheet, violations, lookups, wallMs };
}

/** Every row exactly once, on exactly one output, in order on each, paired with itself. */
function checkEachRowOnce(
	branches: ReturnType<typeof branchesOf>,
	rows: number,
	violations: string[],
): void {
	const seen = new Array<number>(rows).fill(0);
	for (const [name, items] of Object.entries(branches) as Array<[string, INodeExecutionData[]]>) {
		let last = -1;
		for (const item of items) {
			const index = (item.pairedItem as { item?: number } | undefined)?.item;
			if (typeof index !== 'number' || index < 0 || index >= rows) {
				violations.push(`an item on ${name} is paired with ${JSON.stringify(item.pairedItem)}`);
				continue;
			}
			if (index <= last)
				violations.push(`row ${index} on ${name} is out of order (after row ${last})`);
			last = index;
			seen[index] += 1;
		}
	}
	seen.forEach((times, index) => {
		if (times !== 1) violations.push(`row ${index} came out ${times} times`);
	});
}

/** An item on Registered: a valid registered record, of the company the row asked for, and no error. */
function checkRegistered(
	json: IDataObject,
	row: IDataObject,
	violations: string[],
	where: string,
): void {
	const { lookup: _, ...record } = json;
	const check = checkCompanyRecord(record);
	if (!check.valid || record.isRegistered !== true || 'error' in record) {
		violations.push(
			`${where} left by Registered without a valid registered record: ${JSON.stringify(json).slice(0, 200)}`,
		);
		return;
	}
	const company = loadCompanies().find(
		(candidate) => candidate.country === row.country && candidate.companyId === row.companyId,
	);
	if (!company || company.officialName !== record.officialName)
		violations.push(
			`${where} left by Registered with another company's record: ${String(record.officialName)}`,
		);
}

function checkNoSecret(text: string, sandbox: Sandbox, violations: string[]): void {
	if (text.includes(DEMO_CLIENT.clientSecret))
		violations.push('the client secret is in an output, error or log');
	for (const token of sandbox.issuedTokens) {
		const signature = token.split('.')[2] ?? token;
		if (text.includes(signature)) violations.push('an access token is in an output, error or log');
	}
}

async function socketsClosed(sandbox: Sandbox, withinMs: number): Promise<number> {
	const until = Date.now() + withinMs;
	while (sandbox.openSockets() > 0 && Date.now() < until)
		await new Promise((resolve) => setTimeout(resolve, 20));
	return sandbox.openSockets();
}
