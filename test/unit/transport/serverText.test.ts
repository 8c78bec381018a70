import {
	displayUrl,
	escapeControls,
	redact,
	serverText,
} from '../../../nodes/shared/transport/serverText';

describe('server text', () => {
	const jwt = 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJkZW1vIn0.c2lnbmF0dXJl';

	it.each([
		[
			'the exact secret',
			'bad client_secret=demo-secret here',
			['demo-secret'],
			'bad client_secret=[redacted] here',
		],
		[
			'the URL-encoded secret',
			'body: client_secret=s%2Fcr%26t',
			['s/cr&t'],
			'body: client_secret=[redacted]',
		],
		[
			'a JSON-escaped secret',
			'{"client_secret":"a\\"b-secret"}',
			['a"b-secret'],
			'{"client_secret":"[redacted]"}',
		],
		['any JWT', `token ${jwt} refused`, [], 'token [redacted] refused'],
		[
			'a Bearer credential',
			'got Authorization: Bearer abc.def-ghi',
			[],
			'got Authorization: Bearer [redacted]',
		],
		[
			'URL user information',
			'Could not reach http://user:pass@host:9/x',
			[],
			'Could not reach http://host:9/x',
		],
	])('removes %s', (_label, text, secrets, expected) => {
		expect(redact(text, secrets)).toBe(expected);
	});

	it('ignores secrets too short to be secrets (they would redact ordinary words)', () => {
		expect(redact('a b c', ['a', ''])).toBe('a b c');
	});

	it('makes control and bidi characters visible', () => {
		expect(escapeControls('line1\r\nline2\u202Eevil\u0000')).toBe(
			'line1\\u{D}\\u{A}line2\\u{202E}evil\\u{0}',
		);
	});

	it('redacts before it cuts, so half a secret never survives the cut', () => {
		const secret = 'S'.repeat(50);
		const text = `${'x'.repeat(280)}${secret}${'y'.repeat(1000)}`;
		const shown = serverText(text, [secret]);
		expect(shown).not.toContain('SSSS');
		expect(shown.length).toBeLessThan(340);
		expect(shown).toMatch(/… \(\d+ more characters\)$/);
	});

	it('shows an address without its user information', () => {
		expect(displayUrl('https://user:pw@login.example.test/oauth/token')).toBe(
			'https://login.example.test/oauth/token',
		);
		expect(displayUrl('not a url\r\n')).toBe('not a url\\u{D}\\u{A}');
	});
});
