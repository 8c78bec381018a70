import { engineFor, runRows } from '../../../harness/fixtures';
import {
	GOOD_RECORD,
	json,
	scriptedRegistryEachTest,
	SCRIPTED_TOKEN,
	type ScriptedRegistry,
} from '../../support/scriptedRegistry';

// Red team: the token and the client secret are removed from what a registry writes back when they
// come whole (as sent or encoded), and anything shaped like a whole JWT is removed from fields the
// registry adds. A registry that echoed the token in pieces (a debug record holding the Authorization
// header cut at a column width, a message quoting the client secret in two halves) put every piece into
// Registered and into error items, the whole token for anyone who joins them. Pieces of 16 characters
// or more are removed now (shorter ones could be ordinary text); here: halves of a 32-character secret.

const SECRET = 'k9Qw2Lx7Vb4Nz8Rt5Hm1Jp6Ys3Gd0FeA';
const OPAQUE_TOKEN = 'opaque-token-7f3a9c2e-b81d-4c55-9e0a-61f2d4c8b7aa';

const halves = (text: string) => [
	text.slice(0, Math.ceil(text.length / 2)),
	text.slice(Math.ceil(text.length / 2)),
];

describe('a secret or token echoed in pieces', () => {
	let registry: ScriptedRegistry;
	scriptedRegistryEachTest((started) => (registry = started));

	const run = async (token: string, lookup: ScriptedRegistry['lookup']) => {
		registry.token = (_request, response) => json(response, 200, { access_token: token });
		registry.lookup = lookup;
		const engine = engineFor(
			{ baseUrl: registry.url, authUrl: registry.url },
			{ clientSecret: SECRET },
		);
		const branches = await runRows(engine, [{ country: 'de', companyId: 'HRB1' }], {
			onError: 'continueErrorOutput',
		});
		return { ...branches, all: JSON.stringify(branches.result.run) + engine.logs.join('\n') };
	};

	it.each([
		['an opaque token', OPAQUE_TOKEN],
		['a JWT', SCRIPTED_TOKEN],
	])(
		'%s in two fields of a record: the record passes on without either piece',
		async (_label, token) => {
			const { registered, all } = await run(token, (request, response) => {
				const [head, tail] = halves(String(request.headers.authorization).replace(/^Bearer /, ''));
				json(response, 200, {
					...GOOD_RECORD,
					debug: { authorization1: head, authorization2: tail },
				});
			});
			expect(registered).toHaveLength(1);
			for (const piece of halves(token)) expect(all).not.toContain(piece);
		},
	);

	it('the client secret in two halves of an error message: the error comes without either', async () => {
		const { errors, all } = await run(OPAQUE_TOKEN, (_request, response) => {
			const [head, tail] = halves(SECRET);
			json(response, 400, { message: `client_secret begins ${head} and ends ${tail}` });
		});
		expect(errors).toHaveLength(1);
		expect(String(errors[0].json.error)).toContain(
			'The registry rejected the input: client_secret',
		);
		for (const piece of halves(SECRET)) expect(all).not.toContain(piece);
	});
});
