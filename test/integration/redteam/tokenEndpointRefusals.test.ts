import type { ServerResponse } from 'node:http';

import { expectEachRowOnce, runRows } from '../../../harness/fixtures';
import { DEMO_CLIENT } from '../../../sandbox/server';
import {
	json,
	scriptedRegistryEachTest,
	SCRIPTED_TOKEN,
	type ScriptedRegistry,
} from '../../support/scriptedRegistry';
import { scriptedEngine } from '../../support/scriptedEngine';

// Reviewer's find: the lookups read a refusal for the rate limit under another status (a 420; a 403
// whose headers say the budget is spent or when to try again), a gateway's passing failure (520-524,
// 529, 408) and a refusal's page over 64 KB (left unread, its status decides) as what they are; the
// token exchange did not. Its 420 failed every row as "failed with HTTP 420", its rate-limited 403 as a
// refused audience (the user was sent to fix a setting that was right), and a CDN's 429 or 503 page
// over 64 KB as "a token answer is a few KB, check the Auth URL": each at its first answer, never asked
// again, where the same refusal a moment later issues the token.

const ROWS = Array.from({ length: 6 }, (_, index) => ({ country: 'de', companyId: `HRB${index}` }));
const PAGE = `<html><head><style>${'.x{color:red}'.repeat(6_000)}</style></head><body>Slow down</body></html>`;

type Answer = (response: ServerResponse) => void;
const status =
	(code: number, headers: Record<string, string> = {}, body: unknown = {}): Answer =>
	(response) =>
		json(response, code, body, headers);
/** A page over 64 KB, without a Content-Length (as a CDN streams it). */
const bigPage =
	(code: number, headers: Record<string, string> = {}): Answer =>
	(response) => {
		response.writeHead(code, { 'content-type': 'text/html', ...headers });
		response.end(PAGE);
	};

/** A gateway's own short error page. */
const gatewayPage =
	(code: number): Answer =>
	(response) => {
		response.writeHead(code, { 'content-type': 'text/html' });
		response.end(`<html><title>error code: ${code}</title></html>`);
	};

describe('a token endpoint that refuses once, then issues the token', () => {
	let registry: ScriptedRegistry;
	scriptedRegistryEachTest((started) => (registry = started));

	it.each([
		['420 Enhance Your Calm', status(420, { 'retry-after': '0' })],
		[
			'403 with X-RateLimit-Remaining: 0 (a spent budget)',
			status(403, { 'x-ratelimit-limit': '10', 'x-ratelimit-remaining': '0' }),
		],
		['403 with Retry-After (a secondary limit)', status(403, { 'retry-after': '0' })],
		['a 429 whose page is over 64 KB', bigPage(429, { 'retry-after': '0' })],
		['a 503 whose page is over 64 KB', bigPage(503)],
		['a 522 whose page is over 64 KB', bigPage(522)],
		...[520, 521, 522, 523, 524, 529, 408].map((code): [string, Answer] => [
			`a gateway's ${code}`,
			gatewayPage(code),
		]),
	])('%s: every row is looked up, with the second token request', async (_name, first) => {
		expect(PAGE.length).toBeGreaterThan(64 * 1024);
		registry.token = (_request, response) =>
			registry.tokenRequests === 1
				? first(response)
				: json(response, 200, { access_token: SCRIPTED_TOKEN, expires_in: 2_592_000 });
		const branches = await runRows(scriptedEngine(registry), ROWS, {
			onError: 'continueErrorOutput',
		});
		expectEachRowOnce(branches, ROWS.length);
		expect(branches.errors.map((item) => item.json.error)).toEqual([]);
		expect(branches.registered.map((item) => item.pairedItem)).toEqual(
			ROWS.map((_row, index) => ({ item: index })),
		);
		expect(registry.tokenRequests).toBe(2);
	});

	it("a 403 of a plan with no budget (X-RateLimit-Limit 0) is the audience's refusal: not asked again", async () => {
		registry.token = (_request, response) =>
			json(
				response,
				403,
				{ error: 'access_denied' },
				{ 'x-ratelimit-limit': '0', 'x-ratelimit-remaining': '0' },
			);
		const branches = await runRows(scriptedEngine(registry), ROWS, {
			onError: 'continueErrorOutput',
		});
		expectEachRowOnce(branches, ROWS.length);
		expect(branches.errors).toHaveLength(ROWS.length);
		expect(String(branches.errors[0].json.error)).toMatch(/refused the audience/);
		expect(registry.tokenRequests).toBe(1);
	});
});

describe('a token endpoint that keeps refusing for its rate limit', () => {
	let registry: ScriptedRegistry;
	scriptedRegistryEachTest((started) => (registry = started));

	it.each([
		['a 403 with Retry-After, echoing the secret', 403, { 'retry-after': '0' }],
		['a 420, echoing the secret', 420, {}],
	])(
		'%s: every row fails naming the rate limit and the status, never the secret',
		async (_name, code, headers) => {
			registry.token = (_request, response) =>
				json(
					response,
					code,
					{ error: 'slow_down', error_description: `client ${DEMO_CLIENT.clientSecret}` },
					headers,
				);
			const branches = await runRows(scriptedEngine(registry), ROWS, {
				onError: 'continueErrorOutput',
			});
			expectEachRowOnce(branches, ROWS.length);
			expect(branches.errors).toHaveLength(ROWS.length);
			const said = JSON.stringify(branches.errors.map((item) => item.json));
			expect(said).not.toContain(DEMO_CLIENT.clientSecret);
			expect(said).not.toMatch(/refused the audience/);
			expect(String(branches.errors[0].json.error)).toContain(
				`refused the token request for its rate limit (HTTP ${code} slow_down). Run the workflow again later`,
			);
			// The three tries of a transient failure, then the refusal is told.
			expect(registry.tokenRequests).toBe(3);
		},
	);
});
