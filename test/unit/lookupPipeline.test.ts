import { lookupSettings, lookUpRows, redactRecord } from '../../nodes/shared/lookupPipeline';
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

describe('rows of a stopped execution', () => {
	// An execution stopped before its lookups were sent: each row fails as cancelled, and says so by its
	// cause (the batch runner's `cancelled` kind), not only in its message's words.
	const stoppedExecution = () => {
		const stop = new AbortController();
		stop.abort();
		return {
			getNode: () => ({
				id: 'n',
				name: 'Company Registry',
				type: 'companyRegistry',
				typeVersion: 1,
				position: [0, 0] as [number, number],
				parameters: {},
			}),
			getCredentials: async () => ({ baseUrl: 'https://registry.invalid', clientId: 'c' }),
			getExecutionCancelSignal: () => stop.signal,
			getInputData: () => [],
		} as unknown as Parameters<typeof lookUpRows>[0];
	};
	const rows = {
		count: 3,
		keyAt: (itemIndex: number) => ({ country: 'GB', companyId: `0000000${itemIndex}` }),
	} as unknown as Parameters<typeof lookUpRows>[1];

	it('fail with the cause cancelled, each on its own row', async () => {
		const results = await lookUpRows(stoppedExecution(), rows, {}, { stopAtFirstFailure: false });
		expect(results.map((row) => (row.kind === 'failed' ? row.cause : row.kind))).toEqual([
			'cancelled',
			'cancelled',
			'cancelled',
		]);
		expect(results.map((row) => row.itemIndex)).toEqual([0, 1, 2]);
	});
});
