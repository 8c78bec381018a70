import type { IDataObject } from 'n8n-workflow';

import type { Engine } from '../../harness/engine';
import { engineFor, runRows } from '../../harness/fixtures';
import type { ScriptedRegistry } from './scriptedRegistry';

// Beside scriptedRegistry.ts, not in it: a unit test uses the scripted registry without n8n's engine.

/**
 * An n8n whose credential points at a scripted registry (its token endpoint and lookups on one server).
 * `credential`: fields of the credential to replace.
 */
export function scriptedEngine(
	registry: Pick<ScriptedRegistry, 'url'>,
	credential: IDataObject = {},
): Engine {
	return engineFor({ baseUrl: registry.url, authUrl: registry.url }, credential);
}

/**
 * Two rows, de/HRB1 and de/HRB2, looked up against a scripted registry with On Error "continue (using
 * error output)": what a red-team answer does to each row. `options`: the node's Options collection;
 * `credential`: fields of the credential to replace.
 */
export async function lookUpTwoRows(
	registry: Pick<ScriptedRegistry, 'url'>,
	options?: IDataObject,
	credential?: IDataObject,
) {
	return await runRows(
		scriptedEngine(registry, credential),
		[
			{ country: 'de', companyId: 'HRB1' },
			{ country: 'de', companyId: 'HRB2' },
		],
		{ onError: 'continueErrorOutput', options },
	);
}
