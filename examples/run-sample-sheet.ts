// npm start: the package's main job on the embedded sandbox, no account needed. Starts the sandbox
// registry, runs examples/workflows/company-lookup.json through n8n's own engine over the rows of
// examples/sample-sheet.csv (pinned as the output of its "One item per row" node), and prints each
// row's result and branch.
import { startSandbox } from '../sandbox/server';
import { loadWorkflow } from '../harness/engine';
import { REGISTRY_NODE, engineFor } from '../harness/fixtures';
import { readCsv } from './sampleSheet';

async function main() {
	const sandbox = await startSandbox({ port: 0 });
	try {
		const rows = readCsv('examples/sample-sheet.csv');
		const engine = engineFor(sandbox);
		const result = await engine.execute(loadWorkflow('examples/workflows/company-lookup.json'), {
			rows,
			rowsNode: 'One item per row',
		});
		const [registered = [], notRegistered = [], failed = []] = result.outputOf(REGISTRY_NODE);
		const lines: Array<[number, string]> = [];
		for (const item of registered) {
			const { officialName, status } = item.json;
			lines.push([
				(item.pairedItem as { item: number }).item,
				`Registered      ${status} · ${officialName}`,
			]);
		}
		for (const item of notRegistered) {
			lines.push([
				(item.pairedItem as { item: number }).item,
				'Not Registered  (no such company in the register)',
			]);
		}
		for (const item of failed) {
			lines.push([
				(item.pairedItem as { item: number }).item,
				`Error           ${item.json.error}`,
			]);
		}
		console.log(
			`Company Registry sandbox at ${sandbox.baseUrl}; ${rows.length} rows from examples/sample-sheet.csv\n`,
		);
		for (const [index, text] of lines.sort((a, b) => a[0] - b[0])) {
			const row = rows[index];
			const asked = `${row.country}/${row.companyId}${row.state ? ` (${row.state})` : ''}`;
			console.log(`${String(index + 1).padStart(2)}  ${asked.padEnd(26)} ${text}`);
		}
		console.log(
			`\n${registered.length} registered, ${notRegistered.length} not registered, ${failed.length} failed; ` +
				`${sandbox.counters.tokenRequests} token request, ${sandbox.counters.lookups} lookups`,
		);
	} finally {
		await sandbox.close();
	}
}

main().catch((error: unknown) => {
	console.error(error);
	process.exitCode = 1;
});
