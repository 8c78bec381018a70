import { testCredential } from '../../../harness/credentialsTester';
import { CREDENTIAL_ID, runRows } from '../../../harness/fixtures';
import {
	json,
	scriptedRegistryEachTest,
	SCRIPTED_TOKEN,
	type ScriptedRegistry,
} from '../../support/scriptedRegistry';
import { scriptedEngine } from '../../support/scriptedEngine';

// Red team: the token answer is parsed as one object, its optional fields typed too. A token endpoint
// that writes expires_in as a string (Azure AD v1 writes "3599"), null for a field it leaves unset, or
// the scope as a list made the whole answer fail: "answered without an access_token", though it had
// one, and the node uses none of those fields.

describe('a token answer whose optional fields have other types', () => {
	let registry: ScriptedRegistry;
	scriptedRegistryEachTest((started) => (registry = started));

	it.each([
		['expires_in as a string', { expires_in: '3599' }],
		['expires_in null', { expires_in: null }],
		['token_type null', { token_type: null }],
		['scope as a list', { scope: ['read:company'] }],
	])('%s: the lookup and the Test work', async (_label, fields) => {
		registry.token = (_request, response) =>
			json(response, 200, { access_token: SCRIPTED_TOKEN, token_type: 'Bearer', ...fields });
		const engine = scriptedEngine(registry);
		const { registered, errors } = await runRows(
			engine,
			[{ country: 'de', companyId: 'HRB12345' }],
			{ onError: 'continueErrorOutput' },
		);
		expect(errors.map((item) => item.json.error)).toEqual([]);
		expect(registered).toHaveLength(1);
		await expect(testCredential(engine, CREDENTIAL_ID)).resolves.toEqual({
			status: 'OK',
			message: 'Connection successful!',
		});
	});
});
