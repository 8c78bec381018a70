import type { IncomingMessage, ServerResponse } from 'node:http';
import type { IDataObject } from 'n8n-workflow';

import { expectEachRowOnce, runRows } from '../../../harness/fixtures';
import {
	GOOD_RECORD,
	json,
	SCRIPTED_TOKEN,
	scriptedRegistryEachTest,
	type ScriptedRegistry,
} from '../../support/scriptedRegistry';
import { scriptedEngine } from '../../support/scriptedEngine';

// Red team: a registry whose tokens live 1 s (a test tenant, or an operator that shortened them to limit
// a leak's reach). `exp` is written in whole seconds, so a "1 s" token lives anything from 0 to 1 s, and a
// token fetched to replace an expired one can expire on its way to the registry. The node took the
// refusal of that new token for a credential the registry will never accept ("rejected the access
// token, also after fetching a new one") and failed every row left, though the registry had accepted
// this client's tokens all along. A new token refused after the registry accepted this client's earlier
// ones is now that token's own end: the node fetches another, up to 3 refused in a row.

const rowsOf = (count: number, offset: number): IDataObject[] =>
	Array.from({ length: count }, (_, index) => ({
		country: 'gb',
		companyId: String(40_000_000 + offset + index),
	}));

/** 401 as an OAuth resource server says a token has expired (RFC 6750 3.1). */
function expired(response: ServerResponse): void {
	json(
		response,
		401,
		{ error: 'invalid_token', error_description: 'The access token expired' },
		{
			'www-authenticate':
				'Bearer error="invalid_token", error_description="The access token expired"',
		},
	);
}

/**
 * A registry whose every token serves `lookupsEach` lookups and is then refused as expired, and whose
 * second token is expired when it arrives (issued in the last milliseconds of its second).
 */
function shortLivedTokens(lookupsEach: number) {
	let registry!: ScriptedRegistry;
	let issued = 0;
	const uses = new Map<string, number>();
	scriptedRegistryEachTest(
		(started) => {
			registry = started;
			issued = 0;
			uses.clear();
			registry.token = (_request, response) => {
				issued += 1;
				json(response, 200, {
					access_token: `${SCRIPTED_TOKEN}${issued}`,
					token_type: 'Bearer',
					expires_in: 1,
				});
			};
		},
		(request: IncomingMessage, response: ServerResponse) => {
			const token = /^Bearer (.+)$/.exec(request.headers.authorization ?? '')?.[1] ?? '';
			const used = (uses.get(token) ?? 0) + 1;
			uses.set(token, used);
			if (token === `${SCRIPTED_TOKEN}2` || used > lookupsEach) return expired(response);
			json(response, 200, GOOD_RECORD);
		},
	);
	return () => registry;
}

for (const [name, lookupsEach, options, rows] of [
	['one at a time, 3 lookups a token', 3, { maxConcurrency: 1 }, 12],
	['20 at once, 20 lookups a token', 20, {}, 60],
] as const) {
	describe(`tokens that expire within a second of being issued (${name})`, () => {
		const registry = shortLivedTokens(lookupsEach);

		it('every row answered, with a new token each time one ends', async () => {
			const sheet = rowsOf(rows, 0);
			const branches = await runRows(scriptedEngine(registry()), sheet, {
				onError: 'continueErrorOutput',
				options,
			});
			expect(branches.errors.map((item) => item.json.error)).toEqual([]);
			expect(branches.registered).toHaveLength(sheet.length);
			expectEachRowOnce(branches, sheet.length);
			// A token each `lookupsEach` lookups, and the one expired on arrival: not one a row.
			expect(registry().tokenRequests).toBeLessThanOrEqual(Math.ceil(rows / lookupsEach) + 3);
		}, 30_000);
	});
}
