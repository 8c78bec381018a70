import { runRows } from '../../../harness/fixtures';
import {
	GOOD_RECORD,
	json,
	scriptedRegistry,
	type ScriptedRegistry,
} from '../../support/scriptedRegistry';
import { scriptedEngine } from '../../support/scriptedEngine';

// Red team: outputs and errors are cleaned of the secrets read at the start of the run and of the token
// left in the credential at its end. A token that n8n fetched or renewed during the run and then
// replaced (a first token fetched in the run, renewed after a 401) is neither: a registry that echoes
// it (an opaque token, so no shape rule catches it) put it into Registered verbatim.

const tokenNumber = (n: number) => `opaque-token-number-${n}-0123456789abcdef`;

describe('a token fetched during the run and then renewed', () => {
	let registry: ScriptedRegistry;
	beforeEach(async () => {
		registry = await scriptedRegistry();
		let issued = 0;
		registry.token = (_request, response) => {
			issued += 1;
			json(response, 200, { access_token: tokenNumber(issued), token_type: 'Bearer' });
		};
	});
	afterEach(async () => await registry.close());

	it('is never in an output item or an error', async () => {
		// Row 1 is answered with token 1, echoed; token 1 then expires: row 2 gets a 401, n8n renews.
		let answered = 0;
		registry.lookup = (request, response) => {
			const token = String(request.headers.authorization).replace(/^Bearer /, '');
			if (token === tokenNumber(1) && answered >= 1) {
				json(response, 401, { message: 'token expired' });
				return;
			}
			answered += 1;
			json(response, 200, { ...GOOD_RECORD, echoedToken: token, note: `seen ${token}` });
		};
		const engine = scriptedEngine(registry);
		const { result, registered, errors } = await runRows(
			engine,
			[
				{ country: 'de', companyId: 'HRB1' },
				{ country: 'de', companyId: 'HRB2' },
			],
			{ onError: 'continueErrorOutput', options: { maxConcurrency: 1 } },
		);
		expect(registry.tokenRequests).toBe(2);
		expect(registered).toHaveLength(2);
		expect(errors).toHaveLength(0);
		const all = JSON.stringify(result.run) + engine.logs.join('\n');
		expect(all).not.toContain(tokenNumber(2));
		expect(all).not.toContain(tokenNumber(1));
	});
});
