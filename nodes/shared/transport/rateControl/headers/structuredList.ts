/**
 * The part of RFC 8941 (Structured Field Values) that rate-limit fields use: a List of Items with
 * Parameters, e.g. `"burst";q=100;w=60, "daily";q=1000;w=86400`. One pass, character by character, so
 * no input can make it slow; any syntax error voids the whole field (RFC 8941 4.2), as does a list
 * longer than any registry's policies. Inner lists are not rate-limit syntax: they void it too.
 */

export type BareItem = string | number | boolean;

export interface ListItem {
	value: BareItem;
	params: Map<string, BareItem>;
}

/** More items than any registry has policies (the draft's examples have two or three). */
const MOST_ITEMS = 16;
/** RFC 8941 3.3.1: integers have at most 15 digits. */
const MOST_DIGITS = 15;
/** RFC 8941 3.3.2: decimals have at most three fractional digits. */
const MOST_FRACTION_DIGITS = 3;

const TCHAR_EXTRA = "!#$%&'*+-.^_`|~:/";
const isDigit = (char: string) => char >= '0' && char <= '9';
const isLowerAlpha = (char: string) => char >= 'a' && char <= 'z';
const isAlpha = (char: string) => isLowerAlpha(char) || (char >= 'A' && char <= 'Z');
const isKeyChar = (char: string) => isLowerAlpha(char) || isDigit(char) || '_-.*'.includes(char);
const isTokenChar = (char: string) => isAlpha(char) || isDigit(char) || TCHAR_EXTRA.includes(char);
const isBase64Char = (char: string) => isAlpha(char) || isDigit(char) || '+/='.includes(char);

class Syntax extends Error {}

/** The items of a Structured Field List, or undefined where the text is not one. */
export function parseList(text: string): ListItem[] | undefined {
	try {
		return new ListParser(text).list();
	} catch {
		// Only a syntax error can end the parse early: the field is not a rate limit's.
		return undefined;
	}
}

class ListParser {
	private pos = 0;

	constructor(private readonly text: string) {}

	list(): ListItem[] {
		const items: ListItem[] = [];
		this.skip(' ');
		while (this.pos < this.text.length) {
			items.push({ value: this.bareItem(), params: this.parameters() });
			if (items.length > MOST_ITEMS) throw new Syntax();
			this.skip(' \t');
			if (this.pos === this.text.length) return items;
			this.expect(',');
			this.skip(' \t');
			if (this.pos === this.text.length) throw new Syntax();
		}
		return items;
	}

	private parameters(): Map<string, BareItem> {
		const params = new Map<string, BareItem>();
		while (this.peek() === ';') {
			this.pos += 1;
			this.skip(' ');
			const key = this.key();
			let value: BareItem = true;
			if (this.peek() === '=') {
				this.pos += 1;
				value = this.bareItem();
			}
			// RFC 8941 4.2.3.2: a key told twice keeps its last value.
			params.set(key, value);
		}
		return params;
	}

	private key(): string {
		const start = this.pos;
		const first = this.peek();
		if (!isLowerAlpha(first) && first !== '*') throw new Syntax();
		while (this.pos < this.text.length && isKeyChar(this.text[this.pos])) this.pos += 1;
		return this.text.slice(start, this.pos);
	}

	private bareItem(): BareItem {
		const char = this.peek();
		if (char === '"') return this.string();
		if (char === '-' || isDigit(char)) return this.number();
		if (isAlpha(char) || char === '*') return this.token();
		if (char === '?') return this.boolean();
		if (char === ':') return this.byteSequence();
		throw new Syntax();
	}

	private string(): string {
		this.pos += 1;
		let value = '';
		while (this.pos < this.text.length) {
			const char = this.text[this.pos++];
			if (char === '"') return value;
			if (char === '\\') {
				const escaped = this.text[this.pos++];
				if (escaped !== '"' && escaped !== '\\') throw new Syntax();
				value += escaped;
			} else if (char < ' ' || char > '~') throw new Syntax();
			else value += char;
		}
		throw new Syntax();
	}

	private number(): number {
		const start = this.pos;
		if (this.peek() === '-') this.pos += 1;
		const whole = this.digits(MOST_DIGITS);
		if (this.peek() === '.') {
			this.pos += 1;
			this.digits(MOST_FRACTION_DIGITS);
			if (whole > MOST_DIGITS - MOST_FRACTION_DIGITS) throw new Syntax();
		}
		return Number(this.text.slice(start, this.pos));
	}

	/** At least one digit and at most `most`: how many. */
	private digits(most: number): number {
		const start = this.pos;
		while (this.pos < this.text.length && isDigit(this.text[this.pos])) this.pos += 1;
		const count = this.pos - start;
		if (count === 0 || count > most) throw new Syntax();
		return count;
	}

	private token(): string {
		const start = this.pos;
		this.pos += 1;
		while (this.pos < this.text.length && isTokenChar(this.text[this.pos])) this.pos += 1;
		return this.text.slice(start, this.pos);
	}

	private boolean(): boolean {
		const value = this.text[this.pos + 1];
		if (value !== '0' && value !== '1') throw new Syntax();
		this.pos += 2;
		return value === '1';
	}

	/** Kept as its base64 text: no rate-limit parameter is bytes that matter here (pk is opaque). */
	private byteSequence(): string {
		const start = ++this.pos;
		while (this.pos < this.text.length && isBase64Char(this.text[this.pos])) this.pos += 1;
		this.expect(':');
		return this.text.slice(start, this.pos - 1);
	}

	private peek(): string {
		return this.pos < this.text.length ? this.text[this.pos] : '';
	}

	private expect(char: string): void {
		if (this.peek() !== char) throw new Syntax();
		this.pos += 1;
	}

	private skip(chars: string): void {
		while (this.pos < this.text.length && chars.includes(this.text[this.pos])) this.pos += 1;
	}
}
