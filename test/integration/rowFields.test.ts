import { WorkflowExpression } from 'n8n-workflow';

import { startSandbox, type Sandbox } from '../../sandbox/server';
import { engineFor, runRows } from '../../harness/fixtures';
import { readAndEvaluated } from '../support/readAndEvaluated';

// Issue 20 item 4: Country and Company ID written as `={{ $json.field }}` are read from the row, not
// evaluated (a real n8n evaluates each expression in an isolate, about 8 ms of CPU): the same values,
// errors included, as n8n's evaluation gives.
describe('Company Registry › fields of the row', () => {
	let sandbox: Sandbox;
	beforeAll(async () => {
		sandbox = await startSandbox({ port: 0 });
	});
	afterAll(async () => await sandbox.close());
	afterEach(() => jest.restoreAllMocks());

	it('evaluates no expression for ={{ $json.country }} and ={{ $json["companyId"] }}', async () => {
		const engine = engineFor(sandbox);
		const evaluate = jest.spyOn(WorkflowExpression.prototype, 'getParameterValue');
		const { registered } = await runRows(engine, [{ country: 'gb', companyId: '04417982' }], {
			parameters: {
				country: '={{ $json.country }}',
				companyId: '={{ $json["companyId"] }}',
			},
		});
		expect(registered.map((item) => item.json.officialName)).toEqual([
			'Harrowgate Tinware Limited',
		]);
		const expressions = evaluate.mock.calls
			.map(([value]) => value)
			.filter((value) => typeof value === 'string' && value.includes('$json'));
		expect(expressions).toEqual([]);
	});

	it('gives every row what n8n evaluating the same expressions gives, failures included', async () => {
		const rows = [
			{ country: 'gb', companyId: '04417982' },
			{ country: 'de', companyId: 'HRB12345', 'Company ID': 'HRB00000' },
			{ country: 'us', companyId: 'C0806592', state: 'ca' },
			{ country: 'us', companyId: 'C0806592' },
			{ country: 'jp', companyId: 1010001000001 },
			{ country: 'gb', companyId: true },
			{ country: 'gb' },
			{ country: 'gb', companyId: null },
			{ country: 'gb', companyId: { id: '04417982' } },
			{ country: ['gb'], companyId: '04417982' },
			{ country: 'Atlantis', companyId: 'X1' },
			{ country: '', companyId: '' },
			{ country: 'gb', companyId: 'constructor' },
		];
		// Parentheses make each expression one n8n has to evaluate.
		const { read, evaluated } = await readAndEvaluated(sandbox, rows, {
			country: '$json.country',
			companyId: '$json["companyId"]',
			state: "$json['state']",
		});
		expect(read).toEqual(evaluated);
		expect(read.registered.length + read.notRegistered.length + read.errors.length).toBe(
			rows.length,
		);
		expect(read.registered.length).toBeGreaterThan(0);
		expect(read.errors.length).toBeGreaterThan(0);
	});
});
