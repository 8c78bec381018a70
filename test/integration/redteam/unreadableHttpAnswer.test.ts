import {
	GOOD_RECORD,
	json,
	scriptedRegistryEachTest,
	type ScriptedRegistry,
} from '../../support/scriptedRegistry';
import { lookUpTwoRows } from '../../support/scriptedEngine';

// Red team: a registry (or a gateway before it) whose answer Node's HTTP parser refuses: headers over
// Node's 16 KB limit (a huge cookie, a trace header), or a header line that is not HTTP. Each row failed
// with "Could not reach the Company Registry at …; check the credential's Base URL and the network":
// the registry had been reached and had answered, and the advice sent the user after a Base URL that
// was right. The row now says the answer could not be read as HTTP, and why.

describe('a registry whose answer is not readable HTTP', () => {
	let registry: ScriptedRegistry;
	let answer: 'huge header' | 'broken header line' = 'huge header';
	scriptedRegistryEachTest(
		(started) => (registry = started),
		(_request, response) => {
			if (answer === 'huge header')
				json(response, 200, GOOD_RECORD, { 'x-trace': 'a'.repeat(20_000) });
			else {
				// Written past Node's own checks, as a broken gateway sends it.
				response.socket?.end(
					'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nBroken header line\r\nContent-Length: 2\r\n\r\n{}',
				);
			}
		},
	);

	// A huge header is the registry's; a broken line may also be a Base URL whose port is another service's
	// (the reviewer's find: an SSH or SMTP banner gives the same parser error), so only that one names it.
	it.each([
		[
			'huge header' as const,
			'its headers are larger than Node.js accepts (16 KB unless n8n is started with --max-http-header-size).',
			false,
		],
		['broken header line' as const, 'it is not well-formed HTTP (HPE_', true],
	])(
		'%s: each row fails saying the answer could not be read, not that the registry was not reached',
		async (kind, why, namesBaseUrl) => {
			answer = kind;
			const { registered, notRegistered, errors } = await lookUpTwoRows(registry, {
				maxAttempts: 1,
			});
			expect([...registered, ...notRegistered]).toEqual([]);
			expect(errors.map((item) => [item.pairedItem, item.json.error])).toEqual([
				[{ item: 0 }, "The registry's answer could not be read as HTTP"],
				[{ item: 1 }, "The registry's answer could not be read as HTTP"],
			]);
			for (const item of errors) {
				const { description } = item.json.details as { description: string };
				expect(description).toContain(why);
				expect(/Base URL names the registry's scheme and port/.test(description)).toBe(
					namesBaseUrl,
				);
			}
		},
	);
});
