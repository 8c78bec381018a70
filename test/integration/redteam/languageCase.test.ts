import { engineFor, runRows } from '../../../harness/fixtures';
import { startSandbox, type Sandbox } from '../../../sandbox/server';

// Red team: Country and State are taken in any case ('DE', 'CA'); Language went to the registry as
// typed. A sheet whose language column says 'EN' (or 'pt-br') had every row refused by the registry
// (HTTP 400, "not a language code"), though language tags are the same in any case (BCP 47): the
// language is now sent lowercase, its region uppercase, as registries write them.

describe('Language in another case', () => {
	let sandbox: Sandbox;
	beforeAll(async () => {
		sandbox = await startSandbox({ port: 0 });
	});
	afterAll(async () => await sandbox.close());

	it('is looked up as the language code it is, each row once, by Registered', async () => {
		const { registered, notRegistered, errors } = await runRows(
			engineFor(sandbox),
			[
				{ country: 'de', companyId: 'HRB12345', lang: 'EN' },
				{ country: 'de', companyId: 'HRB12345', lang: 'pt-br' },
				{ country: 'de', companyId: 'HRB12345', lang: 'En-Us' },
				{ country: 'de', companyId: 'HRB12345', lang: 'en' },
			],
			{ onError: 'continueErrorOutput', options: { language: '={{ $json.lang }}' } },
		);
		expect(errors.map((item) => item.json.error)).toEqual([]);
		expect(notRegistered).toEqual([]);
		expect(registered.map((item) => item.json.lookup)).toEqual([
			{ countryCode: 'de', companyId: 'HRB12345', languageCode: 'en' },
			{ countryCode: 'de', companyId: 'HRB12345', languageCode: 'pt-BR' },
			{ countryCode: 'de', companyId: 'HRB12345', languageCode: 'en-US' },
			{ countryCode: 'de', companyId: 'HRB12345', languageCode: 'en' },
		]);
	});
});
