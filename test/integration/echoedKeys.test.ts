import { runRows } from '../../harness/fixtures';
import {
	GOOD_RECORD,
	json,
	scriptedRegistryEachTest,
	SCRIPTED_TOKEN,
	type ScriptedRegistry,
} from '../support/scriptedRegistry';
import { scriptedEngine } from '../support/scriptedEngine';

// Issue 21 (4): a registry that echoes the Authorization header as a JSON key of a 200 record put the
// token into Registered verbatim: redaction cleaned values only.

describe('a token echoed as a key of the record', () => {
	let registry: ScriptedRegistry;
	scriptedRegistryEachTest((started) => (registry = started));

	it.each([
		[
			'the Authorization header as a top-level key',
			(authorization: string) => ({ [authorization]: true }),
		],
		[
			'the bare token as a top-level key',
			(authorization: string) => ({ [authorization.replace(/^Bearer /, '')]: 'echo' }),
		],
		[
			'the token as a nested key',
			(authorization: string) => ({ extra: { seen: { [authorization]: [1] } } }),
		],
		[
			'the token inside a key with other text',
			(authorization: string) => ({ [`header=${authorization};`]: 1 }),
		],
	])('%s never reaches the output', async (_label, echo) => {
		registry.lookup = (request, response) =>
			json(response, 200, { ...GOOD_RECORD, ...echo(String(request.headers.authorization)) });
		const engine = scriptedEngine(registry);
		const { result, registered } = await runRows(
			engine,
			[{ country: 'de', companyId: 'HRB12345' }],
			{ onError: 'continueErrorOutput' },
		);
		expect(registered).toHaveLength(1);
		expect(registered[0].json.officialName).toBe('Scripted GmbH');
		const all = JSON.stringify(result.run) + engine.logs.join('\n');
		expect(all).not.toContain(SCRIPTED_TOKEN);
		expect(all).not.toContain(SCRIPTED_TOKEN.split('.')[2]);
	});
});
