import { REGISTRY_NODE, runRows } from '../../../harness/fixtures';
import { scriptedEngine } from '../../support/scriptedEngine';
import {
	bodyOf,
	json,
	SCRIPTED_TOKEN,
	scriptedRegistryEachTest,
	type ScriptedRegistry,
} from '../../support/scriptedRegistry';

// Red team, held: the error workflow. With On Error at its default (stop the workflow), n8n hands the
// node's error to the workflow's Error Workflow (its Error Trigger's `execution.error`), stores it with the
// execution and shows it in the executions list: what it holds leaves the node's care. A registry, or a
// token endpoint, that echoes the request (the Authorization header, the exchange's body) into its error
// answer must not put the token or the client secret there: not in the message, the description, the
// error's cause or its stack.

const SECRET = 'demo-secret-for-the-error-workflow';

describe('the error an Error Workflow receives from the node', () => {
	let registry: ScriptedRegistry;
	scriptedRegistryEachTest((started) => (registry = started));

	/** Everything of the error n8n passes on: its JSON (as stored and handed over), its cause and stack. */
	async function errorHandedOver() {
		const { result } = await runRows(scriptedEngine(registry, { clientSecret: SECRET }), [
			{ country: 'de', companyId: 'HRB1' },
		]);
		const error = result.run.data.resultData.error;
		expect(error).toBeDefined();
		expect(result.errorOf(REGISTRY_NODE)).toBeDefined();
		return [
			JSON.stringify(error),
			String(error?.stack),
			JSON.stringify((error as { cause?: unknown } | undefined)?.cause ?? null),
			String(error?.message),
			String(error?.description),
		].join('\n');
	}

	it('a 500 whose body repeats the Authorization header: no token in it', async () => {
		registry.lookup = (request, response) =>
			json(response, 500, {
				message: `upstream failed for request with ${String(request.headers.authorization)}`,
			});
		const handedOver = await errorHandedOver();
		// The echo reached the error, redacted: the test sees the text it hunts in.
		expect(handedOver).toContain('upstream failed for request with Bearer [redacted]');
		expect(handedOver).not.toContain(SCRIPTED_TOKEN);
		expect(handedOver).not.toContain(SCRIPTED_TOKEN.split('.')[1]);
	});

	it('a token endpoint whose 400 repeats the exchange body: no client secret in it', async () => {
		registry.token = (request, response) =>
			json(response, 400, {
				error: 'invalid_request',
				error_description: `could not parse ${bodyOf(request)}`,
			});
		const handedOver = await errorHandedOver();
		expect(handedOver).toContain('"client_secret":"[redacted]"');
		expect(handedOver).not.toContain(SECRET);
	});
});
