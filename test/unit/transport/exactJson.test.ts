import { heldExactly, parseExactJson } from '../../../nodes/shared/transport/exactJson';

// JSON read as the registry wrote it: a number a double cannot hold comes as its text (red team,
// test/integration/redteam/largeNumbersInRecord.test.ts).

describe('heldExactly', () => {
	it.each([
		'0',
		'-0',
		'0.0',
		'-0.000e5',
		'42',
		'-42',
		'9007199254740991',
		'9007199254740992',
		'1.5',
		'1.50',
		'1.5e3',
		'1.5E3',
		'1E+2',
		'150e-2',
		'0.1',
		'0.000001',
		'1e21',
		'1e-7',
		'123456789012345',
		'1.7976931348623157e308',
		'5e-324',
		'0.0000001',
		'1050e-1',
		'1000000000000000000000',
	])('%s reads back as written', (token) => expect(heldExactly(token)).toBe(true));

	it.each([
		'9007199254740993',
		'-9007199254740993',
		'98765432109876543210',
		'123456789012345678.91',
		'0.10000000000000000555',
		'1e400',
		'-1e400',
		'1e-400',
		'2e-324',
		'1.00000000000000001',
	])('%s does not', (token) => expect(heldExactly(token)).toBe(false));
});

describe('parseExactJson', () => {
	it('reads a number a double cannot hold as its text, anywhere in the answer', () => {
		expect(
			parseExactJson(
				'{"a":9007199254740993,"b":[1,-98765432109876543210,{"c":1e400}],"d":-0.5e1,"e":true,"f":null}',
			),
		).toEqual({
			a: '9007199254740993',
			b: [1, '-98765432109876543210', { c: '1e400' }],
			d: -5,
			e: true,
			f: null,
		});
	});

	it('leaves digits inside strings, and strings with escaped quotes, as they are', () => {
		expect(
			parseExactJson('{"x\\"9007199254740993":"\\\\","n":"1e400 \\" 9007199254740993","m":12}'),
		).toEqual({ 'x"9007199254740993': '\\', n: '1e400 " 9007199254740993', m: 12 });
	});

	it('reads each part of a number: its fraction, its exponent and its sign', () => {
		expect(
			parseExactJson('[0.10000000000000000555,1e+400,1E-400,-1.5e-3,123456789012345678.91]'),
		).toEqual(['0.10000000000000000555', '1e+400', '1E-400', -0.0015, '123456789012345678.91']);
	});

	it('skips strings with several escapes whole', () => {
		expect(parseExactJson('["a\\\\b\\" 9007199254740993 \\n",1]')).toEqual([
			'a\\b" 9007199254740993 \n',
			1,
		]);
	});

	it('skips a string whose digits follow two escapes, with no quote among them', () => {
		expect(parseExactJson('["\\\\ \\\\ 9007199254740993"]')).toEqual(['\\ \\ 9007199254740993']);
	});

	it('reads an answer that is one number, or white space around one', () => {
		expect(parseExactJson(' 98765432109876543210\n')).toBe('98765432109876543210');
		expect(parseExactJson('7')).toBe(7);
	});

	it('throws where JSON.parse throws', () => {
		expect(() => parseExactJson('{"a":1')).toThrow(SyntaxError);
		expect(() => parseExactJson('not json')).toThrow(SyntaxError);
	});
});

describe('parseExactJson on broken text', () => {
	it('refuses it before scanning it', () => {
		const replace = jest.spyOn(String.prototype, 'replace');
		try {
			expect(() => parseExactJson(`"${'\\"'.repeat(32_000)}`)).toThrow(SyntaxError);
			expect(replace).not.toHaveBeenCalled();
		} finally {
			replace.mockRestore();
		}
	});
});
