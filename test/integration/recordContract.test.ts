import { expectEachRowOnce, runRows } from '../../harness/fixtures';
import {
	GOOD_RECORD,
	json,
	scriptedRegistry,
	type ScriptedRegistry,
} from '../support/scriptedRegistry';
import { scriptedEngine } from '../support/scriptedEngine';

// Issue 21 (5): registered records whose fields are placeholders passed to Registered. The interface
// document keeps 'N/A' for unregistered companies; an address is only sometimes available, so a
// registered record may leave it out (or write it blank: watchBlankAddress.test.ts), but not fill it
// with a placeholder.

describe('a registered record with placeholder fields fails its row', () => {
	let registry: ScriptedRegistry;
	beforeAll(async () => {
		registry = await scriptedRegistry();
	});
	afterAll(async () => await registry.close());

	it.each([
		[{ registeredAddress: 'N/A' }, 'field \'registeredAddress\' is "N/A"'],
		[{ registeredAddress: ' - ' }, 'field \'registeredAddress\' is " - "'],
		[{ officialName: 'n/a' }, 'field \'officialName\' is "n/a"'],
		[{ officialName: '-' }, 'field \'officialName\' is "-"'],
		[
			{ registrationDate: '2999-12-31' },
			'field \'registrationDate\' is "2999-12-31": a date of first registration cannot be in the future',
		],
		[{ registrationDate: '0000-01-01' }, 'field \'registrationDate\' is "0000-01-01"'],
	])('%j', async (change, problem) => {
		registry.lookup = (request, response) =>
			json(
				response,
				200,
				request.url?.endsWith('/2') ? { ...GOOD_RECORD, ...change } : GOOD_RECORD,
			);
		const engine = scriptedEngine(registry);
		const rows = [1, 2, 3].map((id) => ({ country: 'gb', companyId: String(id) }));
		const branches = await runRows(engine, rows, { onError: 'continueErrorOutput' });
		expectEachRowOnce(branches, 3);
		expect(branches.registered.map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 2 }]);
		expect(branches.errors).toHaveLength(1);
		expect(String(branches.errors[0].json.error)).toContain(
			`The registry's answer is not a valid company record: ${problem}`,
		);
	});

	it('a registered record without an address passes (the register may have none)', async () => {
		const { registeredAddress: _, ...withoutAddress } = GOOD_RECORD;
		registry.lookup = (_request, response) => json(response, 200, withoutAddress);
		const engine = scriptedEngine(registry);
		const branches = await runRows(engine, [{ country: 'gb', companyId: '1' }], {
			onError: 'continueErrorOutput',
		});
		expect(branches.registered).toHaveLength(1);
	});
});
