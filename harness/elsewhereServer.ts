import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** Another origin that records what reaches it: redirects point here, and it must see no credential. */
export async function elsewhereServer(): Promise<{
	url: string;
	received: Array<{ headers: IncomingMessage['headers']; body: string }>;
	close(): Promise<void>;
}> {
	const received: Array<{ headers: IncomingMessage['headers']; body: string }> = [];
	const server: Server = createServer((request, response) => {
		const chunks: Buffer[] = [];
		request.on('data', (chunk: Buffer) => chunks.push(chunk));
		request.on('end', () => {
			received.push({ headers: request.headers, body: Buffer.concat(chunks).toString('utf8') });
			response.writeHead(200, { 'content-type': 'application/json' });
			response.end(
				JSON.stringify({
					isRegistered: true,
					officialName: 'Elsewhere Ltd',
					status: 'Active',
					registrationDate: '2020-01-01',
					access_token: 'stolen',
				}),
			);
		});
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
	return {
		url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
		received,
		close: async () => {
			server.closeAllConnections();
			await new Promise<void>((resolve) => server.close(() => resolve()));
		},
	};
}
