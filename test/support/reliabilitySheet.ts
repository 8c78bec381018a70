import type { IDataObject } from 'n8n-workflow';

import type { Branches } from '../../harness/fixtures';

/** The official name of de/HRB12345 in the sandbox's data. */
const REGISTERED_NAME = 'Müller & Söhne Präzisionsteile GmbH';

/**
 * Rows of distinct companies for the reliability runs: every 10th is de/HRB12345 (registered, one shared
 * lookup), the others distinct unknown gb ids, so `rows` rows make `rows * 0.9 + 1` lookups.
 */
export function reliabilitySheet(rows: number): IDataObject[] {
	return Array.from({ length: rows }, (_, index) =>
		index % 10 === 0
			? { country: 'de', companyId: 'HRB12345', row: index }
			: { country: 'gb', companyId: String(30_000_000 + index), row: index },
	);
}

/** Registered rows must be exactly the de/HRB12345 rows that did not fail. */
export function expectRightOutputs(branches: Branches): void {
	for (const item of branches.registered) expect(item.json.officialName).toBe(REGISTERED_NAME);
	for (const item of branches.notRegistered) expect(item.json.isRegistered).toBe(false);
	for (const item of branches.errors) expect(typeof item.json.error).toBe('string');
}
