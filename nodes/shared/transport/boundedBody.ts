import { parseExactJson } from './exactJson';

/**
 * Answers are read as streams (n8n's `encoding: 'stream'`, which axios hands over already decompressed)
 * and only up to a cap: n8n's own request helper reads any body whole (maxContentLength Infinity), so a
 * gzip answer of 100 KB inflating to 100 MB would otherwise land in memory, in the run data and in an
 * AI agent's answer, and a few of them end the n8n process.
 */

/**
 * The most of an answer the node reads, counted after decompression. A company record is under 2 KB
 * and an error answer is a line or two; 64 KB is thirty times a record (room for fields a registry may
 * add), yet 100 lookups in flight (the most Max Concurrent Requests allows) hold at most 6.4 MB.
 * A token answer is a few KB as well.
 */
export const MAX_ANSWER_BYTES = 64 * 1024;

/** A response body as n8n returns it for `encoding: 'stream'`. */
export interface BodyStream extends AsyncIterable<Uint8Array | string> {
	destroy(error?: Error): unknown;
}

export function isBodyStream(body: unknown): body is BodyStream {
	return (
		typeof body === 'object' &&
		body !== null &&
		typeof (body as Partial<BodyStream>).destroy === 'function' &&
		typeof (body as Partial<BodyStream>)[Symbol.asyncIterator] === 'function'
	);
}

export type BodyRead =
	| { kind: 'read'; body: unknown }
	/** Larger than the cap: by its Content-Length (when not compressed), or counted while reading. */
	| { kind: 'oversized'; limitBytes: number; declaredBytes?: number }
	/** The stream broke off (a reset, or destroyed because the deadline passed or the run stopped). */
	| { kind: 'interrupted'; code: string };

const decoder = new TextDecoder();

/**
 * Reads a body up to `limitBytes` and parses it as JSON when it is JSON (the text otherwise, as axios
 * does). A body over the cap is destroyed at once, which closes its connection; so is one that breaks off,
 * and one still arriving when `signal` aborts (a deadline passed): a trickling body is not waited for.
 */
export async function readBoundedBody(
	body: unknown,
	headers: Record<string, unknown>,
	limitBytes = MAX_ANSWER_BYTES,
	signal?: AbortSignal,
): Promise<BodyRead> {
	if (!isBodyStream(body)) return { kind: 'read', body };
	const stop = () => body.destroy(new Error('The deadline for this answer passed'));
	if (signal?.aborted) stop();
	signal?.addEventListener('abort', stop, { once: true });
	try {
		return await readAtMost(body, headers, limitBytes);
	} finally {
		signal?.removeEventListener('abort', stop);
	}
}

async function readAtMost(
	body: BodyStream,
	headers: Record<string, unknown>,
	limitBytes: number,
): Promise<BodyRead> {
	const declared = Number(headerOf(headers, 'content-length'));
	if (headerOf(headers, 'content-encoding') === undefined && declared > limitBytes) {
		body.destroy();
		return { kind: 'oversized', limitBytes, declaredBytes: declared };
	}
	const chunks: Uint8Array[] = [];
	let size = 0;
	try {
		for await (const chunk of body) {
			const bytes = typeof chunk === 'string' ? new TextEncoder().encode(chunk) : chunk;
			size += bytes.length;
			// Leaving the loop destroys the stream (and so the socket): nothing more is read.
			if (size > limitBytes) return { kind: 'oversized', limitBytes };
			chunks.push(bytes);
		}
	} catch (error) {
		body.destroy();
		return { kind: 'interrupted', code: (error as { code?: string }).code ?? 'ECONNRESET' };
	}
	return { kind: 'read', body: parsed(decoderFor(headers).decode(joined(chunks, size))) };
}

/**
 * The decoder of the charset the Content-Type names: JSON is UTF-8, but a registry that writes
 * ISO-8859-1 and says so had every name with an umlaut come out as 'M\uFFFDller'. UTF-8 where it names
 * none, or one unknown.
 */
function decoderFor(headers: Record<string, unknown>): typeof decoder {
	const charset = /;\s*charset\s*=\s*"?([^";\s]+)/i.exec(
		headerOf(headers, 'content-type') ?? '',
	)?.[1];
	if (charset === undefined || /^utf-?8$/i.test(charset)) return decoder;
	try {
		return new TextDecoder(charset);
	} catch {
		return decoder;
	}
}

function joined(chunks: Uint8Array[], size: number): Uint8Array {
	if (chunks.length === 1) return chunks[0];
	const all = new Uint8Array(size);
	let offset = 0;
	for (const chunk of chunks) {
		all.set(chunk, offset);
		offset += chunk.length;
	}
	return all;
}

/**
 * JSON when it parses (an empty body stays ''), the text otherwise: a broken record says what it was.
 * A number a double cannot hold comes as the text the registry wrote (exactJson.ts).
 */
function parsed(text: string): unknown {
	if (text.trim() === '') return text;
	try {
		return parseExactJson(text);
	} catch {
		return text;
	}
}

function headerOf(headers: Record<string, unknown>, name: string): string | undefined {
	const value = headers[name];
	return Array.isArray(value) ? String(value[0]) : typeof value === 'string' ? value : undefined;
}

/** "64 KB" for a message. */
export function kilobytes(bytes: number): string {
	return `${Math.round(bytes / 1024)} KB`;
}
