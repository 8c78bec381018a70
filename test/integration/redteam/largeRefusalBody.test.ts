import { runRows } from '../../../harness/fixtures';
import { scriptedEngine } from '../../support/scriptedEngine';
import {
	GOOD_RECORD,
	json,
	scriptedRegistryEachTest,
	type ScriptedRegistry,
} from '../../support/scriptedRegistry';

// Red team: answers are read to 64 KB at most, so that no record over it reaches Registered. The cap
// was applied before the status was looked at: a CDN's or WAF's 429 page, or a gateway's 503 page,
// over 64 KB (inline styles, a logo in base64; with or without Content-Length) failed its row at once
// as "The registry's answer is larger than 64 KB ... (a company record is under 2 KB)", where the same
// refusal with a short body is waited out or tried again; and the rate controller never heard of the
// 429. A refusal's body is never a record: over the cap it is left unread, and the status, headers
// and Retry-After decide, as for any refusal. A 200 over the cap still fails its row.

const PAGE = `<html><head><style>${'.x{color:red}'.repeat(6_000)}</style></head><body>Slow down</body></html>`;
const ROWS = Array.from({ length: 3 }, (_, index) => ({ country: 'de', companyId: `HRB${index}` }));

describe.each([
	['a 429 with Retry-After: 1', 429, { 'retry-after': '1' }],
	['a 503', 503, {}],
])(
	'a registry whose first answer to each row is %s and a page over 64 KB',
	(_name, status, headers) => {
		let registry: ScriptedRegistry;
		const refused = new Set<string>();
		scriptedRegistryEachTest(
			(started) => {
				registry = started;
				refused.clear();
			},
			(request, response) => {
				if (refused.has(String(request.url))) return json(response, 200, GOOD_RECORD);
				refused.add(String(request.url));
				response.writeHead(status, { 'content-type': 'text/html', ...headers });
				response.end(PAGE);
			},
		);

		it('is waited out or tried again as the same refusal with a short page: every row registered', async () => {
			expect(PAGE.length).toBeGreaterThan(64 * 1024);
			const engine = scriptedEngine(registry);
			const { registered, errors } = await runRows(engine, ROWS, {
				onError: 'continueErrorOutput',
			});
			expect(errors.map((item) => item.json.error)).toEqual([]);
			expect(registered.map((item) => item.pairedItem)).toEqual(
				ROWS.map((_row, index) => ({ item: index })),
			);
			expect(registry.lookups).toBe(2 * ROWS.length);
		});
	},
);

describe('a registry whose 200 is over 64 KB', () => {
	let registry: ScriptedRegistry;
	scriptedRegistryEachTest(
		(started) => (registry = started),
		(_request, response) => json(response, 200, { ...GOOD_RECORD, notes: PAGE }),
	);

	it('still fails the row, unread', async () => {
		const engine = scriptedEngine(registry);
		const { registered, errors } = await runRows(engine, ROWS.slice(0, 1), {
			onError: 'continueErrorOutput',
		});
		expect(registered).toEqual([]);
		expect(String(errors[0].json.error)).toMatch(/larger than 64 KB/);
	});
});
