import { Readable } from 'node:stream';

import type {
	ICredentialDataDecryptedObject,
	ICredentialsDecrypted,
	IHttpRequestOptions,
} from 'n8n-workflow';

import { standInNode } from '../../harness/standInNode';
import { lookUpRows, type CompanyRow } from '../../nodes/shared/lookupPipeline';
import { LookupInputError, type LookupKey } from '../../nodes/shared/model/lookupKey';
import { GOOD_RECORD, SCRIPTED_TOKEN } from '../support/scriptedRegistry';

// The pipeline's routing of rows that are looked up: the result each row gets (a record, or a failure
// with its cause, its key and the error a user reads), on its own row and in input order, under Continue
// and under Stop, across the tries of Retry On Fail, and with the tokens n8n fetched on the way kept out.
// n8n's request helper is stood in for by one that does with the credential what n8n-core's does
// (request-helpers/authentication.js 31-62: a token exchange's answer is assigned into the credential's
// data; a 401 left to it renews the token and repeats the request once) and answers as each test says.

type Context = Parameters<typeof lookUpRows>[0];
type Rows = Parameters<typeof lookUpRows>[1];
type Failed = Extract<CompanyRow, { kind: 'failed' }>;

/** A registry's answer to one request. */
type Answer = { status: number; body?: unknown };
type Script = (path: string, token: string) => Answer | Promise<Answer>;

const CREDENTIAL = { id: 'cred-7', name: 'Registry (test)' };
const BASE_URL = 'https://registry.test';
const STORED_TOKEN = 'stored-token-0123456789';

interface Sent {
	path: string;
	token: string;
	/** Sent in n8n's renewing mode: a 401 left to n8n. */
	renew: boolean;
	credential: Omit<ICredentialsDecrypted, 'data'>;
}

/** A token n8n fetched: the n-th of the run. */
const fetchedToken = (n: number) => `fetched-token-${n}-0123456789abcdef`;

/** `credentialData`: the stored credential's fields over the defaults (undefined: a field not there). */
function standIn(script: Script, credentialData: Record<string, unknown> = {}) {
	const sent: Sent[] = [];
	let credentialReads = 0;
	let tokensFetched = 0;
	const node = standInNode({ credentials: { companyRegistryApi: CREDENTIAL } });
	const inputData = [{ json: {} }];
	const fetchToken = (data: ICredentialDataDecryptedObject) =>
		Object.assign(data, { accessToken: fetchedToken(++tokensFetched) });
	/** The user stopping the execution. */
	const execution = new AbortController();
	const context = {
		getNode: () => node,
		getExecutionCancelSignal: () => execution.signal,
		getInputData: () => inputData,
		getCredentials: async () => {
			credentialReads++;
			return {
				clientId: 'c',
				clientSecret: 'the-secret',
				baseUrl: BASE_URL,
				accessToken: STORED_TOKEN,
				...credentialData,
			};
		},
		helpers: {
			httpRequest: async () => {
				throw new Error('no token exchange here: the stand-in fetches tokens itself');
			},
			async httpRequestWithAuthentication(
				_type: string,
				request: IHttpRequestOptions,
				options: { credentialsDecrypted: ICredentialsDecrypted },
			) {
				const { data = {}, ...credential } = options.credentialsDecrypted;
				if (!data.accessToken) fetchToken(data);
				const path = new URL(request.url).pathname;
				const except = (request.ignoreHttpStatusErrors as { except: number[] }).except;
				const renew = except.length > 0;
				sent.push({ path, token: String(data.accessToken), renew, credential });
				let answer = await script(path, String(data.accessToken));
				if (renew && except.includes(answer.status)) {
					fetchToken(data);
					answer = await script(path, String(data.accessToken));
				}
				return {
					statusCode: answer.status,
					statusMessage: '',
					headers: { 'content-type': 'application/json' },
					body: Readable.from([Buffer.from(JSON.stringify(answer.body ?? {}))]),
				};
			},
		},
	};
	return {
		context: context as unknown as Context,
		inputData,
		node,
		execution,
		sent,
		credentialReads: () => credentialReads,
	};
}

/** Rows of German company ids; `bad` ones cannot be looked up. */
const rowsOf = (ids: Array<string | undefined>, label?: (itemIndex: number) => string): Rows => ({
	count: ids.length,
	keyAt: (itemIndex) => {
		const companyId = ids[itemIndex];
		if (companyId === undefined) throw new LookupInputError('Company ID is missing', 'an id');
		return { countryCode: 'de', companyId };
	},
	label,
});

const pathOf = (companyId: string) => `/v1/company/de/${companyId}`;
const idOf = (path: string) => path.split('/').pop()!;
const ok = (officialName = GOOD_RECORD.officialName) => ({
	status: 200,
	body: { ...GOOD_RECORD, officialName },
});

/** What a user sees of each row: its kind, row, key, and the failure's cause and message. */
const seen = (rows: CompanyRow[]) =>
	rows.map((row) =>
		row.kind === 'record'
			? { record: row.record.officialName, row: row.itemIndex, key: row.key }
			: {
					failed: row.cause,
					row: row.itemIndex,
					key: row.key,
					message: row.error.message,
					errorRow: row.error.context.itemIndex,
				},
	);

const key = (companyId: string): LookupKey => ({ countryCode: 'de', companyId });

describe('rows that are looked up, under Continue', () => {
	it('each gets its own result in input order: a record, a row that cannot be looked up, a refusal', async () => {
		const { context, sent } = standIn((path) =>
			idOf(path) === 'HRB403' ? { status: 403, body: { error: 'not in your plan' } } : ok(),
		);
		const results = await lookUpRows(
			context,
			rowsOf(['HRB1', undefined, 'HRB403', 'HRB1']),
			{ maxConcurrency: 1 },
			{ stopAtFirstFailure: false },
		);
		expect(seen(results)).toEqual([
			{ record: GOOD_RECORD.officialName, row: 0, key: key('HRB1') },
			{
				failed: 'input',
				row: 1,
				key: undefined,
				message: 'Company ID is missing',
				errorRow: 1,
			},
			expect.objectContaining({ failed: 'forbidden', row: 2, key: key('HRB403'), errorRow: 2 }),
			{ record: GOOD_RECORD.officialName, row: 3, key: key('HRB1') },
		]);
		expect(results.map((row) => row.kind)).toEqual(['record', 'failed', 'failed', 'record']);
		// The same company twice is looked up once; the row that could not be is not sent.
		expect(sent.map((request) => request.path).sort()).toEqual([pathOf('HRB1'), pathOf('HRB403')]);
		// n8n is handed the node's credential, by its id and name, to renew and save its token.
		expect(sent[0].credential).toEqual({ ...CREDENTIAL, type: 'companyRegistryApi' });
	});

	it("a refusal says which scopes the token's payload grants, or none for an opaque token", async () => {
		const forbidden = async (accessToken: string) => {
			const { context } = standIn(() => ({ status: 403 }), { accessToken });
			const [row] = await lookUpRows(context, rowsOf(['HRB9']), {}, { stopAtFirstFailure: false });
			return (row as Failed).error.description;
		};
		// SCRIPTED_TOKEN's payload grants "read:company".
		expect(await forbidden(SCRIPTED_TOKEN)).toMatch(/^Granted scopes: read:company\. /);
		expect(await forbidden('opaque-token-0123456789')).toMatch(/^Granted scopes: none\. /);
	});

	it('each key is read once, as the lookups take the rows', async () => {
		const { context } = standIn(() => ok());
		const read: number[] = [];
		const rows = rowsOf(['HRB1', undefined, 'HRB2']);
		const counted: Rows = {
			...rows,
			keyAt: (itemIndex) => (read.push(itemIndex), rows.keyAt(itemIndex)),
		};
		const results = await lookUpRows(context, counted, {}, { stopAtFirstFailure: false });
		expect(results.map((row) => row.kind)).toEqual(['record', 'failed', 'record']);
		expect(read).toEqual([0, 1, 2]);
	});

	it('a scope that is not text in the token is no granted scope', async () => {
		const part = (json: object) => Buffer.from(JSON.stringify(json)).toString('base64url');
		const accessToken = `${part({ alg: 'none' })}.${part({ scope: ['read:company'] })}.c2ln`;
		const { context } = standIn(() => ({ status: 403 }), { accessToken });
		const [row] = await lookUpRows(context, rowsOf(['HRB9']), {}, { stopAtFirstFailure: false });
		expect((row as Failed).error.description).toMatch(/^Granted scopes: none\. /);
	});

	it('a row that cannot be looked up, on a list without labels, keeps its message as it is', async () => {
		const { context } = standIn(() => ok());
		const results = await lookUpRows(
			context,
			rowsOf([undefined, 'HRB2']),
			{},
			{ stopAtFirstFailure: false },
		);
		expect(seen(results)).toEqual([
			{ failed: 'input', row: 0, key: undefined, message: 'Company ID is missing', errorRow: 0 },
			{ record: GOOD_RECORD.officialName, row: 1, key: key('HRB2') },
		]);
	});
});

describe('rows that are looked up, under Stop', () => {
	it('the first real failure in input order is thrown, not a lookup it cancelled', async () => {
		// Row 1 fails while row 0 waits for its 500 to be tried again: row 0 is cancelled, and row 1's
		// failure, though later in the sheet, is the one n8n shows.
		let row1Failed = () => {};
		const failed = new Promise<void>((resolve) => (row1Failed = resolve));
		const { context } = standIn(async (path) => {
			if (idOf(path) === 'HRB404') {
				row1Failed();
				return { status: 404, body: { error: 'unknown' } };
			}
			await failed;
			await new Promise((resolve) => setTimeout(resolve, 20));
			return { status: 500 };
		});
		const failing = lookUpRows(
			context,
			rowsOf(['HRB0', 'HRB404']),
			{ maxConcurrency: 2 },
			{ stopAtFirstFailure: true },
		);
		const error = (await failing.catch((thrown: unknown) => thrown)) as Failed['error'];
		expect(error.context.itemIndex).toBe(1);
		expect(error.message).not.toMatch(/cancelled/);
	});

	it('a record before the failure: the failure is thrown', async () => {
		const { context } = standIn((path) => (idOf(path) === 'HRB404' ? { status: 404 } : ok()));
		const failing = lookUpRows(
			context,
			rowsOf(['HRB1', 'HRB404']),
			{ maxConcurrency: 1 },
			{ stopAtFirstFailure: true },
		);
		const error = (await failing.catch((thrown: unknown) => thrown)) as Failed['error'];
		expect(error).toBeInstanceOf(Error);
		expect(error.context.itemIndex).toBe(1);
	});

	it('the execution stopped after a row was answered: the node fails with the next row, cancelled by the stop', async () => {
		const { context, execution } = standIn((path) => {
			if (idOf(path) === 'HRB1') execution.abort();
			return ok();
		});
		const failing = lookUpRows(
			context,
			rowsOf(['HRB1', 'HRB2']),
			{ maxConcurrency: 1 },
			{ stopAtFirstFailure: true },
		);
		const error = (await failing.catch((thrown: unknown) => thrown)) as Failed['error'];
		expect(error).toBeInstanceOf(Error);
		expect([error.message, error.context.itemIndex]).toEqual([
			'The lookup was cancelled: the execution was stopped',
			1,
		]);
	});

	it('every key is read before any request: a bad row fails the node with nothing sent', async () => {
		const { context, sent } = standIn(() => ok());
		const failing = lookUpRows(
			context,
			rowsOf(['HRB1', 'HRB2', undefined]),
			{},
			{
				stopAtFirstFailure: true,
			},
		);
		await expect(failing).rejects.toThrow('Company ID is missing');
		expect(sent).toEqual([]);
	});

	it('all rows answered: each its record, the keys read once each', async () => {
		const { context } = standIn((path) => ok(`Company ${idOf(path)}`));
		const read: number[] = [];
		const rows = rowsOf(['HRB1', 'HRB2']);
		const counted: Rows = {
			...rows,
			keyAt: (itemIndex) => (read.push(itemIndex), rows.keyAt(itemIndex)),
		};
		const results = await lookUpRows(context, counted, {}, { stopAtFirstFailure: true });
		expect(seen(results)).toEqual([
			{ record: 'Company HRB1', row: 0, key: key('HRB1') },
			{ record: 'Company HRB2', row: 1, key: key('HRB2') },
		]);
		expect(read).toEqual([0, 1]);
	});
});

describe('the tries of Retry On Fail', () => {
	const failingOnce = () => {
		let tries = 0;
		const script: Script = (path) =>
			idOf(path) === 'HRB2' && tries === 1 ? { status: 404 } : ok(`Company ${idOf(path)}`);
		return { script, nextTry: () => tries++ };
	};

	it('a row the registry answered in a failed try is not sent again; its record comes back as it was', async () => {
		const { script, nextTry } = failingOnce();
		const { context, sent } = standIn(script);
		const rows = rowsOf(['HRB1', 'HRB2']);
		nextTry();
		const first = await lookUpRows(context, rows, {}, { stopAtFirstFailure: false });
		expect(first.map((row) => row.kind)).toEqual(['record', 'failed']);
		sent.length = 0;
		nextTry();
		const second = await lookUpRows(context, rows, {}, { stopAtFirstFailure: false });
		expect(sent.map((request) => request.path)).toEqual([pathOf('HRB2')]);
		expect(seen(second)).toEqual([
			{ record: 'Company HRB1', row: 0, key: key('HRB1') },
			{ record: 'Company HRB2', row: 1, key: key('HRB2') },
		]);
		// A copy: the output shares no object with what is kept.
		expect(second[0]).not.toBe(first[0]);
		expect((second[0] as { record: object }).record).not.toBe(
			(first[0] as { record: object }).record,
		);
		// A try with no failure lets the answers go: another run on the same input asks again.
		sent.length = 0;
		await lookUpRows(context, rows, {}, { stopAtFirstFailure: false });
		expect(sent.map((request) => request.path).sort()).toEqual([pathOf('HRB1'), pathOf('HRB2')]);
	});

	it("a node that names no credential, or one without an id: n8n is handed the credential's data with no id", async () => {
		const { context, node, sent } = standIn(() => ok());
		node.credentials = undefined;
		await lookUpRows(context, rowsOf(['HRB1']), {}, { stopAtFirstFailure: false });
		node.credentials = { companyRegistryApi: { id: null, name: 'Old' } };
		await lookUpRows(context, rowsOf(['HRB2']), {}, { stopAtFirstFailure: false });
		expect(sent.map((request) => request.credential)).toStrictEqual([
			{ id: '', name: '', type: 'companyRegistryApi' },
			{ id: '', name: 'Old', type: 'companyRegistryApi' },
		]);
	});

	it("another credential's answers are not reused", async () => {
		const { script, nextTry } = failingOnce();
		const { context, node, sent } = standIn(script);
		const rows = rowsOf(['HRB1', 'HRB2']);
		nextTry();
		await lookUpRows(context, rows, {}, { stopAtFirstFailure: false });
		node.credentials = { companyRegistryApi: { id: 'cred-8', name: 'Another' } };
		sent.length = 0;
		nextTry();
		await lookUpRows(context, rows, {}, { stopAtFirstFailure: false });
		expect(sent.map((request) => request.path).sort()).toEqual([pathOf('HRB1'), pathOf('HRB2')]);
		expect(sent[0].credential).toEqual({
			id: 'cred-8',
			name: 'Another',
			type: 'companyRegistryApi',
		});
	});
});

describe('the tokens of a run', () => {
	it.each([
		['empty', ''],
		['absent', undefined],
	])(
		'none stored (%s): the credential is read again before the first lookup, which goes alone',
		async (_, accessToken) => {
			const events: string[] = [];
			const { context, sent, credentialReads } = standIn(
				async (path) => {
					events.push(`sent ${idOf(path)}`);
					await new Promise((resolve) => setImmediate(resolve));
					events.push(`answered ${idOf(path)}`);
					return ok();
				},
				{ accessToken },
			);
			await lookUpRows(
				context,
				rowsOf(['HRB1', 'HRB2', 'HRB3']),
				{ maxConcurrency: 3 },
				{
					stopAtFirstFailure: false,
				},
			);
			expect(events.slice(0, 2)).toEqual(['sent HRB1', 'answered HRB1']);
			expect(events).toHaveLength(6);
			expect(sent[0].token).toBe(fetchedToken(1));
			expect(credentialReads()).toBe(2);
		},
	);

	it('one stored: a 401 is left to n8n to renew, with the credential read again for it', async () => {
		const { context, sent, credentialReads } = standIn(
			(_path, token) => (token === SCRIPTED_TOKEN ? { status: 401 } : ok()),
			{ accessToken: SCRIPTED_TOKEN },
		);
		const [row] = await lookUpRows(context, rowsOf(['HRB1']), {}, { stopAtFirstFailure: false });
		expect(row.kind).toBe('record');
		expect(sent.map((request) => request.renew)).toEqual([false, true]);
		// At the start, and at the renewal: a secret saved since is the one the new token needs (secretRotated.test.ts).
		expect(credentialReads()).toBe(2);
	});

	it("the credential's other fields, which n8n writes into it too, are no secrets: a record naming them keeps them", async () => {
		const { context, credentialReads } = standIn(() => ok(`Echo ${BASE_URL} client-4711 GmbH`), {
			accessToken: '',
			clientId: 'client-4711',
		});
		const [row] = await lookUpRows(context, rowsOf(['HRB1']), {}, { stopAtFirstFailure: false });
		// Read again before the first lookup: n8n's copy was written into the one in hand.
		expect(credentialReads()).toBe(2);
		expect(row.kind === 'record' && row.record.officialName).toBe(
			`Echo ${BASE_URL} client-4711 GmbH`,
		);
	});

	it('the client secret and the stored token a registry echoes stay out of the records', async () => {
		const { context } = standIn(() => ok(`Echo the-secret ${STORED_TOKEN} GmbH`));
		const [row] = await lookUpRows(context, rowsOf(['HRB1']), {}, { stopAtFirstFailure: false });
		const name = row.kind === 'record' ? row.record.officialName : row.kind;
		expect(name).toMatch(/^Echo .* GmbH$/);
		expect(name).not.toContain('the-secret');
		expect(name).not.toContain(STORED_TOKEN);
	});

	it('every token n8n put into the credential during the run stays out of the records, not only the last', async () => {
		// Row HRB1 meets a 401 with the stored token and is answered with the first renewed one; HRB2
		// then meets a 401 with that one and is answered with the second: the registry echoes each.
		const refused: Record<string, string[]> = {
			HRB1: [STORED_TOKEN],
			HRB2: [STORED_TOKEN, fetchedToken(1)],
		};
		const { context } = standIn(
			(path, token) =>
				refused[idOf(path)].includes(token) ? { status: 401 } : ok(`Echo ${token} GmbH`),
			{ accessToken: STORED_TOKEN },
		);
		const results = await lookUpRows(
			context,
			rowsOf(['HRB1', 'HRB2']),
			{ maxConcurrency: 1 },
			{
				stopAtFirstFailure: false,
			},
		);
		const names = results.map((row) =>
			row.kind === 'record' ? row.record.officialName : row.kind,
		);
		expect(names).toHaveLength(2);
		for (const name of names) {
			expect(name).toMatch(/^Echo .* GmbH$/);
			expect(name).not.toContain('fetched-token');
			expect(name).not.toContain('stored-token');
		}
	});
});

// The engine case (redteam/baseUrlWithoutScheme.test.ts) in each way a Base URL can miss its scheme.
describe("the credential's Base URL", () => {
	const needsScheme = (shown: string) =>
		`The credential's Base URL '${shown}' is not an http(s) address: write it with its scheme, e.g. https://api.verifiet.com`;

	it.each([
		['without a scheme', 'registry.test'],
		['with another scheme', 'ftp://registry.test'],
		['with https:// only further on', 'proxy.test/https://registry.test'],
	])('%s: every row fails saying so, and nothing is sent', async (_label, baseUrl) => {
		const { context, sent } = standIn(() => ok(), { baseUrl });
		const results = await lookUpRows(
			context,
			rowsOf(['HRB1', 'HRB2']),
			{},
			{ stopAtFirstFailure: false },
		);
		expect(
			results.map((row) => [row.kind, row.itemIndex, row.kind === 'failed' && row.error.message]),
		).toEqual([
			['failed', 0, needsScheme(baseUrl)],
			['failed', 1, needsScheme(baseUrl)],
		]);
		expect(sent).toEqual([]);
	});

	it.each(['http://registry.test', 'HTTPS://registry.test'])(
		'%s is an http(s) address: its rows are looked up',
		async (baseUrl) => {
			const { context, sent } = standIn(() => ok(), { baseUrl });
			const results = await lookUpRows(
				context,
				rowsOf(['HRB1']),
				{},
				{ stopAtFirstFailure: false },
			);
			expect(seen(results)).toEqual([
				{ record: GOOD_RECORD.officialName, row: 0, key: key('HRB1') },
			]);
			expect(sent.map((request) => request.path)).toEqual([pathOf('HRB1')]);
		},
	);
});
