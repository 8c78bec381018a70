import { request as httpRequest } from 'node:http';

import { DEMO_CLIENT, type Sandbox, type SandboxClient } from '../../sandbox/server';

export interface RawResponse {
	status: number;
	headers: Record<string, string | string[] | undefined>;
	text: string;
	json: any;
}

/** A plain HTTP request with the path sent exactly as given (no URL normalisation). */
export async function rawRequest(
	sandbox: Sandbox,
	method: string,
	path: string,
	options: { headers?: Record<string, string>; body?: string } = {},
): Promise<RawResponse> {
	return await new Promise((resolve, reject) => {
		const request = httpRequest(
			{ host: '127.0.0.1', port: sandbox.port, method, path, headers: options.headers },
			(response) => {
				const chunks: Buffer[] = [];
				response.on('data', (chunk: Buffer) => chunks.push(chunk));
				response.on('end', () => {
					const text = Buffer.concat(chunks).toString('utf8');
					let json: unknown;
					try {
						json = JSON.parse(text);
					} catch {
						json = undefined;
					}
					resolve({ status: response.statusCode ?? 0, headers: response.headers, text, json });
				});
			},
		);
		request.on('error', reject);
		if (options.body !== undefined) request.write(options.body);
		request.end();
	});
}

export async function requestToken(
	sandbox: Sandbox,
	body: Record<string, unknown> = {},
	client: SandboxClient = DEMO_CLIENT,
): Promise<RawResponse> {
	return await rawRequest(sandbox, 'POST', '/oauth/token', {
		headers: { 'content-type': 'application/json' },
		body: JSON.stringify({
			client_id: client.clientId,
			client_secret: client.clientSecret,
			audience: sandbox.audience,
			grant_type: 'client_credentials',
			...body,
		}),
	});
}

export async function tokenFor(
	sandbox: Sandbox,
	client: SandboxClient = DEMO_CLIENT,
): Promise<string> {
	const response = await requestToken(sandbox, {}, client);
	if (response.status !== 200)
		throw new Error(`token request failed: ${response.status} ${response.text}`);
	return response.json.access_token as string;
}

export async function lookup(sandbox: Sandbox, path: string, token: string): Promise<RawResponse> {
	return await rawRequest(sandbox, 'GET', path, { headers: { authorization: `Bearer ${token}` } });
}

export function decodeJwt(token: string): { header: any; claims: any } {
	const [header, claims] = token.split('.');
	return {
		header: JSON.parse(Buffer.from(header, 'base64url').toString('utf8')),
		claims: JSON.parse(Buffer.from(claims, 'base64url').toString('utf8')),
	};
}
