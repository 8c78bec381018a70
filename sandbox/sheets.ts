// Sheets for benchmarks and scale checks: shared by bench/ and scripts/ (and free for tests).
import { loadCompanies } from './registry';

export interface SheetRow {
	country: string;
	companyId: string;
	state?: string;
	[field: string]: string | undefined;
}

/**
 * A sheet: 10% of its rows repeat an earlier row, 2% have an invalid country, the rest are distinct
 * companies, one in 32 of them registered in the sandbox. `offset` shifts the unregistered ids, so that
 * sheets run side by side do not share lookups.
 */
export function makeSheet(rows: number, offset = 0): SheetRow[] {
	const companies = loadCompanies();
	const sheet: SheetRow[] = [];
	for (let index = 0; index < rows; index++) {
		if (index % 50 === 49) {
			sheet.push({ country: 'Atlantis', companyId: `X${index}` });
		} else if (index % 10 === 9) {
			sheet.push({ ...sheet[Math.floor(index / 2)] });
		} else if (index % 32 === 0 && index / 32 < companies.length) {
			const company = companies[index / 32];
			sheet.push({
				country: company.country,
				companyId: company.companyId,
				state: company.state ?? '',
			});
		} else {
			sheet.push({ country: 'gb', companyId: String(20_000_000 + offset + index) });
		}
	}
	return sheet;
}

/** The distinct valid lookups of a sheet: what a client that shares identical lookups must send. */
export const uniqueValid = (sheet: SheetRow[]): SheetRow[] => [
	...new Map(
		sheet.filter((row) => row.country !== 'Atlantis').map((row) => [JSON.stringify(row), row]),
	).values(),
];
