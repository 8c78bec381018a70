// The sandbox in its own process for the benchmark, so that the peak RSS the benchmark reports is the
// n8n process's alone. Started by bench.ts with fork(); speaks over the IPC channel.
import { startSandbox, type SandboxOptions } from '../sandbox/server';

process.once('message', (options: SandboxOptions) => {
	void startSandbox(options).then((sandbox) => {
		process.send?.({
			type: 'ready',
			baseUrl: sandbox.baseUrl,
			authUrl: sandbox.authUrl,
			audience: sandbox.audience,
		});
		process.on('message', (message: { type: string }) => {
			if (message.type === 'counters')
				process.send?.({ type: 'counters', counters: sandbox.counters });
			if (message.type === 'close') void sandbox.close().then(() => process.exit(0));
		});
	});
});
