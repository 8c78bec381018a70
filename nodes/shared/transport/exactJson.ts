/**
 * JSON read as the registry wrote it. JSON.parse reads every number as a double, which holds 15 to 17
 * significant digits and magnitudes up to about 1.8e308: a register's 20-digit number in a field it adds
 * came out as another number without a word, and 1e400 as Infinity (null in n8n's run data). Such a
 * number is read as the text the registry sent; every other number as a number. Node 20 (where the suite
 * and the harness run) gives JSON.parse's reviver no source text (Node 22 and later do), so the numbers
 * are found in the text itself, and the result is the same on every Node.
 */

/**
 * A JSON string (captured; its escapes included) or a JSON number. Strings first, so that digits in
 * them are no number; in valid JSON a backslash is never followed by a line break.
 */
const STRING_OR_NUMBER = /("[^"\\]*(?:\\.[^"\\]*)*")|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/g;

/** Parses JSON text, a number a double cannot hold read as its text. Throws where JSON.parse throws. */
export function parseExactJson(text: string): unknown {
	// Parsed first, so that only valid JSON is scanned: there every quote outside a string opens one that
	// closes. In broken text (64 KB of escaped quotes) the scan takes time growing with the square of its length.
	const value = JSON.parse(text) as unknown;
	const exact = text.replace(STRING_OR_NUMBER, (token, string?: string) =>
		string !== undefined || heldExactly(token) ? token : `"${token}"`,
	);
	return exact === text ? value : (JSON.parse(exact) as unknown);
}

/** Whether a double reads back as the number the text writes (its form aside: `1.50e2` is `150`). */
export function heldExactly(token: string): boolean {
	const value = Number(token);
	return Number.isFinite(value) && decimalForm(token) === decimalForm(String(value));
}

/** A whole JSON number, or one as String() writes a double (`1e+21`). */
const DECIMAL = /(-?)(\d+)(?:\.(\d+))?(?:e([+-]?\d+))?/i;

/** A decimal as its significant digits and their power of ten: `1.50e2` and `150` are both `15e1`. */
function decimalForm(text: string): string {
	const [, sign, whole, fraction = '', exponent = '0'] = DECIMAL.exec(text) as RegExpExecArray;
	const digits = `${whole}${fraction}`.replace(/^0+/, '');
	const significant = digits.replace(/0+$/, '');
	// Zero has no sign in JSON's output, nor digits to compare.
	if (significant === '') return '0';
	const power = Number(exponent) - fraction.length + (digits.length - significant.length);
	return `${sign}${significant}e${power}`;
}
