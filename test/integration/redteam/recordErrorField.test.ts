import { runRows } from '../../../harness/fixtures';
import {
	GOOD_RECORD,
	NOT_REGISTERED_RECORD,
	json,
	scriptedRegistryEachTest,
	type ScriptedRegistry,
} from '../../support/scriptedRegistry';
import { scriptedEngine } from '../../support/scriptedEngine';

// Red team: fields a registry adds to its records pass through (the API may add some later). One named
// `error` is n8n's mark of a failed item: under Retry On Fail, n8n (WorkflowExecute's checkFailure) runs
// the node again whenever the first item of its first output carries a non-null `error`, so a registry
// whose records carry `"error": ""` (or "none", 0) had every row of a sheet looked up Max Tries times
// (up to 5), every run: a quota spent five times over, for answers that had all arrived.

describe('a registry whose records carry a field named error', () => {
	let registry: ScriptedRegistry;
	scriptedRegistryEachTest(
		(started) => (registry = started),
		(request, response) =>
			String(request.url).includes('HRB0')
				? json(response, 200, { ...NOT_REGISTERED_RECORD, error: 'not found' })
				: json(response, 200, { ...GOOD_RECORD, error: '' }),
	);

	it.each(['stopWorkflow', 'continueErrorOutput'] as const)(
		'%s, Retry On Fail: each row is looked up once, and the field is kept under another name',
		async (onError) => {
			const engine = scriptedEngine(registry);
			const { registered, notRegistered, errors } = await runRows(
				engine,
				[
					{ country: 'de', companyId: 'HRB1' },
					{ country: 'de', companyId: 'HRB2' },
					{ country: 'de', companyId: 'HRB0' },
				],
				{ onError, retryOnFail: { maxTries: 3, waitBetweenTries: 0 } },
			);
			expect(registry.lookups).toBe(3);
			expect(registered.map((item) => [item.pairedItem, item.json.registryError])).toEqual([
				[{ item: 0 }, ''],
				[{ item: 1 }, ''],
			]);
			expect(notRegistered.map((item) => [item.pairedItem, item.json.registryError])).toEqual([
				[{ item: 2 }, 'not found'],
			]);
			expect([...registered, ...notRegistered].some((item) => 'error' in item.json)).toBe(false);
			expect(errors).toEqual([]);
		},
	);
});
