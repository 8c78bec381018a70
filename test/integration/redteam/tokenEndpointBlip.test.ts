import { expectEachRowOnce, runRows } from '../../../harness/fixtures';
import {
	json,
	scriptedRegistryEachTest,
	SCRIPTED_TOKEN,
	type ScriptedRegistry,
} from '../../support/scriptedRegistry';
import { scriptedEngine } from '../../support/scriptedEngine';

// Red team: a lookup that meets a 503, a reset or a timeout is tried again, but the token request
// was not: one 503 (or a dropped connection, or a 429) from the Auth URL, at the start of a sheet or
// when the token is renewed mid-sheet, failed every row not yet answered at once, with "The token
// request ... failed with HTTP 503". An auth server's blip cost the whole sheet.

const ROWS = Array.from({ length: 20 }, (_, index) => ({
	country: 'de',
	companyId: `HRB${index}`,
}));

describe('a token endpoint that fails once, then issues the token', () => {
	let registry: ScriptedRegistry;
	scriptedRegistryEachTest((started) => (registry = started));

	it.each([
		['503', (response: Parameters<ScriptedRegistry['token']>[1]) => json(response, 503, {})],
		[
			'429',
			(response: Parameters<ScriptedRegistry['token']>[1]) =>
				json(response, 429, { error: 'too_many_requests' }, { 'retry-after': '0' }),
		],
		[
			'a reset connection',
			(response: Parameters<ScriptedRegistry['token']>[1]) => response.socket?.destroy(),
		],
	])('%s: every row is looked up', async (_label, firstAnswer) => {
		let tokenRequests = 0;
		registry.token = (_request, response) => {
			tokenRequests += 1;
			if (tokenRequests === 1) firstAnswer(response);
			else json(response, 200, { access_token: SCRIPTED_TOKEN, expires_in: 2_592_000 });
		};
		const engine = scriptedEngine(registry);
		const branches = await runRows(engine, ROWS, { onError: 'continueErrorOutput' });
		expectEachRowOnce(branches, ROWS.length);
		expect(branches.errors.map((item) => item.json.error)).toEqual([]);
		expect(branches.registered).toHaveLength(ROWS.length);
		expect(registry.tokenRequests).toBe(2);
	});

	it('a client refused for good (401) is not asked again', async () => {
		registry.token = (_request, response) => json(response, 401, { error: 'invalid_client' });
		const engine = scriptedEngine(registry);
		const branches = await runRows(engine, ROWS, { onError: 'continueErrorOutput' });
		expect(branches.errors).toHaveLength(ROWS.length);
		expect(String(branches.errors[0].json.error)).toMatch(
			/rejected the Client ID or Client Secret/,
		);
		expect(registry.tokenRequests).toBe(1);
	});
});
