import type { IncomingMessage, ServerResponse } from 'node:http';

/** An answer other than 200, thrown by a route and sent by the server. */
export class HttpFailure extends Error {
	constructor(
		readonly status: number,
		readonly body: Record<string, unknown>,
		readonly headers: Record<string, string> = {},
	) {
		super(String(body.message ?? body.error_description ?? status));
	}
}

export const sleep = async (ms: number) => await new Promise((resolve) => setTimeout(resolve, ms));

export function sendJson(
	response: ServerResponse,
	status: number,
	body: unknown,
	headers: Record<string, string> = {},
): void {
	const payload = JSON.stringify(body);
	response.writeHead(status, {
		'content-type': 'application/json; charset=utf-8',
		'content-length': Buffer.byteLength(payload),
		...headers,
	});
	response.end(payload);
}

/**
 * Sends the headers at once and then the body a few bytes at a time, spread over `overMs`: a slow or stalling
 * upstream that an idle timeout never notices but a deadline for the whole answer does.
 */
export async function trickleJson(
	response: ServerResponse,
	status: number,
	body: unknown,
	headers: Record<string, string>,
	overMs: number,
) {
	const payload = Buffer.from(JSON.stringify(body), 'utf8');
	response.writeHead(status, {
		'content-type': 'application/json; charset=utf-8',
		'content-length': payload.length,
		...headers,
	});
	response.flushHeaders();
	const pieces = Math.max(1, Math.min(payload.length, 20));
	const size = Math.ceil(payload.length / pieces);
	for (let offset = 0; offset < payload.length; offset += size) {
		await sleep(overMs / pieces);
		if (response.destroyed) return;
		response.write(payload.subarray(offset, offset + size));
	}
	response.end();
}

export async function readBody(request: IncomingMessage, limit = 64 * 1024): Promise<string> {
	const chunks: Buffer[] = [];
	let size = 0;
	for await (const chunk of request) {
		size += (chunk as Buffer).length;
		if (size > limit)
			throw new HttpFailure(413, {
				error: 'invalid_request',
				error_description: 'The request body is too large',
			});
		chunks.push(chunk as Buffer);
	}
	return Buffer.concat(chunks).toString('utf8');
}
