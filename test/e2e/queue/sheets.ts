// The sheets test:queue's sheet scenarios post, the rate limit they run against, and what a finished
// sheet's run must hold.
import type { Checklist } from '../lib/realN8n';
import type { Item, RunData } from './executions';
import { outputs } from './executions';

/** The sandbox's limit in test:queue: 100 requests/s, bursts of 100. */
export const RATE = { ratePerSecond: 100, burst: 100 };

/** Registered and Active in the sandbox (sandbox/companies.json); every other row is unknown or invalid. */
export const REGISTERED = [
	{ country: 'de', companyId: 'HRB12345' },
	{ country: 'de', companyId: 'HRB20481' },
	{ country: 'gb', companyId: 'SC318806' },
	{ country: 'fr', companyId: '732829320' },
	{ country: 'fr', companyId: '809123458' },
	{ country: 'us', companyId: 'C0806592', state: 'ca' },
	{ country: 'jp', companyId: '1010001000001' },
	{ country: 'il', companyId: '514321983' },
	{ country: 'kr', companyId: '211-81-34977' },
	{ country: 'gr', companyId: '121856701000' },
];
export type Row = { country: string; companyId: string; state?: string };
const rowKey = (row: Row) => `${row.country}/${row.companyId}/${row.state ?? ''}`;
const registeredKeys = new Set(REGISTERED.map(rowKey));

/** 10% of rows repeat an earlier row, 2% have an invalid country, one in 100 is a registered company, the
 * rest are distinct well-formed ids the register does not know (ids from `first` up). */
export function makeSheet(rows: number, first: number): Row[] {
	const sheet: Row[] = [];
	for (let index = 0; index < rows; index++) {
		if (index % 50 === 49) sheet.push({ country: 'Atlantis', companyId: `X${index}` });
		else if (index % 10 === 9) sheet.push({ ...sheet[Math.floor(index / 2)] });
		else if (index % 100 === 0) sheet.push({ ...REGISTERED[(index / 100) % REGISTERED.length] });
		else sheet.push({ country: 'gb', companyId: String(first + index) });
	}
	return sheet;
}
export const isInvalid = (row: Row) => row.country === 'Atlantis';
export const uniqueValid = (sheet: Row[]) =>
	new Set(sheet.filter((row) => !isInvalid(row)).map(rowKey)).size;
/** The best any client can do: the first `burst` lookups at once, then one per 1/rate seconds. */
export const floorSeconds = (lookups: number) =>
	Math.max(0, lookups - RATE.burst) / RATE.ratePerSecond;

/** Every row answered, exactly the invalid ones failed, Registered holds exactly the registered ones. */
export function checkSheetRun(
	checklist: Checklist,
	run: RunData,
	sheet: Row[],
	label: string,
): { registered: Item[]; notRegistered: Item[]; failed: Item[] } {
	const check = checklist.check.bind(checklist);
	const [registered = [], notRegistered = [], failed = []] = outputs(run, 'Company Registry');
	const invalid = sheet.filter(isInvalid).length;
	const expectedRegistered = sheet.filter((row) => registeredKeys.has(rowKey(row))).length;
	check(
		run.resultData.error === undefined,
		`${label}: no workflow error ${run.resultData.error?.message ?? ''}`,
	);
	check(
		registered.length + notRegistered.length + failed.length === sheet.length,
		`${label}: every row answered: ${registered.length} + ${notRegistered.length} + ${failed.length} of ${sheet.length}`,
	);
	check(
		failed.length === invalid,
		`${label}: exactly the ${invalid} invalid rows failed (got ${failed.length}: ${String(failed.find((item) => !String(item.json.error).includes('Atlantis'))?.json.error ?? '')})`,
	);
	check(
		registered.length === expectedRegistered &&
			registered.every((item) => item.json.isRegistered === true),
		`${label}: Registered holds exactly the ${expectedRegistered} registered rows (got ${registered.length})`,
	);
	return { registered, notRegistered, failed };
}
