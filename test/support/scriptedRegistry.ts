import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/** A JWT-shaped token, so that redaction by shape applies as to a real one. */
export const SCRIPTED_TOKEN =
	'eyJhbGciOiJub25lIn0.eyJzdWIiOiJzY3JpcHRlZCIsInNjb3BlIjoicmVhZDpjb21wYW55In0.c2NyaXB0ZWQtc2lnbmF0dXJl';

export const GOOD_RECORD = {
	isRegistered: true,
	officialName: 'Scripted GmbH',
	status: 'Active',
	registrationDate: '2001-02-03',
	registeredAddress: 'Musterweg 1, Berlin',
};

/** An unknown company, as the interface document (4.2 rule 2) has the registry answer it. */
export const NOT_REGISTERED_RECORD = {
	isRegistered: false,
	officialName: 'N/A',
	status: 'N/A',
	registrationDate: 'N/A',
	registeredAddress: 'N/A',
};

export type Handler = (request: IncomingMessage, response: ServerResponse) => void | Promise<void>;

/**
 * A registry whose every answer a test writes itself: the token endpoint issues `token()` (by default
 * SCRIPTED_TOKEN), lookups go to `lookup`. It counts the sockets open at the server, for tests that
 * prove no request is left behind.
 */
export interface ScriptedRegistry {
	url: string;
	lookups: number;
	tokenRequests: number;
	lookup: Handler;
	token: Handler;
	/** Sockets the server holds open now. */
	openSockets(): number;
	/** Resolves once no socket is open, or after `withinMs` with the count left. */
	socketsClosed(withinMs?: number): Promise<number>;
	close(): Promise<void>;
}

const bodies = new WeakMap<IncomingMessage, string>();

/** The body a request to a scripted registry carried (the token exchange's JSON), as text. */
export function bodyOf(request: IncomingMessage): string {
	return bodies.get(request) ?? '';
}

export async function scriptedRegistry(
	lookup: Handler = (_request, response) => json(response, 200, GOOD_RECORD),
): Promise<ScriptedRegistry> {
	const sockets = new Set<Socket>();
	const registry: ScriptedRegistry = {
		url: '',
		lookups: 0,
		tokenRequests: 0,
		lookup,
		token: (_request, response) =>
			json(response, 200, {
				access_token: SCRIPTED_TOKEN,
				token_type: 'Bearer',
				expires_in: 2_592_000,
			}),
		openSockets: () => sockets.size,
		async socketsClosed(withinMs = 1000) {
			const until = Date.now() + withinMs;
			while (sockets.size > 0 && Date.now() < until)
				await new Promise((resolve) => setTimeout(resolve, 20));
			return sockets.size;
		},
		close: async () => {
			server.closeAllConnections();
			await new Promise<void>((resolve) => server.close(() => resolve()));
		},
	};
	const server: Server = createServer((request, response) => {
		const isToken = request.url === '/oauth/token';
		if (isToken) registry.tokenRequests += 1;
		else registry.lookups += 1;
		// The request body (the token exchange's JSON) is read before answering, and kept for bodyOf.
		const chunks: Buffer[] = [];
		request.on('data', (chunk: Buffer) => chunks.push(chunk));
		request.on('end', () => {
			bodies.set(request, Buffer.concat(chunks).toString());
			void (isToken ? registry.token : registry.lookup)(request, response);
		});
	});
	server.on('connection', (socket) => {
		sockets.add(socket);
		socket.on('close', () => sockets.delete(socket));
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
	registry.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
	return registry;
}

/**
 * A scripted registry new for each test of the describe this is called in (its script and counts stay the
 * test's own), closed after it. `started` receives it.
 */
export function scriptedRegistryEachTest(
	started: (registry: ScriptedRegistry) => void,
	lookup?: Handler,
): void {
	let registry: ScriptedRegistry | undefined;
	beforeEach(async () => {
		registry = await scriptedRegistry(lookup);
		started(registry);
	});
	afterEach(async () => await registry?.close());
}

export function json(
	response: ServerResponse,
	status: number,
	body: unknown,
	headers: Record<string, string> = {},
): void {
	const payload = JSON.stringify(body);
	response.writeHead(status, {
		'content-type': 'application/json',
		'content-length': Buffer.byteLength(payload),
		...headers,
	});
	response.end(payload);
}

/**
 * Writes `bytes` of a JSON body in 64 KB chunks, as fast as the client reads, without a length:
 * returns how many bytes went out before the client hung up.
 */
export async function endlessJson(response: ServerResponse, bytes: number): Promise<number> {
	response.writeHead(200, { 'content-type': 'application/json' });
	const chunk = Buffer.alloc(64 * 1024, 'x');
	let written = 0;
	response.write(
		'{"isRegistered":true,"officialName":"Big","status":"Active","registrationDate":"2001-02-03","filler":"',
	);
	while (written < bytes && !response.destroyed) {
		written += chunk.length;
		if (!response.write(chunk))
			// Whichever comes first ends the wait; the other listener goes too, or one 'close' listener
			// a chunk piles up on the response (Node's MaxListenersExceededWarning in the suite's output).
			await new Promise<void>((resolve) => {
				const done = () => {
					response.off('drain', done);
					response.off('close', done);
					resolve();
				};
				response.once('drain', done);
				response.once('close', done);
			});
	}
	if (!response.destroyed) response.end('"}');
	return written;
}
