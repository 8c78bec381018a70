import type { IncomingMessage, ServerResponse } from 'node:http';
import { gzipSync } from 'node:zlib';

import { mulberry32 } from './faults';
import { sendJson, sleep, trickleJson } from './http';

/**
 * Every misbehaviour the sandbox knows, for the chaos registry: each request draws one (or none) from
 * a seed. What each does to a lookup:
 * - '500' … '504': that status (503 with Retry-After: 1);
 * - 'reset': the connection destroyed unanswered;
 * - 'timeout': the answer held back `slowMs` (past the client's Request Timeout);
 * - 'trickle': the right answer, its body written a few bytes at a time over `trickleMs`;
 * - 'oversized': a 200 record with a 256 KB field; 'gzip-bomb': gzip inflating to 8 MB;
 * - 'gzip': the right answer, gzip-compressed;
 * - 'redirect': 307 to the same path at another origin (`elsewhere`);
 * - 'echo-value', 'echo-key', 'echo-header': the right answer, with the Authorization header echoed in
 *   a field's value, as a field's name, or in a response header;
 * - 'odd-rate-headers': the right answer with nonsense X-RateLimit-* and Retry-After headers;
 * - '429-odd': 429 with a Retry-After of '0', '-5', a past date or garbage;
 * - '401': invalid_token, as after a revocation.
 * The token endpoint draws too: 5xx and resets fail the exchange, a redirect points elsewhere, an
 * echo puts the request (with the client secret) in the error.
 */
export const MISBEHAVIOURS = [
	'500',
	'502',
	'503',
	'504',
	'reset',
	'timeout',
	'trickle',
	'oversized',
	'gzip-bomb',
	'gzip',
	'redirect',
	'echo-value',
	'echo-key',
	'echo-header',
	'odd-rate-headers',
	'429-odd',
	'401',
] as const;
export type Misbehaviour = (typeof MISBEHAVIOURS)[number];

export interface ChaosSettings {
	seed: number;
	/** Probability (0 to 1) that a lookup misbehaves. */
	share: number;
	/** Probability that a token request misbehaves. */
	tokenShare: number;
	/** Another origin, for redirects: it must never receive a credential. */
	elsewhere: string;
	slowMs: number;
	trickleMs: number;
}

/** FNV-1a of the text mixed with the seed. */
function hash(seed: number, text: string): number {
	let value = 0x811c9dc5 ^ seed;
	for (let index = 0; index < text.length; index++) {
		value ^= text.charCodeAt(index);
		value = Math.imul(value, 0x01000193);
	}
	return value >>> 0;
}

/**
 * The draws of one chaos run. A draw depends on the seed, the request target and how many requests
 * that target has had, not on the order requests arrive in: a seed replays the same misbehaviours for
 * the same sheet, whatever the timing.
 */
export class Chaos {
	private readonly seen = new Map<string, number>();

	constructor(readonly settings: ChaosSettings) {}

	draw(route: 'lookup' | 'token', target: string): Misbehaviour | undefined {
		const key = `${route} ${target}`;
		const nth = (this.seen.get(key) ?? 0) + 1;
		this.seen.set(key, nth);
		const random = mulberry32(hash(this.settings.seed, `${key}#${nth}`));
		if (random() >= (route === 'lookup' ? this.settings.share : this.settings.tokenShare))
			return undefined;
		return MISBEHAVIOURS[Math.floor(random() * MISBEHAVIOURS.length)];
	}

	/** A second value for the draw that needs one (which odd header), from the same target. */
	variant(target: string, choices: number): number {
		return hash(this.settings.seed ^ 0x5bd1e995, target) % choices;
	}
}

const ODD_RETRY_AFTER = ['0', '-5', 'Sat, 01 Jan 2000 00:00:00 GMT', 'soon', '99999999999'];
const ODD_RATE_HEADERS: Array<Record<string, string>> = [
	{ 'x-ratelimit-remaining': '-1', 'x-ratelimit-reset': '-3' },
	{ 'x-ratelimit-remaining': 'NaN', 'x-ratelimit-limit': 'lots', 'retry-after': 'garbage' },
	{ 'x-ratelimit-remaining': '1e309', 'x-ratelimit-reset': '99999999999' },
	{ 'ratelimit-remaining': '0', 'ratelimit-reset': '0', 'x-ratelimit-remaining': '0' },
];

/** The misbehaviours that replace the answer before the company is looked up; undefined for the others. */
export function chaosFailure(
	misbehaviour: Misbehaviour,
	chaos: Chaos,
	target: string,
):
	| { status: number; body: Record<string, unknown>; headers?: Record<string, string> }
	| 'reset'
	| undefined {
	switch (misbehaviour) {
		case '500':
			return { status: 500, body: { error: 'InternalFailureException', message: 'Chaos' } };
		case '502':
			return { status: 502, body: { message: 'Bad Gateway' } };
		case '503':
			return {
				status: 503,
				body: { message: 'Service Unavailable' },
				headers: { 'retry-after': '1' },
			};
		case '504':
			return { status: 504, body: { message: 'Gateway Timeout' } };
		case 'reset':
			return 'reset';
		case 'redirect':
			return {
				status: 307,
				body: { message: 'Moved' },
				headers: { location: `${chaos.settings.elsewhere}${target}` },
			};
		case '429-odd':
			return {
				status: 429,
				body: { message: 'Rate limit exceeded. Please wait and try again later.' },
				headers: { 'retry-after': ODD_RETRY_AFTER[chaos.variant(target, ODD_RETRY_AFTER.length)] },
			};
		default:
			return undefined;
	}
}

let bomb: Buffer | undefined;

/** A 200 record with a 256 KB field ('oversized'), or gzip of 8 KB inflating to 8 MB ('gzip-bomb'). */
export function sendOversized(
	kind: 'oversized' | 'gzip-bomb',
	response: ServerResponse,
	body: Record<string, unknown>,
	headers: Record<string, string>,
): void {
	if (kind === 'oversized') {
		sendJson(response, 200, { ...body, filler: 'x'.repeat(256 * 1024) }, headers);
		return;
	}
	bomb ??= gzipSync(JSON.stringify({ ...body, filler: 'x'.repeat(8 * 1024 * 1024) }));
	response.writeHead(200, {
		'content-type': 'application/json',
		'content-encoding': 'gzip',
		'content-length': bomb.length,
		...headers,
	});
	response.end(bomb);
}

/**
 * Sends a 200 answer as the misbehaviour wants it: true when it did, false for the misbehaviours that
 * leave the 200 alone.
 */
export async function sendChaos200(
	misbehaviour: Misbehaviour | undefined,
	chaos: Chaos,
	request: IncomingMessage,
	response: ServerResponse,
	body: Record<string, unknown>,
	headers: Record<string, string>,
): Promise<boolean> {
	const authorization = request.headers.authorization ?? '';
	switch (misbehaviour) {
		case 'timeout':
			await sleep(chaos.settings.slowMs);
			if (!response.destroyed) sendJson(response, 200, body, headers);
			return true;
		case 'trickle':
			await trickleJson(response, 200, body, headers, chaos.settings.trickleMs);
			return true;
		case 'oversized':
		case 'gzip-bomb':
			sendOversized(misbehaviour, response, body, headers);
			return true;
		case 'gzip': {
			const compressed = gzipSync(JSON.stringify(body));
			response.writeHead(200, {
				'content-type': 'application/json',
				'content-encoding': 'gzip',
				'content-length': compressed.length,
				...headers,
			});
			response.end(compressed);
			return true;
		}
		case 'echo-value':
			sendJson(response, 200, { ...body, seen: `Authorization: ${authorization}` }, headers);
			return true;
		case 'echo-key':
			sendJson(
				response,
				200,
				{ ...body, [authorization]: true, echo: { [authorization.replace(/^Bearer /, '')]: 1 } },
				headers,
			);
			return true;
		case 'echo-header':
			sendJson(response, 200, body, { ...headers, 'x-echo-authorization': authorization });
			return true;
		case 'odd-rate-headers':
			sendJson(response, 200, body, {
				...headers,
				...ODD_RATE_HEADERS[chaos.variant(request.url ?? '', ODD_RATE_HEADERS.length)],
			});
			return true;
		default:
			return false;
	}
}
