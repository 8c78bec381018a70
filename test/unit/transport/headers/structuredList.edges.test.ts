import { parseList } from '../../../../nodes/shared/transport/rateControl/headers/structuredList';

// RFC 8941 at its edges, for the part rate-limit fields use: each character class, each bound the RFC
// sets (integers of at most 15 digits, decimals of at most 12 before the point and 3 after).

const items = (text: string) =>
	parseList(text)?.map(({ value, params }) => ({ value, params: Object.fromEntries(params) }));

describe('structured-field lists at their edges', () => {
	it.each([
		['tokens with the extra token characters', 'a/b:c;q=1', [{ value: 'a/b:c', params: { q: 1 } }]],
		['tokens with upper-case letters to Z', 'AZ;q=1', [{ value: 'AZ', params: { q: 1 } }]],
		['a token starting with *', '*a;q=1', [{ value: '*a', params: { q: 1 } }]],
		['keys with the letters to z', 'a;z=1', [{ value: 'a', params: { z: 1 } }]],
		['keys with _ - . * and digits', 'a;q_1-x.y*=1', [{ value: 'a', params: { 'q_1-x.y*': 1 } }]],
		['a key starting with *', 'a;*k=1', [{ value: 'a', params: { '*k': 1 } }]],
		['a space after the semicolon', 'a; q=1', [{ value: 'a', params: { q: 1 } }]],
		['an escaped backslash', '"a\\\\b"', [{ value: 'a\\b', params: {} }]],
		['space and tilde in a string', '" ~"', [{ value: ' ~', params: {} }]],
		['booleans', 'a;x=?1;y=?0', [{ value: 'a', params: { x: true, y: false } }]],
		['a boolean item', '?1', [{ value: true, params: {} }]],
		[
			'a byte sequence, kept as its text',
			'a;pk=:cHJvamVjdA==:',
			[{ value: 'a', params: { pk: 'cHJvamVjdA==' } }],
		],
		[
			'an integer of 15 digits',
			'a;k=123456789012345',
			[{ value: 'a', params: { k: 123456789012345 } }],
		],
		[
			'a decimal of 12 digits and 3 after the point',
			'a;k=123456789012.125',
			[{ value: 'a', params: { k: 123456789012.125 } }],
		],
	])('%s', (_case, text, expected) => {
		expect(items(text)).toEqual(expected);
	});

	it.each([
		['a tab in a string', '"a\tb"'],
		['a character beyond ~ in a string', '"é"'],
		['a decimal of 13 digits before the point', 'a;k=1234567890123.5'],
		['a minus without digits', 'a;k=-'],
		['a point without digits after it', 'a;k=1.'],
		['a character that starts no item', ')abc:'],
		['an escape of another character', '"\\a"'],
	])('%s is no list', (_case, text) => {
		expect(parseList(text)).toBeUndefined();
	});

	it('as many items as any registry has policies is a list (one more is not: see ietfStructured.test.ts)', () => {
		const list = (count: number) =>
			Array.from({ length: count }, (_, index) => `"p${index}";r=1`).join(', ');
		expect(parseList(list(16))).toHaveLength(16);
	});
});
