// node --expose-gc --import tsx bench/answeredLookups.ts [--rows 100000]
// What Retry On Fail's kept answers cost (issue 28): a sheet's records, as the node keeps them after a
// failed try (parsed from the registry's JSON, cleared of secrets), in one node run's AnsweredLookups.
// Prints the heap they hold after a full garbage collection, in all and per row, and what is left once
// they are released. Rows are the benchmark sheet's: one in 32 registered, the rest unregistered (N/A).
import { parseArgs } from 'node:util';

import { AnsweredLookups, MAX_ANSWERS } from '../nodes/shared/answeredLookups';
import { redactRecord } from '../nodes/shared/lookupPipeline';
import type { CompanyRecord } from '../nodes/shared/model/companyRecord';
import { makeSheet } from '../sandbox/sheets';
import { loadCompanies } from '../sandbox/registry';

const { values } = parseArgs({ options: { rows: { type: 'string', default: '100000' } } });
const rows = Number(values.rows);
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('Run with node --expose-gc');

const heap = () => {
	gc();
	gc();
	return process.memoryUsage().heapUsed;
};

const registered = new Map(
	loadCompanies().map((company) => [`${company.country} ${company.companyId}`, company]),
);
/** The body the sandbox sends for a row, as text: the node parses each one anew. */
function body(country: string, companyId: string): string {
	const company = registered.get(`${country} ${companyId}`);
	if (!company)
		return JSON.stringify({
			isRegistered: false,
			officialName: 'N/A',
			status: 'N/A',
			registrationDate: 'N/A',
			registeredAddress: 'N/A',
		});
	const { officialName, status, registrationDate, registeredAddress } = company;
	return JSON.stringify({
		isRegistered: true,
		officialName,
		status,
		registrationDate,
		...(registeredAddress ? { registeredAddress } : {}),
	});
}

// Valid rows only (a row with no lookup keeps nothing), 10% of them repeats.
const sheet = makeSheet(Math.ceil(rows * 1.03))
	.filter((row) => row.country !== 'Atlantis')
	.slice(0, rows);
const secrets = ['demo-secret', 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJkZW1vIn0.c2lnbmF0dXJl'];
const nodeRun: object[] = [];
const before = heap();
const answered = AnsweredLookups.forTry(
	nodeRun,
	'credential-id https://registry.example demo-client',
);
for (const row of sheet) {
	const key = {
		countryCode: row.country,
		companyId: row.companyId,
		...(row.state ? { stateCode: row.state } : {}),
	};
	answered.remember(
		key,
		redactRecord(JSON.parse(body(row.country, row.companyId)) as CompanyRecord, secrets),
	);
}
answered.keepForNextTry();
const kept = heap() - before;
const size = answered.size;
answered.release();
const released = heap() - before;

const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(1);
console.log(
	`answered-lookups: rows=${sheet.length} kept=${size} (cap ${MAX_ANSWERS}) heap_kept_mb=${mb(kept)} bytes_per_answer=${Math.round(kept / Math.max(1, size))} heap_after_release_mb=${mb(released)}`,
);
