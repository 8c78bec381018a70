import { runRows } from '../../../harness/fixtures';
import { scriptedEngine } from '../../support/scriptedEngine';
import {
	GOOD_RECORD,
	NOT_REGISTERED_RECORD,
	json,
	scriptedRegistryEachTest,
	type ScriptedRegistry,
} from '../../support/scriptedRegistry';

// Red team: a supplier sheet in Excel, the company number column formatted as numbers (Excel's default for
// digits), read by n8n's Extract From File: Companies House's 04417982 arrives as the number 4417982. The
// node sent '4417982', the register answered not registered, and the row left by Not Registered: a
// registered supplier reported as unknown, without a word. Registers whose numbers are a fixed count of
// digits write the leading zeros (Companies House: 8 characters; Belgium's KBO: 10 digits, from 0;
// the Dutch KvK: 8 digits); a number lost them on the way, so a Company ID given as a number for such a
// register gets them back. Text is sent as typed, and other registers' numbers as written.

describe('a numeric Company ID whose register writes leading zeros', () => {
	let registry: ScriptedRegistry;
	const asked: string[] = [];
	const KNOWN = new Set(['gb/04417982', 'be/0403170701', 'nl/01234567', 'de/1234567']);
	scriptedRegistryEachTest(
		(started) => {
			registry = started;
			asked.length = 0;
		},
		(request, response) => {
			const [country, id] = String(request.url).split('?')[0].split('/').slice(-2);
			const key = `${country}/${decodeURIComponent(id)}`;
			asked.push(key);
			json(response, 200, KNOWN.has(key) ? GOOD_RECORD : NOT_REGISTERED_RECORD);
		},
	);

	it('is looked up with the zeros a number cannot hold', async () => {
		const { registered, notRegistered, errors } = await runRows(
			scriptedEngine(registry),
			[
				{ country: 'gb', companyId: 4417982 },
				{ country: 'be', companyId: 403170701 },
				{ country: 'nl', companyId: 1234567 },
				{ country: 'de', companyId: 1234567 },
			],
			{ onError: 'continueErrorOutput' },
		);
		expect(errors).toEqual([]);
		expect(notRegistered).toEqual([]);
		expect(asked.sort()).toEqual(['be/0403170701', 'de/1234567', 'gb/04417982', 'nl/01234567']);
		expect(registered.map((item) => item.json.lookup)).toEqual([
			{ countryCode: 'gb', companyId: '04417982' },
			{ countryCode: 'be', companyId: '0403170701' },
			{ countryCode: 'nl', companyId: '01234567' },
			{ countryCode: 'de', companyId: '1234567' },
		]);
	});

	it('sends text as typed', async () => {
		await runRows(scriptedEngine(registry), [{ country: 'gb', companyId: '4417982' }], {
			onError: 'continueErrorOutput',
		});
		expect(asked).toEqual(['gb/4417982']);
	});
});
