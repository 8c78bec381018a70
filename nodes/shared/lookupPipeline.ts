import {
	NodeApiError,
	NodeOperationError,
	type ICredentialDataDecryptedObject,
	type IExecuteFunctions,
	type INodeExecutionData,
	type IPollFunctions,
} from 'n8n-workflow';

import { AnsweredLookups } from './answeredLookups';
import { executionCancelSignal } from './executionCancelSignal';
import {
	DEFAULT_ATTEMPTS,
	DEFAULT_CONCURRENCY,
	MAX_ATTEMPTS,
	MAX_CONCURRENCY,
} from './descriptions';
import type { CompanyRecord } from './model/companyRecord';
import { LookupInputError, readsState, toLookupKey, type LookupKey } from './model/lookupKey';
import { rowParameter } from './rowField';
import { runBatch, type BatchSettings } from './transport/batchRunner';
import { claimsOf, tokenIssuedFor, withTokenForItsRegistry } from './transport/accessToken';
import { registryError, type LookupFailure } from './transport/registryError';
import {
	CREDENTIAL_TYPE,
	registryRequest,
	type RequestSettings,
} from './transport/registryRequest';
import { displayUrl, redact, removeSecrets } from './transport/serverText';

/**
 * The path of a row, shared by Look Up, Watch for Changes and the trigger: input fields → lookup key
 * (a bad row becomes its own error) → the batch runner → one result per row, with the error a user
 * reads already built. Operations only decide where each result goes.
 */

/** One row after its lookup. */
export type CompanyRow =
	| { kind: 'record'; itemIndex: number; key: LookupKey; record: CompanyRecord }
	| {
			kind: 'failed';
			itemIndex: number;
			key?: LookupKey;
			error: NodeApiError | NodeOperationError;
			/** Why it failed: the lookup's failure, bad input, or `cancelled` (not looked up: the run stopped). */
			cause?: LookupFailure['kind'] | 'input' | 'cancelled';
	  };

/** The Options collection's values, as n8n gives them (expressions may make them anything). */
export interface RequestOptionValues {
	language?: unknown;
	maxAttempts?: unknown;
	maxConcurrency?: unknown;
	maxRateLimitWait?: unknown;
	maxRequestsPerSecond?: unknown;
	timeout?: unknown;
}

export type LookupSettings = RequestSettings & BatchSettings;

type Context = IExecuteFunctions | IPollFunctions;

function numberOption(
	name: string,
	value: unknown,
	fallback: number,
	min: number,
	max: number,
): number {
	if (value === undefined || value === null || value === '') return fallback;
	const number = typeof value === 'string' ? Number(value) : value;
	if (typeof number !== 'number' || !Number.isFinite(number)) {
		throw new Error(
			`The option ${name} must be a number from ${min} to ${max}, not ${typeof value === 'number' ? String(value) : (JSON.stringify(value) ?? String(value))}`,
		);
	}
	return Math.min(max, Math.max(min, number));
}

/** Settings from the credential and the options: numbers checked, clamped to their range. */
export function lookupSettings(
	credentials: ICredentialDataDecryptedObject,
	options: RequestOptionValues,
): LookupSettings {
	const baseUrl = String(credentials.baseUrl ?? '')
		.trim()
		.replace(/\/+$/, '');
	const maxRequestsPerSecond = numberOption(
		'Max Requests per Second',
		options.maxRequestsPerSecond,
		0,
		0,
		10_000,
	);
	return {
		baseUrl,
		registryKey: `${baseUrl} ${String(credentials.clientId ?? '').trim()}`,
		timeoutMs: numberOption('Request Timeout', options.timeout, 30, 1, 600) * 1000,
		maxRateLimitWaitMs:
			numberOption('Max Rate-Limit Wait', options.maxRateLimitWait, 60, 0, 86_400) * 1000,
		maxConcurrency: Math.floor(
			numberOption(
				'Max Concurrent Requests',
				options.maxConcurrency,
				DEFAULT_CONCURRENCY,
				1,
				MAX_CONCURRENCY,
			),
		),
		maxAttempts: Math.floor(
			numberOption('Max Attempts', options.maxAttempts, DEFAULT_ATTEMPTS, 1, MAX_ATTEMPTS),
		),
		// A positive cap below one request per 100 s would park the lookups for good.
		maxRequestsPerSecond:
			maxRequestsPerSecond > 0 ? Math.max(0.01, maxRequestsPerSecond) : undefined,
	};
}

/** Hosts are often written without their scheme: n8n would then say only "Invalid URL", for every row. */
function checkBaseUrl(baseUrl: string): void {
	if (!/^https?:\/\/[^/]/i.test(baseUrl)) {
		throw new Error(
			`The credential's Base URL '${displayUrl(baseUrl)}' is not an http(s) address: write it with its scheme, e.g. https://api.verifiet.com`,
		);
	}
}

/**
 * The Options collection, each option read for row 0, except Language: it may be an expression that
 * differs per row, and inputRows reads it per row. Read with the rest for row 0, its failing there would
 * fail every row.
 */
export function sharedOptions<T extends RequestOptionValues>(context: IExecuteFunctions): T {
	const set = context.getNode().parameters.options;
	if (typeof set !== 'object' || set === null || Array.isArray(set))
		return context.getNodeParameter('options', 0, {}) as unknown as T;
	const names = Object.keys(set).filter((name) => name !== 'language');
	return Object.fromEntries(
		names.map((name) => [name, context.getNodeParameter(`options.${name}`, 0)]),
	) as unknown as T;
}

/**
 * How an operation names its rows: how many there are, and the lookup key of each (throwing
 * LookupInputError, or whatever an expression throws, for a row that cannot be looked up).
 */
export interface RowSource {
	count: number;
	keyAt: (itemIndex: number) => LookupKey;
	/** Prefix for input errors, e.g. "Company 3 of the list: ". */
	label?: (itemIndex: number) => string;
}

/**
 * The input items' Country, Company ID and State parameters and the Language option, as lookup keys.
 * State is read only for United States rows and Language once unless it is an expression: in a real
 * n8n every expression costs an evaluation in its sandbox, on every row. A parameter that only reads a
 * field of the row (`={{ $json.country }}`) is read without one (rowField.ts).
 */
export function inputRows(context: IExecuteFunctions): RowSource {
	const languageRaw = (context.getNode().parameters.options as { language?: unknown } | undefined)
		?.language;
	const languagePerItem = typeof languageRaw === 'string' && languageRaw.startsWith('=');
	const language = languagePerItem
		? undefined
		: context.getNodeParameter('options.language', 0, '');
	return {
		count: context.getInputData().length,
		keyAt: (itemIndex) => {
			const country = rowParameter(context, 'country', itemIndex);
			return toLookupKey({
				country,
				companyId: rowParameter(context, 'companyId', itemIndex, ''),
				state: readsStateOf(country) ? rowParameter(context, 'state', itemIndex, '') : undefined,
				language: languagePerItem
					? context.getNodeParameter('options.language', itemIndex, '')
					: language,
			});
		},
	};
}

function readsStateOf(country: unknown): boolean {
	try {
		return readsState(country);
	} catch {
		// toLookupKey says what is wrong with the country.
		return false;
	}
}

export function inputErrorOf(
	context: Context,
	error: unknown,
	itemIndex: number,
	prefix = '',
): NodeOperationError {
	const node = context.getNode();
	if (error instanceof LookupInputError) {
		return new NodeOperationError(node, `${prefix}${error.message}`, {
			itemIndex,
			description: `Accepted: ${error.accepted}.`,
		});
	}
	if (error instanceof NodeOperationError) return error;
	return new NodeOperationError(node, error instanceof Error ? error : String(error), {
		itemIndex,
	});
}

/**
 * Looks every row up, one result per row, in order. A row that cannot be looked up fails with its own
 * error. Identical keys share one lookup. Under Stop (`stopAtFirstFailure`) every key is read before
 * any request (the first bad row throws, with its item index), the first failure cancels the lookups
 * not yet sent, and the first failed row, in input order, is thrown.
 */
export async function lookUpRows(
	context: Context,
	rows: RowSource,
	options: RequestOptionValues,
	{ stopAtFirstFailure }: { stopAtFirstFailure: boolean },
): Promise<CompanyRow[]> {
	const node = context.getNode();
	const inputErrors = new Map<number, NodeOperationError>();
	const keys = new Map<number, LookupKey>();
	const keyAt = (itemIndex: number): LookupKey | undefined => {
		try {
			const key = rows.keyAt(itemIndex);
			keys.set(itemIndex, key);
			return key;
		} catch (error) {
			// Bad input, or an expression that failed on this row: the row fails, not the sheet.
			const inputError = inputErrorOf(context, error, itemIndex, rows.label?.(itemIndex));
			if (stopAtFirstFailure) throw inputError;
			inputErrors.set(itemIndex, inputError);
			return undefined;
		}
	};
	if (stopAtFirstFailure) for (let index = 0; index < rows.count; index++) keyAt(index);

	let credentials: ICredentialDataDecryptedObject;
	let settings: LookupSettings;
	try {
		credentials = withTokenForItsRegistry(await context.getCredentials(CREDENTIAL_TYPE));
		settings = lookupSettings(credentials, options);
		checkBaseUrl(settings.baseUrl);
	} catch (error) {
		// No usable credential or a broken option: every row fails with it. Thrown under "continue",
		// n8n would pass the input rows on through the first output, where a failed check could pass
		// for a registered company.
		const message = error instanceof Error ? error.message : String(error);
		if (stopAtFirstFailure) throw new NodeOperationError(node, message, { itemIndex: 0 });
		return Array.from({ length: rows.count }, (_, itemIndex) => ({
			kind: 'failed',
			itemIndex,
			error: new NodeOperationError(node, message, { itemIndex }),
		}));
	}

	const tokenWasStored = String(credentials.accessToken ?? '') !== '';
	// Every token the credential held during the run, not only the first and the last: a token fetched
	// and then renewed within the run was sent to the registry, which may echo it.
	const secretsSeen = new Set(secretsIn(credentials));
	const tracked = new Proxy(credentials, {
		set(target, field, value: unknown) {
			if (field === 'accessToken' && typeof value === 'string' && value !== '')
				secretsSeen.add(value);
			return Reflect.set(target, field, value);
		},
	});
	const details = node.credentials?.[CREDENTIAL_TYPE];
	const credential = {
		id: details?.id ?? '',
		name: details?.name ?? '',
		type: CREDENTIAL_TYPE,
		data: tracked,
	};
	// Under Retry On Fail, rows the registry answered in an earlier try of this node run are not sent again.
	const answered = AnsweredLookups.forTry(
		nodeRunOf(context),
		`${credential.id} ${settings.registryKey}`,
	);
	const keyToSend = (itemIndex: number): LookupKey | undefined => {
		const key = stopAtFirstFailure ? keys.get(itemIndex) : keyAt(itemIndex);
		return key && !answered.recordFor(key) ? key : undefined;
	};
	const outcomes = await runBatch(
		rows.count,
		keyToSend,
		settings,
		{
			request: registryRequest(context, settings, credential),
			tokenWasStored,
			cancelSignal: executionCancelSignal(context),
			grantedScopes: async () => scopesOf(credentials.accessToken),
			reloadCredential: async () => {
				try {
					const saved = await context.getCredentials(CREDENTIAL_TYPE);
					// Only for the registry and account this run looks up: its lookups go to the Base URL read at
					// the start, and a token of another would go there with them.
					if (tokenIssuedFor(saved) === tokenIssuedFor(credentials))
						Object.assign(tracked, withTokenForItsRegistry(saved));
				} catch {
					// The copy read at the start still works: n8n fetches a token for it if need be.
				}
			},
		},
		{ stopAtFirstFailure },
	);

	// n8n wrote any renewed token into the credential: outputs and errors carry none of them.
	const secrets = [...secretsSeen, ...secretsIn(credentials)];
	const results = Array.from({ length: rows.count }, (_, itemIndex): CompanyRow => {
		const inputError = inputErrors.get(itemIndex);
		if (inputError) return { kind: 'failed', itemIndex, error: inputError, cause: 'input' };
		// Every other row has its key: read before the lookups (Stop), or by them (runBatch reads each row's).
		const key = keys.get(itemIndex) as LookupKey;
		const outcome = outcomes[itemIndex];
		if (outcome?.kind === 'record') {
			const record = redactRecord(outcome.record, secrets);
			answered.remember(key, record);
			return { kind: 'record', itemIndex, key, record };
		}
		const earlier = outcome ? undefined : answered.recordFor(key);
		// A copy: no output shares an object with what is kept for the next try.
		if (earlier) return { kind: 'record', itemIndex, key, record: redactRecord(earlier, secrets) };
		const error =
			outcome?.kind === 'failed'
				? registryError(outcome.failure, { node, itemIndex, key, secrets, ...settings })
				: cancelled(context, itemIndex);
		return {
			kind: 'failed',
			itemIndex,
			key,
			error,
			cause: outcome?.kind === 'failed' ? outcome.failure.kind : 'cancelled',
		};
	});
	if (results.some((row) => row.kind === 'failed')) answered.keepForNextTry();
	else answered.release();
	if (stopAtFirstFailure) {
		// Cancelled rows only follow a real failure: throw the first real one.
		const failure =
			results.find((row) => row.kind === 'failed' && row.cause !== 'cancelled') ??
			results.find((row) => row.kind === 'failed');
		if (failure?.kind === 'failed') throw failure.error;
	}
	return results;
}

/**
 * What stays the same across the tries of one node run, and only them: its input array (see
 * AnsweredLookups). A poll has none, and n8n never retries one.
 */
const nodeRunOf = (context: Context): object | undefined =>
	'getInputData' in context ? context.getInputData() : undefined;

/**
 * A row never looked up because the execution was stopped (n8n's Stop, a timeout). Rows cancelled by an
 * earlier row's failure under Stop are never shown: the node fails with that failure.
 */
const cancelled = (context: Context, itemIndex: number) =>
	new NodeOperationError(context.getNode(), 'The lookup was cancelled: the execution was stopped', {
		itemIndex,
	});

/** The record's fields, in the registry's words. Any other field a registry adds passes through. */
const RECORD_FIELDS = new Set([
	'isRegistered',
	'officialName',
	'status',
	'registrationDate',
	'registeredAddress',
]);

/**
 * Names an item needs for itself: `error` is n8n's mark of a failed item (Retry On Fail would run the
 * node again for it, each row looked up anew), `lookup` holds the lookup key. A registry's field of that
 * name passes on as `registryError`, `registryLookup`; one already named so moves on again, and so on.
 * `__proto__`, `constructor` and `prototype` n8n's deepCopy (every node that copies its input items)
 * skips at every depth, dropping the field in the next node: they pass on as `registry__proto__`,
 * `registryConstructor`, `registryPrototype`, nested too.
 */
const COPY_SKIPPED_FIELDS = ['__proto__', 'constructor', 'prototype'];
const ITEM_FIELDS = new Set(['error', 'lookup', ...COPY_SKIPPED_FIELDS]);
const NESTED_FIELDS = new Set(COPY_SKIPPED_FIELDS);
const aside = (name: string) => `registry${name[0].toUpperCase()}${name.slice(1)}`;

/** A field's name on the item: moved aside where the item (`taken`), or a field moved aside, takes it. */
function itemFieldName(field: string, fields: object, taken: ReadonlySet<string>): string {
	let base = field;
	// registryRegistryError moves aside if registryError does, which moves if error is in the record.
	while (!taken.has(base)) {
		const match = /^registry([A-Z_])(.*)$/.exec(base);
		if (!match) return field;
		base = `${match[1].toLowerCase()}${match[2]}`;
		if (!Object.hasOwn(fields, base)) return field;
	}
	return aside(field);
}

/**
 * A record on its way to an output: a registry that echoes the client secret or the token into it
 * (in any field, or as a field's name) must not put them into the run data. Fields beyond the record's
 * own also lose anything shaped like a token, in their names too; names and addresses keep every
 * character but the secrets.
 */
export function redactRecord(record: CompanyRecord, secrets: string[]): CompanyRecord {
	/** `own`: in one of the record's own fields, where only the secrets go. */
	const clean = (value: unknown, own: boolean): unknown => {
		if (typeof value === 'string')
			return own ? removeSecrets(value, secrets) : redact(value, secrets);
		if (Array.isArray(value)) return value.map((entry) => clean(entry, own));
		if (typeof value === 'object' && value !== null) {
			return Object.fromEntries(
				Object.entries(value).map(([key, entry]) => [
					redact(itemFieldName(key, value, NESTED_FIELDS), secrets),
					clean(entry, false),
				]),
			);
		}
		return value;
	};
	return Object.fromEntries(
		Object.entries(record).map(([field, value]) => {
			const own = RECORD_FIELDS.has(field);
			const name = itemFieldName(field, record, ITEM_FIELDS);
			return [own ? name : redact(name, secrets), clean(value, own)];
		}),
	) as CompanyRecord;
}

/** The values server text must never show: the client secret (as typed and as sent) and the access token. */
function secretsIn(credentials: ICredentialDataDecryptedObject): string[] {
	const secret = credentials.clientSecret;
	const sent = typeof secret === 'string' ? secret.trim() : undefined;
	return [secret, sent, credentials.accessToken].filter(
		(value): value is string => typeof value === 'string' && value !== '',
	);
}

/** The scopes in a token's payload, for the 403 message; an opaque token has none the message can show. */
function scopesOf(token: unknown): string | undefined {
	const scope = claimsOf(token)?.scope;
	return typeof scope === 'string' ? scope : undefined;
}

/**
 * The item of a failed row. Only `error` and `details` keys: n8n then routes it to the error output
 * with its input row merged in, and keeps the details (it would reduce an item that carries an `error`
 * object to its message).
 */
export function errorItem(row: Extract<CompanyRow, { kind: 'failed' }>): INodeExecutionData {
	const { error } = row;
	return {
		json: {
			error: error.message,
			details: {
				...(error.description ? { description: error.description } : {}),
				...(error instanceof NodeApiError && error.httpCode ? { httpCode: error.httpCode } : {}),
				...(row.key ? { lookup: { ...row.key } } : {}),
			},
		},
		pairedItem: { item: row.itemIndex },
	};
}

/** Every row failed with one error (a broken option, an unexpected exception): one error item each. */
export function failAll(
	context: IExecuteFunctions,
	error: unknown,
): Array<Extract<CompanyRow, { kind: 'failed' }>> {
	const message = error instanceof Error ? error.message : String(error);
	return context.getInputData().map((_, itemIndex) => ({
		kind: 'failed',
		itemIndex,
		error: new NodeOperationError(context.getNode(), message, { itemIndex }),
	}));
}
