import { runRows } from '../../../harness/fixtures';
import { scriptedEngine } from '../../support/scriptedEngine';
import {
	GOOD_RECORD,
	json,
	scriptedRegistryEachTest,
	type ScriptedRegistry,
} from '../../support/scriptedRegistry';

// Red team: a registry, or a gateway before it, that answers a refusal with HTTP 200 and its reason in
// the body (`{"error": "Rate limit exceeded"}`, `{"message": "Your plan does not include company data"}`),
// as some APIs do for every answer. The row failed with "field 'isRegistered' is missing": the one text
// that said what went wrong, the registry's own, was never shown. It is now, as for any other status.
// A record that breaks the contract in one field shows no "said": its fields are the record's.

describe('a registry that answers a refusal with 200 and its reason in the body', () => {
	let registry: ScriptedRegistry;
	let body: unknown;
	scriptedRegistryEachTest(
		(started) => (registry = started),
		(_request, response) => json(response, 200, body),
	);

	async function failure() {
		const { registered, notRegistered, errors } = await runRows(
			scriptedEngine(registry),
			[{ country: 'de', companyId: 'HRB1' }],
			{ onError: 'continueErrorOutput' },
		);
		expect([registered, notRegistered]).toEqual([[], []]);
		expect(errors).toHaveLength(1);
		const { error, details } = errors[0].json as {
			error: string;
			details: { description: string };
		};
		return { error, description: details.description };
	}

	it.each([
		[{ error: 'Rate limit exceeded' }, 'Rate limit exceeded'],
		// Review (session 41): the common envelopes nest the reason one level down.
		[{ error: { code: 429, message: 'Rate limit exceeded' } }, 'Rate limit exceeded'],
		[{ errors: [{ message: 'Rate limit exceeded' }] }, 'Rate limit exceeded'],
		[{ title: 'Too Many Requests', detail: 'Plan quota spent' }, 'Plan quota spent'],
		[
			{ status: 'failed', message: 'Your plan does not include company data' },
			'Your plan does not include company data',
		],
	])('%j: shows what the registry said', async (answer, said) => {
		body = answer;
		const { error, description } = await failure();
		expect(error).toContain("field 'isRegistered' is missing");
		expect(description).toContain(`The registry said: ${said}`);
	});

	it('a record with a broken field and a message field of its own: no "said"', async () => {
		body = { ...GOOD_RECORD, status: 'Dissolved', message: 'Filed accounts late' };
		const { error, description } = await failure();
		expect(error).toContain('field \'status\' is "Dissolved"');
		expect(description).not.toContain('The registry said');
	});
});
