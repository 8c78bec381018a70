import { NodeApiError, type INode, type JsonObject } from 'n8n-workflow';

import type { LookupKey } from '../model/lookupKey';

/** A failed lookup as the transport saw it: an HTTP answer, or none at all. */
export interface LookupFailure {
	status?: number;
	statusMessage?: string;
	body?: unknown;
	/** Network error code (ECONNREFUSED, ECONNRESET, ECONNABORTED ...) when there was no answer. */
	networkCode?: string;
	/** A message that already says what went wrong (the credential's token exchange). */
	message?: string;
	/** For 403: the scopes the token was granted. */
	grantedScopes?: string;
	/** For 429: how long this lookup had already waited when the next wait would pass the budget. */
	waitedMs?: number;
}

export interface ErrorContext {
	node: INode;
	itemIndex: number;
	key: LookupKey;
	baseUrl: string;
	timeoutMs: number;
	maxRateLimitWaitMs: number;
}

function serverMessage(body: unknown): string | undefined {
	if (typeof body !== 'object' || body === null) return undefined;
	const { message, error } = body as { message?: unknown; error?: unknown };
	if (typeof message === 'string' && message !== '') return message;
	return typeof error === 'string' && error !== '' ? error : undefined;
}

const describeKey = (key: LookupKey) =>
	`${key.countryCode}/${key.companyId}${key.stateCode ? ` (state ${key.stateCode})` : ''}`;

/**
 * The one place that turns a failed lookup into the error a user reads (interface document section 7
 * plus the public service notes). The NodeApiError is built from plain fields, never from the raw
 * request, so no token or secret can travel with it.
 */
export function registryError(failure: LookupFailure, context: ErrorContext): NodeApiError {
	const { status } = failure;
	const fromServer = serverMessage(failure.body);
	const about = `Lookup of ${describeKey(context.key)}`;
	let message: string;
	let description: string | undefined;

	if (status === undefined) {
		if (failure.message) {
			message = failure.message;
		} else if (failure.networkCode === 'ECONNABORTED' || failure.networkCode === 'ETIMEDOUT') {
			message = `The Company Registry did not answer within ${context.timeoutMs / 1000} s`;
			description = `${about}. Raise the Request Timeout option if the registry is slow.`;
		} else {
			// The network code goes in the description: n8n replaces messages that contain one.
			message = `Could not reach the Company Registry at ${context.baseUrl}`;
			description = `${about} got no answer (${failure.networkCode ?? 'no response'}). Check the credential's Base URL and the network between n8n and the registry.`;
		}
	} else if (status === 400) {
		message = `The registry rejected the input: ${fromServer ?? 'Bad Request'}`;
		description = `${about}. Section 7: InvalidInputException, not retryable. Check the country code and the characters in the company id.`;
	} else if (status === 401) {
		message = 'The registry rejected the access token, also after fetching a new one';
		description =
			"n8n asked the token endpoint for a new token and the registry still refused it. Check the credential's Base URL and Audience (the token must be for {Base URL}/v1/), and that the client is enabled.";
	} else if (status === 403) {
		message = "The credential's plan or token scope does not include company data (read:company)";
		description = `Granted scopes: ${failure.grantedScopes || 'none'}. Ask the registry operator to add company data to the plan.${fromServer ? ` The registry said: ${fromServer}` : ''}`;
	} else if (status === 404) {
		message = `The registry has no lookup endpoint at ${context.baseUrl}/v1/company/… (HTTP 404)`;
		description = `${about}. Check the credential's Base URL: it is the API host without /v1, e.g. https://api.verifiet.com.`;
	} else if (status === 429) {
		// The budget may be spent by one long Retry-After as well as by many short ones.
		message = `The registry kept answering 429 Too Many Requests beyond the Max Rate-Limit Wait of ${context.maxRateLimitWaitMs / 1000} s`;
		description = `${about} waited ${Math.round((failure.waitedMs ?? 0) / 1000)} s. Turn on the node's Retry On Fail setting so n8n runs it again later, lower Max Requests per Second, or raise Max Rate-Limit Wait.`;
	} else if (status === 500) {
		message = 'The registry could not process the lookup (HTTP 500 InternalFailureException)';
		description = `${about}. The failure is on the registry's side; try again later.${fromServer ? ` The registry said: ${fromServer}` : ''}`;
	} else if (status === 504) {
		message = 'The registry timed out behind its gateway (HTTP 504 Gateway Timeout)';
		description = `${about}. The registry was too slow to answer; try again later.`;
	} else if (status === 200) {
		message = `The registry's answer breaks the company record contract (section 2.1): ${failure.message ?? 'unreadable body'}`;
		description = `${about}. The record was not passed on.`;
	} else {
		message = `The registry answered HTTP ${status}${failure.statusMessage ? ` ${failure.statusMessage}` : ''}`;
		description = `${about}.${fromServer ? ` The registry said: ${fromServer}` : ''}`;
	}

	const httpCode = status !== undefined ? String(status) : undefined;
	const plain: JsonObject = { message, ...(description ? { description } : {}), ...(httpCode ? { httpCode } : {}) };
	return new NodeApiError(context.node, plain, { message, description, httpCode, itemIndex: context.itemIndex });
}
