import type { ServerResponse } from 'node:http';
import type { IDataObject } from 'n8n-workflow';

import type { Engine } from '../../../harness/engine';
import { lookupWorkflow, REGISTRY_NODE } from '../../../harness/fixtures';
import {
	GOOD_RECORD,
	json,
	scriptedRegistryEachTest,
	type ScriptedRegistry,
} from '../../support/scriptedRegistry';
import { scriptedEngine } from '../../support/scriptedEngine';

// Red team: an execution stopped mid-sheet (n8n's Stop, or the workflow's timeout) while its lookups are
// in flight at a registry that holds them (a slow backend). The rate controller is one per registry and
// client in this n8n: the stopped execution's requests must give back their places (Max Concurrent
// Requests, the controller's window), or the next execution of the same sheet waits on requests nobody
// is waiting for, or never starts.

const rowsOf = (count: number, offset: number): IDataObject[] =>
	Array.from({ length: count }, (_, index) => ({
		country: 'de',
		companyId: `HRB${offset + index}`,
	}));

describe('an execution stopped while its lookups are in flight', () => {
	let registry: ScriptedRegistry;
	let engine: Engine;
	let holding = true;
	const held: ServerResponse[] = [];
	let inFlight = 0;
	let mostInFlight = 0;
	scriptedRegistryEachTest(
		(started) => {
			registry = started;
			engine = scriptedEngine(registry);
		},
		(_request, response) => {
			if (holding) {
				held.push(response);
				return;
			}
			inFlight += 1;
			mostInFlight = Math.max(mostInFlight, inFlight);
			// Answered a little later, so that requests overlap when the node sends them together.
			setTimeout(() => {
				inFlight -= 1;
				json(response, 200, GOOD_RECORD);
			}, 100);
		},
	);
	afterEach(() => {
		for (const response of held.splice(0)) response.destroy();
	});

	it('gives back its places: the next execution sends as many at once as before, and every row is answered', async () => {
		holding = true;
		const options = { maxConcurrency: 5, timeout: 600 };
		let cancel: (() => void) | undefined;
		const stopped = engine.execute(lookupWorkflow({ options, onError: 'continueErrorOutput' }), {
			rows: rowsOf(40, 0),
			onStarted: (stop) => (cancel = stop),
		});
		// Stopped once the node has sent what it sends before its first answer (one lookup), and waits.
		while (held.length < 1) await new Promise((resolve) => setTimeout(resolve, 20));
		await new Promise((resolve) => setTimeout(resolve, 300));
		cancel!();
		const first = await stopped;
		const [registered = [], , errors = []] = first.outputOf(REGISTRY_NODE);
		expect(registered).toEqual([]);
		expect(errors).toHaveLength(40);
		expect(held).toHaveLength(1);
		// The stopped requests' connections are closed by the node, not left open at the registry.
		expect(await registry.socketsClosed(2000)).toBe(0);

		holding = false;
		const started = Date.now();
		const next = await engine.execute(lookupWorkflow({ options, onError: 'continueErrorOutput' }), {
			rows: rowsOf(40, 100),
		});
		const [answered = [], , failed = []] = next.outputOf(REGISTRY_NODE);
		expect(failed.map((item) => item.json.error)).toEqual([]);
		expect(answered).toHaveLength(40);
		expect(mostInFlight).toBe(5);
		// 40 lookups of 100 ms, 5 at once: well under the Request Timeout a held place would cost.
		expect(Date.now() - started).toBeLessThan(10_000);
	}, 30_000);
});
