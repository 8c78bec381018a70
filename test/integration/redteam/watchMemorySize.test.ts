import { triggerWorkflow } from '../../../harness/fixtures';
import {
	GOOD_RECORD,
	json,
	scriptedRegistry,
	type ScriptedRegistry,
} from '../../support/scriptedRegistry';
import { scriptedEngine } from '../../support/scriptedEngine';

// Red team: an answer is capped at 64 KB, but nothing caps a field within it, and the trigger keeps each
// company's official name and address in the workflow's static data, which n8n saves into its database
// whole after each poll that changed it. A registry that sends 30 KB names and addresses (valid records)
// makes the static data 60 KB a company: 600 MB for a 10,000-company watch. A company record is under
// 2 KB; what the watch keeps of one should be bounded as well. The record contract now bounds the name and
// the address (1,000 characters each): such a record is a broken one, its company a failed check.

const TRIGGER = 'Company Registry Trigger';
const COMPANIES = 50;

describe("the trigger's memory of a registry that sends oversized fields", () => {
	let registry: ScriptedRegistry;
	beforeEach(async () => {
		// Every other company answers with 30 KB fields; the rest with ordinary records.
		registry = await scriptedRegistry((request, response) =>
			json(
				response,
				200,
				/HRB\d*[13579]$/.test(String(request.url))
					? {
							...GOOD_RECORD,
							officialName: `Big ${'n'.repeat(30_000)} GmbH`,
							registeredAddress: `Street ${'a'.repeat(30_000)} 1`,
						}
					: GOOD_RECORD,
			),
		);
	});
	afterEach(async () => await registry.close());

	it('keeps at most a few KB a company in the static data', async () => {
		const engine = scriptedEngine(registry);
		const items =
			(
				await engine.poll(
					triggerWorkflow(
						Array.from({ length: COMPANIES }, (_, index) => ({
							country: 'de',
							companyId: `HRB${index}`,
						})),
					),
					TRIGGER,
				)
			)?.[0] ?? [];
		expect(items.map((item) => item.json.event)).toEqual(
			Array.from({ length: COMPANIES / 2 }, () => 'checkFailed'),
		);
		expect(String((items[0].json.error as { message: string }).message)).toContain(
			'longer than 1000 characters',
		);
		const bytes = JSON.stringify(engine.staticDataOf('trigger-workflow')).length;
		expect(bytes / COMPANIES).toBeLessThan(4 * 1024);
	});
});
