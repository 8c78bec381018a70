import companiesFile from './companies.json';

export type CompanyStatus = 'Active' | 'Inactive';

interface CompanyTranslation {
	officialName?: string;
	registeredAddress?: string;
}

/** One company as the sandbox stores it (see companies.json). */
export interface StoredCompany {
	country: string;
	companyId: string;
	/** Only for `us`: the lowercase state code. */
	state?: string;
	officialName: string;
	status: CompanyStatus;
	registrationDate: string;
	registeredAddress?: string;
	translations?: Record<string, CompanyTranslation>;
}

/** What a test may change in a record while the sandbox runs. `registeredAddress: null` removes it. */
export interface CompanyChange {
	status?: CompanyStatus;
	officialName?: string;
	registeredAddress?: string | null;
	/** true takes the company off the register: lookups answer isRegistered false until re-registered. */
	deregistered?: boolean;
}

/**
 * Ids are matched ignoring case, spaces and the separators `.`, `-` and `/`, so that `HRB 12345` and
 * `hrb12345`, or a CNPJ with or without its punctuation, find the same company.
 */
function canonicalCompanyId(companyId: string): string {
	return companyId.replace(/[\s.\-/]/g, '').toUpperCase();
}

function recordKey(country: string, companyId: string, state?: string): string {
	return `${country}|${country === 'us' ? (state ?? '') : ''}|${canonicalCompanyId(companyId)}`;
}

/** The sandbox's register: the data file, plus the changes tests make while it runs. */
export class Registry {
	private readonly records = new Map<string, StoredCompany>();
	private readonly deregistered = new Set<string>();

	constructor(companies: StoredCompany[] = loadCompanies()) {
		for (const company of companies) {
			this.records.set(
				recordKey(company.country, company.companyId, company.state),
				structuredClone(company),
			);
		}
	}

	get size(): number {
		return this.records.size;
	}

	/** The registered company, or undefined when it is unknown or deregistered. */
	find(country: string, companyId: string, state?: string): StoredCompany | undefined {
		const key = recordKey(country, companyId, state);
		return this.deregistered.has(key) ? undefined : this.records.get(key);
	}

	change(
		country: string,
		companyId: string,
		state: string | undefined,
		change: CompanyChange,
	): void {
		const key = recordKey(country, companyId, state);
		const record = this.records.get(key);
		if (!record)
			throw new Error(
				`The sandbox has no company ${country}/${companyId}${state ? ` (${state})` : ''}`,
			);
		if (change.status !== undefined) record.status = change.status;
		if (change.officialName !== undefined) record.officialName = change.officialName;
		if (change.registeredAddress === null) delete record.registeredAddress;
		else if (change.registeredAddress !== undefined)
			record.registeredAddress = change.registeredAddress;
		if (change.deregistered === true) this.deregistered.add(key);
		if (change.deregistered === false) this.deregistered.delete(key);
	}
}

export function loadCompanies(): StoredCompany[] {
	return companiesFile.companies as StoredCompany[];
}
