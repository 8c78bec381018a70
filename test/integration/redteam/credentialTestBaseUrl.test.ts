import { testCredential } from '../../../harness/credentialsTester';
import { CREDENTIAL_ID, engineFor, runRows } from '../../../harness/fixtures';
import { scriptedRegistryEachTest, type ScriptedRegistry } from '../../support/scriptedRegistry';

// Red team: the lookups and the audience trim the Base URL (a value pasted with a space or a line
// break), the credential's Test did not: the Test failed for a credential whose lookups work.

describe("the credential's Test with a Base URL pasted with whitespace", () => {
	let registry: ScriptedRegistry;
	scriptedRegistryEachTest((started) => (registry = started));

	it.each([
		['a trailing space', (url: string) => `${url} `],
		['a trailing slash and a line break', (url: string) => `${url}/\n`],
		['a leading space', (url: string) => ` ${url}`],
	])('%s: the Test agrees with the lookups', async (_label, pasted) => {
		const engine = engineFor({ baseUrl: pasted(registry.url), authUrl: registry.url });
		const { registered } = await runRows(engine, [{ country: 'de', companyId: 'HRB12345' }], {
			onError: 'continueErrorOutput',
		});
		expect(registered).toHaveLength(1);
		await expect(testCredential(engine, CREDENTIAL_ID)).resolves.toEqual({
			status: 'OK',
			message: 'Connection successful!',
		});
	});
});
