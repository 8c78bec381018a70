import type { IDataObject } from 'n8n-workflow';

import { startSandbox, type Sandbox } from '../../sandbox/server';
import { readAndEvaluated } from '../support/readAndEvaluated';

// Red-team review of rowField.ts: rows whose fields n8n's evaluation might give otherwise than reading
// them (odd numbers, own `__proto__`, getters, inherited fields, long ids), differential against the same
// expressions in parentheses (which n8n has to evaluate).
describe('Company Registry › fields of the row, odd rows', () => {
	let sandbox: Sandbox;
	beforeAll(async () => {
		sandbox = await startSandbox({ port: 0 });
	});
	afterAll(async () => await sandbox.close());

	const compare = async (rows: IDataObject[], country: string, companyId: string) => {
		const { read, evaluated } = await readAndEvaluated(sandbox, rows, { country, companyId });
		expect(read).toEqual(evaluated);
		expect(read.registered.length + read.notRegistered.length + read.errors.length).toBe(
			rows.length,
		);
	};

	it('numbers and text n8n may give otherwise', async () => {
		const withGetter: IDataObject = { country: 'gb' };
		Object.defineProperty(withGetter, 'companyId', { get: () => '04417982', enumerable: true });
		await compare(
			[
				{ country: 'jp', companyId: 1e21 },
				{ country: 'jp', companyId: -0 },
				{ country: 'jp', companyId: 0.1 + 0.2 },
				{ country: 'gb', companyId: 'NaN' },
				{ country: 'gb', companyId: Number.NaN },
				{ country: 'gb', companyId: Number.POSITIVE_INFINITY },
				{ country: 'gb', companyId: '9'.repeat(100_000) },
				{ country: 'gb', companyId: ' 04417982\n' },
				Object.create({ country: 'gb', companyId: '04417982' }) as IDataObject,
				withGetter,
			],
			'$json.country',
			'$json["companyId"]',
		);
	});

	it('a row whose own field is named __proto__', async () => {
		await compare(
			[JSON.parse('{"__proto__": "gb", "companyId": "04417982"}') as IDataObject],
			'$json.__proto__',
			'$json.companyId',
		);
	});
});
