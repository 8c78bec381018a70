import { testCredential } from '../../../harness/credentialsTester';
import { CREDENTIAL_ID, engineFor, runRows } from '../../../harness/fixtures';
import type { Sandbox } from '../../../sandbox/server';
import { DEMO_CLIENT } from '../../../sandbox/server';
import { sandboxEachTest } from '../../support/sandboxEachTest';
import { lookUpTwoRows } from '../../support/scriptedEngine';
import {
	GOOD_RECORD,
	json,
	scriptedRegistryEachTest,
	type ScriptedRegistry,
} from '../../support/scriptedRegistry';

// Red team: a Client ID or Client Secret copied from a password manager, a terminal or an e-mail comes
// with a line break or a space at its end. The URLs and the audience were trimmed, the id and the
// secret were sent as pasted: the token endpoint refused them, and the Test and every row said "rejected
// the Client ID or Client Secret. Check both values", which read right in the dialog. The token stored
// was even judged by the trimmed id. No operator issues an id or a secret that starts or ends in white
// space: they go without it.

describe('a Client ID or Client Secret pasted with white space at its ends', () => {
	let sandbox: Sandbox;
	sandboxEachTest((running) => ({ sandbox } = running));

	it.each([
		['a secret with a line break', { clientSecret: `${DEMO_CLIENT.clientSecret}\n` }],
		['a secret with a space and a CRLF', { clientSecret: ` ${DEMO_CLIENT.clientSecret}\r\n` }],
		['an id with a tab', { clientId: `${DEMO_CLIENT.clientId}\t` }],
		['an id with a leading space', { clientId: ` ${DEMO_CLIENT.clientId}` }],
	])('%s: the rows are looked up, and the Test passes', async (_label, pasted) => {
		const engine = engineFor(sandbox, pasted);
		const { registered, errors } = await runRows(
			engine,
			[{ country: 'de', companyId: 'HRB12345' }],
			{ onError: 'continueErrorOutput' },
		);
		expect(errors.map((item) => item.json.error)).toEqual([]);
		expect(registered).toHaveLength(1);
		await expect(testCredential(engine, CREDENTIAL_ID)).resolves.toEqual({
			status: 'OK',
			message: 'Connection successful!',
		});
	});
});

// The secret goes out trimmed, so a registry that echoes it echoes it trimmed: that form is never shown
// either (a short secret is removed only where written whole).
describe('a pasted Client Secret, echoed by the registry as it was sent', () => {
	const SECRET = 'short-secret';
	let registry: ScriptedRegistry;
	scriptedRegistryEachTest(
		(started) => (registry = started),
		(request, response) => {
			if (String(request.url).includes('HRB1'))
				json(response, 200, { ...GOOD_RECORD, officialName: `Echo ${SECRET} GmbH`, echo: SECRET });
			else json(response, 500, { message: `failed for ${SECRET}` });
		},
	);

	it('is in no output item, record or error', async () => {
		const { registered, errors } = await lookUpTwoRows(
			{ url: registry.url },
			{ maxAttempts: 1 },
			{ clientSecret: `${SECRET}\n` },
		);
		expect(registered).toHaveLength(1);
		expect(errors).toHaveLength(1);
		expect(JSON.stringify([registered, errors])).not.toContain(SECRET);
	});

	it('is not in the message of a token endpoint that echoes it', async () => {
		registry.token = (_request, response) =>
			json(response, 400, { error: 'invalid_request', error_description: `bad ${SECRET}` });
		const { errors } = await lookUpTwoRows(
			{ url: registry.url },
			{},
			{ clientSecret: ` ${SECRET}\n` },
		);
		expect(errors).toHaveLength(2);
		expect(JSON.stringify(errors)).toContain('invalid_request');
		expect(JSON.stringify(errors)).not.toContain(SECRET);
	});
});
