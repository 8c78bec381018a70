import {
	NodeApiError,
	NodeOperationError,
	type ICredentialDataDecryptedObject,
	type IExecuteFunctions,
	type INodeExecutionData,
	type IPollFunctions,
} from 'n8n-workflow';

import { DEFAULT_ATTEMPTS, DEFAULT_CONCURRENCY, MAX_ATTEMPTS, MAX_CONCURRENCY } from './descriptions';
import type { CompanyRecord } from './model/companyRecord';
import { LookupInputError, toLookupKey, type LookupFields, type LookupKey } from './model/lookupKey';
import { runBatch, type BatchSettings } from './transport/batchRunner';
import { registryError } from './transport/registryError';
import { CREDENTIAL_TYPE, registryRequest, type RequestSettings } from './transport/registryRequest';

/**
 * The path of a row, shared by Look Up, Watch for Changes and the trigger: input fields → lookup key
 * (a bad row becomes its own error) → the batch runner → one result per row, with the error a user
 * reads already built. Operations only decide where each result goes.
 */

/** One row after its lookup. */
export type CompanyRow =
	| { kind: 'record'; itemIndex: number; key: LookupKey; record: CompanyRecord }
	| { kind: 'failed'; itemIndex: number; key?: LookupKey; error: NodeApiError | NodeOperationError };

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

function numberOption(name: string, value: unknown, fallback: number, min: number, max: number): number {
	if (value === undefined || value === null || value === '') return fallback;
	const number = typeof value === 'string' ? Number(value) : value;
	if (typeof number !== 'number' || !Number.isFinite(number)) {
		throw new Error(`The option ${name} must be a number from ${min} to ${max === Infinity ? 'up' : max}, not ${typeof value === 'number' ? String(value) : (JSON.stringify(value) ?? String(value))}`);
	}
	return Math.min(max, Math.max(min, number));
}

/** Settings from the credential and the options: numbers checked, clamped to their range. */
export function lookupSettings(credentials: ICredentialDataDecryptedObject, options: RequestOptionValues): LookupSettings {
	const baseUrl = String(credentials.baseUrl ?? '').trim().replace(/\/+$/, '');
	const maxRequestsPerSecond = numberOption('Max Requests per Second', options.maxRequestsPerSecond, 0, 0, 10_000);
	return {
		baseUrl,
		registryKey: `${baseUrl} ${String(credentials.clientId ?? '')}`,
		timeoutMs: numberOption('Request Timeout', options.timeout, 30, 1, 600) * 1000,
		maxRateLimitWaitMs: numberOption('Max Rate-Limit Wait', options.maxRateLimitWait, 60, 0, 86_400) * 1000,
		maxConcurrency: Math.floor(numberOption('Max Concurrent Requests', options.maxConcurrency, DEFAULT_CONCURRENCY, 1, MAX_CONCURRENCY)),
		maxAttempts: Math.floor(numberOption('Max Attempts', options.maxAttempts, DEFAULT_ATTEMPTS, 1, MAX_ATTEMPTS)),
		maxRequestsPerSecond: maxRequestsPerSecond > 0 ? maxRequestsPerSecond : undefined,
	};
}

/**
 * The fields of each input item as a lookup key, or the error that makes the row fail. Under Stop
 * (`continueOnFail` false) the first bad row throws, with its item index.
 */
export function readKeys(
	this: IExecuteFunctions,
	fields: (itemIndex: number) => LookupFields,
	continueOnFail: boolean,
): Array<LookupKey | NodeOperationError> {
	return this.getInputData().map((_, itemIndex) => {
		try {
			return toLookupKey(fields(itemIndex));
		} catch (error) {
			// Bad input, or an expression that failed on this row: the row fails, not the sheet.
			const inputError = inputErrorOf(this, error, itemIndex);
			if (!continueOnFail) throw inputError;
			return inputError;
		}
	});
}

export function inputErrorOf(context: Context, error: unknown, itemIndex: number, prefix = ''): NodeOperationError {
	const node = context.getNode();
	if (error instanceof LookupInputError) {
		return new NodeOperationError(node, `${prefix}${error.message}`, { itemIndex, description: `Accepted: ${error.accepted}.` });
	}
	if (error instanceof NodeOperationError) return error;
	return new NodeOperationError(node, error instanceof Error ? error : String(error), { itemIndex });
}

/** The row's Country, Company ID and State parameters, and the Language option. */
export function itemFields(context: IExecuteFunctions, itemIndex: number): LookupFields {
	return {
		country: context.getNodeParameter('country', itemIndex),
		companyId: context.getNodeParameter('companyId', itemIndex, ''),
		state: context.getNodeParameter('state', itemIndex, ''),
		language: context.getNodeParameter('options.language', itemIndex, ''),
	};
}

/**
 * Looks every key up (entries that are errors already stay so), one result per entry, in order.
 * Identical keys share one lookup. Under Stop (`stopAtFirstFailure`) the first failure cancels the
 * lookups not yet sent, and the first failed row, in input order, is thrown.
 */
export async function lookUpKeys(
	context: Context,
	entries: ReadonlyArray<LookupKey | NodeOperationError>,
	options: RequestOptionValues,
	{ stopAtFirstFailure }: { stopAtFirstFailure: boolean },
): Promise<CompanyRow[]> {
	const node = context.getNode();
	let credentials: ICredentialDataDecryptedObject;
	let settings: LookupSettings;
	try {
		credentials = await context.getCredentials(CREDENTIAL_TYPE);
		settings = lookupSettings(credentials, options);
	} catch (error) {
		// No usable credential or a broken option: every row fails with it. Thrown under "continue",
		// n8n would pass the input rows on through the first output, where a failed check could pass
		// for a registered company.
		const message = error instanceof Error ? error.message : String(error);
		if (stopAtFirstFailure) throw new NodeOperationError(node, message, { itemIndex: 0 });
		return entries.map((_, itemIndex) => ({ kind: 'failed', itemIndex, error: new NodeOperationError(node, message, { itemIndex }) }));
	}

	const keys = entries.filter((entry): entry is LookupKey => !(entry instanceof NodeOperationError));
	const outcomes = await runBatch(
		keys,
		settings,
		{
			request: registryRequest(context, settings),
			tokenWasStored: String(credentials.accessToken ?? '') !== '',
			cancelSignal: 'getExecutionCancelSignal' in context ? context.getExecutionCancelSignal() : undefined,
			grantedScopes: async () => await grantedScopes(context),
		},
		{ stopAtFirstFailure },
	);

	// The token may have been renewed meanwhile: errors must not carry the new one either.
	const secrets = outcomes.some((outcome) => outcome.kind !== 'record') ? await secretsOf(context, credentials) : [];
	let next = 0;
	const rows = entries.map((entry, itemIndex): CompanyRow => {
		if (entry instanceof NodeOperationError) return { kind: 'failed', itemIndex, error: entry };
		const outcome = outcomes[next++];
		if (outcome.kind === 'record') return { kind: 'record', itemIndex, key: entry, record: outcome.record };
		const error =
			outcome.kind === 'failed'
				? registryError(outcome.failure, { node, itemIndex, key: entry, secrets, ...settings })
				: new NodeOperationError(node, 'The lookup was cancelled: the run stopped at an earlier failure', { itemIndex });
		return { kind: 'failed', itemIndex, key: entry, error };
	});
	if (stopAtFirstFailure) {
		// Cancelled rows only follow a real failure: throw the first real one.
		const failure = rows.find((row) => row.kind === 'failed' && !isCancelled(row.error)) ?? rows.find((row) => row.kind === 'failed');
		if (failure?.kind === 'failed') throw failure.error;
	}
	return rows;
}

const isCancelled = (error: Error) => error.message.startsWith('The lookup was cancelled');

/** The client secret and the token as stored now: what server text must never show. */
async function secretsOf(context: Context, before: ICredentialDataDecryptedObject): Promise<string[]> {
	let now: ICredentialDataDecryptedObject = {};
	try {
		now = await context.getCredentials(CREDENTIAL_TYPE);
	} catch {
		// The credential read before the run still names the secrets that matter.
	}
	return [before.clientSecret, before.accessToken, now.clientSecret, now.accessToken].filter(
		(value): value is string => typeof value === 'string' && value !== '',
	);
}

/** The scopes in the current token's payload, for the 403 message. Read only, never verified. */
async function grantedScopes(context: Context): Promise<string | undefined> {
	try {
		const credentials = await context.getCredentials(CREDENTIAL_TYPE);
		const payload = String(credentials.accessToken ?? '').split('.')[1] ?? '';
		const claims = JSON.parse(atob(payload.replace(/-/g, '+').replace(/_/g, '/'))) as { scope?: unknown };
		return typeof claims.scope === 'string' ? claims.scope : undefined;
	} catch {
		// An opaque token has no readable scope; the 403 message then says so.
		return undefined;
	}
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
export function failAll(context: IExecuteFunctions, error: unknown): Array<Extract<CompanyRow, { kind: 'failed' }>> {
	const message = error instanceof Error ? error.message : String(error);
	return context.getInputData().map((_, itemIndex) => ({
		kind: 'failed',
		itemIndex,
		error: new NodeOperationError(context.getNode(), message, { itemIndex }),
	}));
}
