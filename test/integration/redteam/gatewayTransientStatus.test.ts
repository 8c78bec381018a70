import { runRows } from '../../../harness/fixtures';
import { scriptedEngine } from '../../support/scriptedEngine';
import {
	GOOD_RECORD,
	json,
	scriptedRegistryEachTest,
	type ScriptedRegistry,
} from '../../support/scriptedRegistry';

// Red team: the node retried only 500, 502, 503 and 504, the statuses of a registry's own server and of
// a plain reverse proxy. Registries are often behind a CDN or an API gateway, whose passing failures
// have statuses of their own: Cloudflare's 520 (unknown error from the origin), 521 (origin down), 522
// (connection to the origin timed out), 523 (origin unreachable) and 524 (the origin's answer timed
// out); 529 (site overloaded); 408, which a server sends when it closes an idle keep-alive connection.
// Each failed its row at its first blip, "The registry answered HTTP 522", where a 504 a moment later
// is retried. They are transient as 502-504 are: tried again within Max Attempts.

const ROWS = Array.from({ length: 4 }, (_, index) => ({ country: 'de', companyId: `HRB${index}` }));

describe.each([520, 521, 522, 523, 524, 529, 408])(
	'a registry behind a gateway that answers a row first with HTTP %i',
	(status) => {
		let registry: ScriptedRegistry;
		const blipped = new Set<string>();
		scriptedRegistryEachTest(
			(started) => {
				registry = started;
				blipped.clear();
			},
			(request, response) => {
				if (blipped.has(String(request.url))) return json(response, 200, GOOD_RECORD);
				blipped.add(String(request.url));
				response.writeHead(status, { 'content-type': 'text/html' });
				response.end(`<html><title>error code: ${status}</title></html>`);
			},
		);

		it('tries it again: every row registered, each after two requests', async () => {
			const engine = scriptedEngine(registry);
			const { registered, errors } = await runRows(engine, ROWS, {
				onError: 'continueErrorOutput',
			});
			expect(errors.map((item) => item.json.error)).toEqual([]);
			expect(registered.map((item) => item.pairedItem)).toEqual(
				ROWS.map((_row, index) => ({ item: index })),
			);
			expect(registry.lookups).toBe(2 * ROWS.length);
		});
	},
);

describe('a registry behind a gateway that answers HTTP 522 to every try', () => {
	let registry: ScriptedRegistry;
	scriptedRegistryEachTest(
		(started) => (registry = started),
		(_request, response) => {
			response.writeHead(522, 'Origin Connection Time-out', { 'content-type': 'text/html' });
			response.end('<html><title>error code: 522</title></html>');
		},
	);

	it('fails the row after Max Attempts, and says how often it was tried', async () => {
		const engine = scriptedEngine(registry);
		const { errors } = await runRows(engine, ROWS.slice(0, 1), {
			onError: 'continueErrorOutput',
		});
		expect(errors.map((item) => item.json.error)).toEqual([
			'The registry answered HTTP 522 Origin Connection Time-out (tried 3 times)',
		]);
		expect(registry.lookups).toBe(3);
	});
});

describe('a registry behind a gateway whose answer is no passing failure', () => {
	let registry: ScriptedRegistry;
	scriptedRegistryEachTest(
		(started) => (registry = started),
		(_request, response) => {
			// 525: the gateway's TLS handshake with the origin failed, a setting no retry mends.
			response.writeHead(525, 'SSL Handshake Failed', { 'content-type': 'text/html' });
			response.end('<html><title>error code: 525</title></html>');
		},
	);

	it('fails its row at once (HTTP 525)', async () => {
		const engine = scriptedEngine(registry);
		const { errors } = await runRows(engine, ROWS.slice(0, 1), {
			onError: 'continueErrorOutput',
		});
		expect(errors.map((item) => item.json.error)).toEqual([
			'The registry answered HTTP 525 SSL Handshake Failed',
		]);
		expect(registry.lookups).toBe(1);
	});
});
