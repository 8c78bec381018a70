import type { Engine } from '../../harness/engine';
import { engineFor } from '../../harness/fixtures';
import { startSandbox, type Sandbox } from '../../sandbox/server';

/**
 * A sandbox and an n8n whose credential points at it, new for each test of the describe this is called in
 * (a test's watch memory and the registry's changes stay its own), closed after it. `started` receives them.
 */
export function sandboxEachTest(
	started: (running: { sandbox: Sandbox; engine: Engine }) => void,
): void {
	let sandbox: Sandbox | undefined;
	beforeEach(async () => {
		sandbox = await startSandbox({ port: 0 });
		started({ sandbox, engine: engineFor(sandbox) });
	});
	afterEach(async () => await sandbox?.close());
}
