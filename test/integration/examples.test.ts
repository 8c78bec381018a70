import { readCsv } from '../../examples/sampleSheet';
import { startSandbox, type Sandbox } from '../../sandbox/server';
import { loadWorkflow } from '../../harness/engine';
import { REGISTRY_NODE, engineFor } from '../../harness/fixtures';

// The example workflows users import, run through the engine as `npm start` runs them.
describe('examples', () => {
	let sandbox: Sandbox;
	beforeAll(async () => {
		sandbox = await startSandbox({ port: 0 });
	});
	afterAll(async () => await sandbox.close());

	it('company-lookup.json carries exactly the rows of sample-sheet.csv (the CSV is the source)', () => {
		const workflow = loadWorkflow('examples/workflows/company-lookup.json');
		const sheet = workflow.nodes.find((node) => node.name === 'Sample sheet')!;
		expect(JSON.parse(String(sheet.parameters.jsonOutput)).rows).toEqual(readCsv());
	});

	it('company-lookup.json sorts the sample sheet: 9 registered, 2 not registered, 1 invalid row', async () => {
		const engine = engineFor(sandbox);
		const result = await engine.execute(loadWorkflow('examples/workflows/company-lookup.json'), {
			rows: readCsv(),
			rowsNode: 'One item per row',
		});
		const [registered, notRegistered, failed] = result.outputOf(REGISTRY_NODE);
		expect(registered.map((item) => (item.pairedItem as { item: number }).item)).toEqual([
			0, 1, 2, 3, 5, 6, 7, 8, 10,
		]);
		expect(notRegistered.map((item) => item.json.lookup)).toEqual([
			{ countryCode: 'de', companyId: 'HRB00000' },
			{ countryCode: 'gb', companyId: '99999999' },
		]);
		expect(failed).toHaveLength(1);
		expect(failed[0].json).toMatchObject({ row: '12', error: "Unknown country 'Atlantis'" });
	});

	it('watch-suppliers.json watches its supplier list with the Company Registry node', () => {
		const workflow = loadWorkflow('examples/workflows/watch-suppliers.json');
		const watch = workflow.nodes.find(
			(node) => node.type === 'n8n-nodes-company-registry.companyRegistry',
		)!;
		expect(watch.parameters).toMatchObject({ resource: 'company', operation: 'watch' });
		const list = workflow.nodes.find((node) => node.name === 'Supplier list')!;
		expect(JSON.parse(String(list.parameters.jsonOutput)).suppliers.length).toBeGreaterThan(3);
	});

	// The three journeys' templates run in a real n8n (npm run test:n8n); here, what a user relies on
	// when importing one: the registry node's wiring and the note on what to change.
	it.each([
		['onboarding-form.json', 'lookUp', 3],
		['spreadsheet-check.json', 'lookUp', 3],
		['inactive-alerts.json', 'watch', 1],
	])(
		'%s: the registry node sends failed rows to its error output, and a note says what to change',
		(file, operation, connected) => {
			const workflow = loadWorkflow(`examples/workflows/${file}`);
			const registry = workflow.nodes.filter(
				(node) => node.type === 'n8n-nodes-company-registry.companyRegistry',
			);
			expect(registry).toHaveLength(1);
			expect(registry[0].parameters).toMatchObject({
				resource: 'company',
				operation,
				country: '={{ $json.country }}',
			});
			expect(registry[0].onError).toBe('continueErrorOutput');
			const outputs = workflow.connections[registry[0].name].main;
			expect(outputs.filter((targets) => (targets ?? []).length > 0)).toHaveLength(connected);
			const notes = workflow.nodes
				.filter((node) => node.type === 'n8n-nodes-base.stickyNote')
				.map((node) => String(node.parameters.content));
			expect(notes.some((note) => note.startsWith('## Before you publish'))).toBe(true);
			expect(JSON.stringify(workflow)).not.toContain('demo-secret');
		},
	);
});
