import { engineFor, expectEachRowOnce, runRows } from '../../../harness/fixtures';
import { scriptedRegistryEachTest, type ScriptedRegistry } from '../../support/scriptedRegistry';

// Red team: a Base URL typed without its scheme (`api.verifiet.com`, as hosts are usually written) or
// with another one failed every row with n8n's bare "Invalid URL" (or, for ftp://, a network error
// retried three times per row): nothing said that the credential's Base URL was the field to mend.

describe('a Base URL that is not an http(s) address', () => {
	let registry: ScriptedRegistry;
	scriptedRegistryEachTest((started) => (registry = started));

	it.each([
		['without a scheme', (url: string) => url.replace(/^http:\/\//, '')],
		['with another scheme', (url: string) => url.replace(/^http:/, 'ftp:')],
		['as host:port', () => 'api.verifiet.com:443'],
	])('%s: every row fails saying the Base URL needs https://', async (_label, typed) => {
		const engine = engineFor({ baseUrl: typed(registry.url), authUrl: registry.url });
		const branches = await runRows(
			engine,
			[
				{ country: 'de', companyId: 'HRB1' },
				{ country: 'de', companyId: 'HRB2' },
			],
			{ onError: 'continueErrorOutput' },
		);
		expectEachRowOnce(branches, 2);
		expect(branches.errors).toHaveLength(2);
		for (const item of branches.errors)
			expect(String(item.json.error)).toMatch(
				/^The credential's Base URL '.+' is not an http\(s\) address/,
			);
		expect(registry.lookups).toBe(0);
	});
});
