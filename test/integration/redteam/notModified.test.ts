import { scriptedRegistryEachTest, type ScriptedRegistry } from '../../support/scriptedRegistry';
import { lookUpTwoRows } from '../../support/scriptedEngine';

// Red team: a registry, or a cache between it and n8n, that answers 304 Not Modified (the node asks
// nothing conditional) had each row fail as "a redirect, which the node does not follow", with the
// advice to set the Base URL to the registry's new address: a 304 is no redirect and names no address,
// and a user following that advice changes a Base URL that is right. It now says what it is.

describe('a registry that answers 304 Not Modified', () => {
	let registry: ScriptedRegistry;
	scriptedRegistryEachTest(
		(started) => (registry = started),
		(_request, response) => {
			response.writeHead(304);
			response.end();
		},
	);

	it('fails each row as a 304, not as a redirect, and none leaves by Registered', async () => {
		const { registered, notRegistered, errors } = await lookUpTwoRows(registry);
		expect([...registered, ...notRegistered]).toEqual([]);
		expect(
			errors.map((item) => [
				item.pairedItem,
				item.json.error,
				(item.json.details as { description: string; httpCode: string }).httpCode,
			]),
		).toEqual([
			[{ item: 0 }, 'The registry answered HTTP 304 Not Modified', '304'],
			[{ item: 1 }, 'The registry answered HTTP 304 Not Modified', '304'],
		]);
		for (const item of errors)
			expect((item.json.details as { description: string }).description).not.toMatch(
				/redirect|Base URL to its new address/,
			);
		expect(registry.lookups).toBe(2);
	});
});
