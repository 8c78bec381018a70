import { lookupSettings, redactRecord } from '../../nodes/shared/lookupPipeline';
import type { CompanyRecord } from '../../nodes/shared/model/companyRecord';

describe('a record on its way to an output', () => {
	const token = 'opaque-token-0123456789';
	const record = {
		isRegistered: true,
		officialName: 'Bearer Holdings Ltd',
		status: 'Active',
		registrationDate: '2020-01-01',
		debug: {
			authorization: `Bearer ${token}`,
			echo: 'client-secret-value',
			jwt: 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln',
		},
		notes: [`token ${token}`],
	} as unknown as CompanyRecord;

	it('loses the secrets a registry echoed into any field, and token-shaped values in fields of its own', () => {
		const clean = JSON.stringify(redactRecord(record, [token, 'client-secret-value']));
		expect(clean).not.toContain(token);
		expect(clean).not.toContain('client-secret-value');
		expect(clean).not.toContain('eyJhbGciOiJSUzI1NiJ9');
	});

	it('keeps names and addresses whole but for the secrets ("Bearer Holdings" stays)', () => {
		expect(redactRecord(record, [token]).officialName).toBe('Bearer Holdings Ltd');
	});
});

describe('lookup settings', () => {
	it('clamps a Max Requests per Second that would park the lookups for good', () => {
		expect(
			lookupSettings({ baseUrl: 'https://x' }, { maxRequestsPerSecond: 1e-300 })
				.maxRequestsPerSecond,
		).toBe(0.01);
		expect(
			lookupSettings({ baseUrl: 'https://x' }, { maxRequestsPerSecond: 0 }).maxRequestsPerSecond,
		).toBeUndefined();
	});
});
