import type { IDataObject } from 'n8n-workflow';

import { engineFor, runRows } from '../../harness/fixtures';
import type { Sandbox } from '../../sandbox/server';

/**
 * The rows' outputs twice: each parameter as written, `={{ reference }}` (which the node may read from the
 * row), and in parentheses, `={{ (reference) }}` (which n8n has to evaluate). The two must agree.
 */
export async function readAndEvaluated(
	sandbox: Sandbox,
	rows: IDataObject[],
	references: Record<string, string>,
) {
	const outputs = async (wrap: (reference: string) => string) => {
		const { registered, notRegistered, errors } = await runRows(engineFor(sandbox), rows, {
			parameters: Object.fromEntries(
				Object.entries(references).map(([name, reference]) => [name, wrap(reference)]),
			),
			onError: 'continueErrorOutput',
		});
		return { registered, notRegistered, errors };
	};
	const read = await outputs((reference) => `={{ ${reference} }}`);
	const evaluated = await outputs((reference) => `={{ (${reference}) }}`);
	return { read, evaluated };
}
