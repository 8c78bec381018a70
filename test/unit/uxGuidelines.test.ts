import { runInNewContext } from 'node:vm';

import type {
	INodeProperties,
	INodePropertyCollection,
	INodePropertyOptions,
	INodeTypeDescription,
} from 'n8n-workflow';

import { CompanyRegistryApi } from '../../credentials/CompanyRegistryApi.credentials';
import { CompanyRegistry } from '../../nodes/CompanyRegistry/CompanyRegistry.node';
import { describeFailure, type LookupFailure } from '../../nodes/shared/transport/registryError';
import { CompanyRegistryTrigger } from '../../nodes/CompanyRegistryTrigger/CompanyRegistryTrigger.node';

// What n8n's UX guidelines for community nodes ask of the texts a user reads, checked over every text
// the nodes and the credential show (docs.n8n.io, "UX guidelines for community nodes": Copy, Errors;
// "Node UI design": UI text style). Wording is for a reviewer; these are the parts a machine can check.

/** One text the editor shows, and where it stands (for the failure message). */
interface Text {
	where: string;
	text: string;
}

interface Texts {
	/** Title Case: node names, parameter labels, dropdown option names. */
	titles: Text[];
	/** Sentence case, without articles, naming the resource: the operation's action. */
	actions: Text[];
	/** Input placeholders: an example, starting "e.g.". */
	placeholders: Text[];
	/** The "Add …" button of a collection. */
	addButtons: Text[];
	/** Tooltips, option descriptions, notices. */
	prose: Text[];
	/** Descriptions of boolean parameters. */
	booleans: Text[];
}

const isOption = (option: unknown): option is INodePropertyOptions =>
	typeof option === 'object' && option !== null && 'value' in option;
const isCollection = (option: unknown): option is INodePropertyCollection =>
	typeof option === 'object' && option !== null && 'values' in option && !('type' in option);

function collect(properties: INodeProperties[], owner: string, texts: Texts): Texts {
	for (const property of properties) {
		const where = `${owner} › ${property.displayName}`;
		if (property.type === 'notice') texts.prose.push({ where, text: property.displayName });
		else texts.titles.push({ where, text: property.displayName });
		if (property.description) {
			(property.type === 'boolean' ? texts.booleans : texts.prose).push({
				where: `${where} (description)`,
				text: property.description,
			});
		}
		if (property.hint) texts.prose.push({ where: `${where} (hint)`, text: property.hint });
		if (property.placeholder) {
			const collectionLike = property.type === 'collection' || property.type === 'fixedCollection';
			(collectionLike ? texts.addButtons : texts.placeholders).push({
				where: `${where} (placeholder)`,
				text: property.placeholder,
			});
		}
		for (const option of property.options ?? []) {
			if (isOption(option)) {
				texts.titles.push({ where: `${where} › option`, text: option.name });
				if (option.description)
					texts.prose.push({
						where: `${where} › ${option.name} (description)`,
						text: option.description,
					});
				if (option.action)
					texts.actions.push({ where: `${where} › ${option.name} (action)`, text: option.action });
			} else if (isCollection(option)) {
				texts.titles.push({ where: `${where} › ${option.displayName}`, text: option.displayName });
				collect(option.values, `${where} › ${option.displayName}`, texts);
			} else {
				collect([option as INodeProperties], where, texts);
			}
		}
	}
	return texts;
}

function textsOf(
	owner: string,
	description: Pick<INodeTypeDescription, 'properties'> & {
		displayName: string;
		description?: string;
	},
): Texts {
	const texts: Texts = {
		titles: [],
		actions: [],
		placeholders: [],
		addButtons: [],
		prose: [],
		booleans: [],
	};
	texts.titles.push({ where: `${owner} (name)`, text: description.displayName });
	if (description.description)
		texts.prose.push({ where: `${owner} (description)`, text: description.description });
	return collect(description.properties, owner, texts);
}

const credential = new CompanyRegistryApi();
const sources = [
	textsOf('Company Registry', new CompanyRegistry().description),
	textsOf('Company Registry Trigger', new CompanyRegistryTrigger().description),
	textsOf('Company Registry API credential', {
		displayName: credential.displayName,
		properties: credential.properties,
	}),
];
/** The texts of one kind, each once (Look Up and Watch for Changes share their fields). */
const all = (kind: keyof Texts) => [
	...new Map(
		sources
			.flatMap((texts) => texts[kind])
			.map((text) => [`${text.where}\u0000${text.text}`, text]),
	).values(),
];

/** Words Title Case leaves in lower case (articles, conjunctions, short prepositions) unless they open the title. */
const SMALL_WORDS = new Set([
	'a',
	'an',
	'and',
	'as',
	'at',
	'but',
	'by',
	'for',
	'from',
	'in',
	'into',
	'nor',
	'of',
	'on',
	'or',
	'per',
	'the',
	'to',
	'via',
	'with',
]);
/** Particles of place names that stay lower case inside a name: "Tristan da Cunha", "Côte d'Ivoire". */
const NAME_PARTICLES = /^(da|de|del|dos|d'\p{Lu}.*)$/u;

/** The words of a title that break Title Case: a lower-case word that is not small, or a capitalised small word inside. */
function titleCaseViolations(title: string): string[] {
	const words = title.split(/\s+/).map((word) => word.replace(/^[("']+|[)"',.:;]+$/g, ''));
	return words.filter((word, index) => {
		if (word === '') return false;
		const lower = word.toLowerCase();
		// An acronym or a code: "ID", "URL", "IN" (India's code).
		if (word.length > 1 && word === word.toUpperCase()) return false;
		if (SMALL_WORDS.has(lower)) return index > 0 ? word !== lower : !/^\p{Lu}/u.test(word);
		if (index > 0 && NAME_PARTICLES.test(word)) return false;
		return word.split('-').some((part) => part !== '' && !/^[\p{Lu}\d]/u.test(part));
	});
}

/** A sentence's words after the first that are capitalised without being an acronym (API, ID, URL). */
function sentenceCaseViolations(text: string): string[] {
	const [first, ...rest] = text.split(/\s+/);
	const capitalised = rest.filter((word) => /^\p{Lu}\p{Ll}/u.test(word));
	return /^\p{Lu}/u.test(first) ? capitalised : [first, ...capitalised];
}

/** Sentences of a text, with "e.g." and "i.e." not taken for ends. */
function sentences(text: string): string[] {
	return text
		.replace(/\b(e\.g|i\.e)\./g, '$1')
		.split(/(?<=[.!?])\s+(?=["'(]?(?:[\p{Lu}\d]|n8n\b))/u)
		.filter((sentence) => sentence.trim() !== '');
}

/** Implementation words a user cannot act on: exception class names, "failure", HTTP header names. */
const JARGON: Array<[RegExp, string]> = [
	[/\b\w+(Exception|Error)\b/, 'an exception name'],
	[/\bfailures?\b/i, '"failure"'],
	[/\bRetry-After\b/i, 'the Retry-After header'],
	[/\b[\w-]+(Exception|Error)Code\b|\bstack trace\b/i, 'internals'],
];

describe("the nodes' and the credential's texts follow n8n's UX guidelines", () => {
	it('has texts to check (the collection of texts itself works)', () => {
		expect(all('titles').length).toBeGreaterThan(20);
		expect(all('actions').map(({ text }) => text)).toHaveLength(2);
		expect(all('placeholders').length).toBeGreaterThanOrEqual(3);
		expect(all('prose').length).toBeGreaterThan(15);
		expect(all('booleans').length).toBeGreaterThanOrEqual(1);
	});

	it.each([
		['Forget Companies Not Seen for (Days)', []],
		['Max Rate-Limit Wait (Seconds)', []],
		['Company ID', []],
		['Forget Companies Not Seen For (Days)', ['For']],
		['Max attempts', ['attempts']],
		['Look up', ['up']],
		['The Company', []],
		["Côte d'Ivoire", []],
		['Saint Helena, Ascension and Tristan da Cunha', []],
		['India (IN)', []],
		['South Korea (KR; Korea, Republic of)', []],
	])('the Title Case check reads %j as %j', (title, violations) => {
		expect(titleCaseViolations(title)).toEqual(violations);
	});

	it('labels, node names and dropdown options are in Title Case', () => {
		const wrong = all('titles').filter(({ text }) => titleCaseViolations(text).length > 0);
		expect(wrong).toEqual([]);
	});

	it('placeholders give an example that starts with "e.g."', () => {
		const wrong = all('placeholders').filter(({ text }) => !/^e\.g\. \S/.test(text));
		expect(wrong).toEqual([]);
	});

	it("a collection's placeholder is its Add button", () => {
		const wrong = all('addButtons').filter(({ text }) => !/^Add \p{Ll}/u.test(text));
		expect(wrong).toEqual([]);
	});

	it('actions are in sentence case, without articles', () => {
		const wrong = all('actions').filter(
			({ text }) => sentenceCaseViolations(text).length > 0 || /\b(a|an|the)\b/i.test(text),
		);
		expect(wrong).toEqual([]);
	});

	it('descriptions, notices and hints use no exception names, "failure" or header names', () => {
		const wrong = [...all('prose'), ...all('booleans')].flatMap(({ where, text }) =>
			JARGON.filter(([pattern]) => pattern.test(text)).map(([, what]) => ({ where, what, text })),
		);
		expect(wrong).toEqual([]);
	});

	it('a one-sentence tooltip has no final period; several sentences end with one', () => {
		const wrong = [...all('prose'), ...all('booleans')].filter(({ text }) => {
			const count = sentences(text).length;
			return count === 1
				? /\.$/.test(text) && !/\b(e\.g|i\.e|etc)\.$/.test(text)
				: !/[.!?"')]$/.test(text);
		});
		expect(wrong).toEqual([]);
	});

	it('descriptions start with a capital letter (sentence case)', () => {
		const wrong = [...all('prose'), ...all('booleans')].filter(
			({ text }) => !/^["'(]?[\p{Lu}\d]/u.test(text),
		);
		expect(wrong).toEqual([]);
	});

	it('a boolean\'s description starts with "Whether"', () => {
		const wrong = all('booleans').filter(({ text }) => !text.startsWith('Whether '));
		expect(wrong).toEqual([]);
	});
});

/** Evaluates a subtitle expression `={{ … }}` with the given parameters, as n8n's canvas shows it. */
function subtitle(expression: string, parameters: Record<string, unknown>): string {
	const body = /^=\{\{([\s\S]*)\}\}$/.exec(expression)?.[1];
	if (body === undefined) return expression;
	return String(runInNewContext(body, { $parameter: parameters }));
}

describe('subtitles under the node on the canvas', () => {
	const triggerSubtitle = new CompanyRegistryTrigger().description.subtitle!;
	const watching = (count: number) =>
		subtitle(triggerSubtitle, {
			companies:
				count === 0
					? {}
					: {
							company: Array.from({ length: count }, () => ({ country: 'de', companyId: 'HRB1' })),
						},
		});

	it.each([
		[0, 'Watching 0 Companies'],
		[1, 'Watching 1 Company'],
		[2, 'Watching 2 Companies'],
		[25, 'Watching 25 Companies'],
	])("the trigger with %i companies: '%s'", (count, expected) => {
		expect(watching(count)).toBe(expected);
	});

	it.each([
		['lookUp', 'Look Up'],
		['watch', 'Watch for Changes'],
	])('the node doing %s reads %j, in Title Case', (operation, expected) => {
		const text = subtitle(new CompanyRegistry().description.subtitle!, {
			operation,
			resource: 'company',
		});
		expect(text).toBe(expected);
		expect(titleCaseViolations(text)).toEqual([]);
	});
});

describe('the error texts a failed row shows follow the same guidelines', () => {
	const context = {
		key: { countryCode: 'de', companyId: 'HRB1' },
		baseUrl: 'https://api.example.test',
		timeoutMs: 30_000,
		maxRateLimitWaitMs: 60_000,
		secrets: [],
	};
	const http = (status: number): LookupFailure => ({ kind: 'http', status, body: {}, attempts: 3 });
	/** Every kind of failure the transport reports, and every status it words on its own. */
	const failures: Array<[string, LookupFailure]> = [
		...[400, 401, 404, 418, 500, 502, 503, 504].map((status): [string, LookupFailure] => [
			`HTTP ${status}`,
			http(status),
		]),
		['a timeout', { kind: 'no-response', reason: 'timeout', code: 'ETIMEDOUT', attempts: 3 }],
		['no connection', { kind: 'no-response', reason: 'network', code: 'ECONNRESET', attempts: 3 }],
		['429 beyond the wait', { kind: 'rate-limited', waitedMs: 61_000, retryAfterMs: 7_200_000 }],
		['a redirect', { kind: 'redirect', status: 301, location: 'https://elsewhere.test/' }],
		['an oversized answer', { kind: 'oversized', limitBytes: 65_536, declaredBytes: 70_000 }],
		['a broken record', { kind: 'contract', problem: "field 'status' is missing" }],
		['403', { kind: 'forbidden', body: {}, grantedScopes: 'read:aml' }],
		['a refused token', { kind: 'token-refused', status: 401, renewed: true }],
		['a large token', { kind: 'token-refused', status: 431, renewed: false, tokenBytes: 90_000 }],
		['a registry that is down', { kind: 'registry-down', last: http(503), failed: 19, of: 20 }],
	];
	const texts = failures.flatMap(([label, failure]) => {
		const { message, description } = describeFailure(failure, context);
		return [
			{ where: `${label} (message)`, text: message },
			...(description ? [{ where: `${label} (description)`, text: description }] : []),
		];
	});

	it('use no exception names, "failure" or header names', () => {
		const wrong = texts.flatMap(({ where, text }) =>
			JARGON.filter(([pattern]) => pattern.test(text)).map(([, what]) => ({ where, what, text })),
		);
		expect(wrong).toEqual([]);
	});

	it('start with a capital letter (or the name n8n)', () => {
		expect(texts.filter(({ text }) => !/^([\p{Lu}\d]|n8n\b)/u.test(text))).toEqual([]);
	});

	/** The labels of the node's options, as the editor shows them. */
	const labels = all('titles')
		.filter(({ where }) => where.startsWith('Company Registry ›') && !where.includes('option'))
		.map(({ text }) => text);

	it.each<[string, LookupFailure]>([
		['a timeout', failures.find(([label]) => label === 'a timeout')![1]],
		['429 beyond the wait', failures.find(([label]) => label === '429 beyond the wait')![1]],
		['HTTP 400', http(400)],
	])('%s names, by its label, the parameter to change', (_label, failure) => {
		const { description } = describeFailure(failure, context);
		const named = labels.filter((label) => description!.includes(label));
		expect(named.length).toBeGreaterThan(0);
	});
});
