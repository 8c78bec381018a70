/**
 * Text that came from a server (error messages, echoed values, addresses) is shown to users only after
 * it went through here: secrets removed, control characters made visible, length capped. A registry
 * that echoes the Authorization header or the token request back must not put a token or the client
 * secret into an error item, the run data or a log line.
 */

/** Longer server texts are cut: a 200 KB error page is no message. */
export const MAX_SERVER_TEXT = 300;

const REDACTED = '[redacted]';

/** Anything shaped like a JWT (three base64url parts, the first a JSON header) is a token. */
const JWT = /eyJ[A-Za-z0-9_-]*\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*/g;
/** A Bearer credential, whatever token it carries. */
const BEARER = /\b(Bearer)\s+[^\s"',;]+/gi;
/** `scheme://user:password@host`: the user information part. */
const USERINFO = /\b([a-z][a-z0-9+.-]*:\/\/)[^\s/?#@]*@/gi;
/** C0 and C1 controls and bidirectional formatting characters, which could forge or reorder lines. */
const CONTROL = /[\p{Cc}\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/gu;

/**
 * The ways servers write a secret back: as sent; percent-encoded with upper-case hex (encodeURIComponent,
 * most stacks), lower-case hex (.NET's UrlEncode) or `+` for spaces (forms); JSON-escaped, also with `\/`
 * for `/` (PHP's json_encode, JSON nested in a message); base64, standard or URL-safe (an echoed
 * `Basic id:secret` or Authorization header).
 */
function writingsOf(secret: string): Set<string> {
	const percent = encodeURIComponent(secret);
	const lowerHex = percent.replace(/%[0-9A-F]{2}/g, (hex) => hex.toLowerCase());
	const json = JSON.stringify(secret).slice(1, -1);
	return new Set([
		secret,
		percent,
		lowerHex,
		percent.replace(/%20/g, '+'),
		lowerHex.replace(/%20/g, '+'),
		json,
		json.replace(/\//g, '\\/'),
		...base64Writings(secret),
	]);
}

/** What is removed for one run's secrets: their writings, and every piece of MIN_PIECE characters. */
interface Removals {
	writings: string[];
	pieces: Set<string>;
}

/**
 * A piece of a secret this long is removed wherever it stands: a secret echoed cut in pieces (a header
 * cut at a column width, two halves in two fields) is still the secret to whoever joins them. Shorter
 * pieces could be ordinary text.
 */
const MIN_PIECE = 16;

/**
 * The removals for one run's secrets, made once for all its records and messages (each run passes one
 * list of secrets along), and gone with that list: no secret outlives its run here.
 */
const removalsOfRun = new WeakMap<ReadonlyArray<string | undefined>, Removals>();

function removalsOf(secrets: ReadonlyArray<string | undefined>): Removals {
	const known = removalsOfRun.get(secrets);
	if (known) return known;
	// Very short values would redact ordinary words; a real secret or token is longer.
	const real = secrets.filter(
		(secret): secret is string => secret !== undefined && secret.length >= 4,
	);
	const pieces = new Set<string>();
	for (const secret of real)
		for (let start = 0; start + MIN_PIECE <= secret.length; start++)
			pieces.add(secret.slice(start, start + MIN_PIECE));
	const removals = { writings: real.flatMap((secret) => [...writingsOf(secret)]), pieces };
	removalsOfRun.set(secrets, removals);
	return removals;
}

/** Every stretch of `text` made of pieces of a secret, replaced by one REDACTED. */
function removePieces(text: string, pieces: Set<string>): string {
	if (pieces.size === 0) return text;
	let result = '';
	/** Where the text not yet copied starts, and where the stretch being removed ends. */
	let copied = 0;
	let removedTo = -1;
	for (let start = 0; start + MIN_PIECE <= text.length; start++) {
		if (!pieces.has(text.slice(start, start + MIN_PIECE))) continue;
		if (start > removedTo) {
			result += `${text.slice(copied, start)}${REDACTED}`;
		}
		removedTo = start + MIN_PIECE;
		copied = removedTo;
	}
	return result + text.slice(copied);
}

/** Shorter base64 runs could match ordinary text. */
const MIN_BASE64_RUN = 6;

/**
 * The secret's bytes in base64 wherever it starts in a longer encoded text: its offset in a three-byte
 * group (0, 1 or 2) changes every character, so each offset gives its own run, without the characters
 * that also carry bits of the bytes around it.
 */
function base64Writings(secret: string): string[] {
	const bytes = new TextEncoder().encode(secret);
	const writings: string[] = [];
	for (const offset of [0, 1, 2]) {
		let padded = '\0'.repeat(offset);
		// One character per byte, as btoa takes them (a token may be too long to spread into arguments).
		for (const byte of bytes) padded += String.fromCharCode(byte);
		const run = btoa(padded).slice(
			Math.ceil((offset * 8) / 6),
			Math.floor(((offset + bytes.length) * 8) / 6),
		);
		if (run.length < MIN_BASE64_RUN) continue;
		writings.push(run, run.replace(/\+/g, '-').replace(/\//g, '_'));
	}
	return writings;
}

/** Removes every occurrence of the given secrets, in each of the writings above, and their pieces. */
export function removeSecrets(text: string, secrets: ReadonlyArray<string | undefined>): string {
	const { writings, pieces } = removalsOf(secrets);
	let result = text;
	for (const form of writings) result = result.split(form).join(REDACTED);
	return removePieces(result, pieces);
}

/** Removes the given secrets, anything shaped like a token, and URL user information. */
export function redact(text: string, secrets: ReadonlyArray<string | undefined>): string {
	return removeSecrets(text, secrets)
		.replace(JWT, REDACTED)
		.replace(BEARER, `$1 ${REDACTED}`)
		.replace(USERINFO, '$1');
}

/** Control characters as visible `\u{…}` escapes: a CR/LF or a bidi override cannot forge a line. */
export function escapeControls(text: string): string {
	return text.replace(CONTROL, (char) => `\\u{${char.codePointAt(0)!.toString(16).toUpperCase()}}`);
}

/** Redacted first (so a cut cannot leave half a secret), then escaped, then capped. */
export function serverText(
	text: string,
	secrets: ReadonlyArray<string | undefined>,
	max = MAX_SERVER_TEXT,
): string {
	const safe = escapeControls(redact(text, secrets));
	return safe.length > max ? `${safe.slice(0, max)}… (${safe.length - max} more characters)` : safe;
}

/** An address for a message: without user information, and only its origin and path. */
export function displayUrl(url: string): string {
	const asWritten = () => escapeControls(url.replace(USERINFO, '$1')).slice(0, MAX_SERVER_TEXT);
	try {
		const parsed = new URL(url);
		// A scheme with no origin (`javascript:`, or `api.example.com:443` read as one) would show as "null…".
		if (parsed.origin === 'null') return asWritten();
		parsed.username = '';
		parsed.password = '';
		return `${parsed.origin}${parsed.pathname === '/' ? '' : parsed.pathname}`;
	} catch {
		return asWritten();
	}
}
