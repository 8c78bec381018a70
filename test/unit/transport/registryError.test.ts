import type { INode } from 'n8n-workflow';

import { registryError, type LookupFailure } from '../../../nodes/shared/transport/registryError';

// The one place that words a failed lookup: every kind of failure, its message, its HTTP code.
const node: INode = {
	id: '1',
	name: 'Company Registry',
	type: 'n8n-nodes-company-registry.companyRegistry',
	typeVersion: 1,
	position: [0, 0],
	parameters: {},
};
const context = {
	node,
	itemIndex: 4,
	key: { countryCode: 'de', companyId: 'HRB1' },
	baseUrl: 'https://user:pw@api.example.test',
	timeoutMs: 30_000,
	maxRateLimitWaitMs: 60_000,
	secrets: ['top-secret-value'],
};

describe('registry error', () => {
	it.each<[string, LookupFailure, string, string | undefined]>([
		[
			'400 with the server message',
			{ kind: 'http', status: 400, body: { message: 'bad id' } },
			'The registry rejected the input: bad id',
			'400',
		],
		[
			'401 after renewal',
			{ kind: 'http', status: 401, body: {} },
			'The registry rejected the access token, also after fetching a new one',
			'401',
		],
		[
			'a renewed token refused for good',
			{ kind: 'token-refused', status: 401, renewed: true },
			'The registry rejected the access token, also after fetching a new one',
			'401',
		],
		[
			'a token fetched for this run refused',
			{ kind: 'token-refused', status: 401, renewed: false },
			'The registry rejected the access token the token endpoint had just issued (HTTP 401)',
			'401',
		],
		[
			'a token too large, renewed',
			{ kind: 'token-refused', status: 431, renewed: true, tokenBytes: 81_920 },
			'The registry refused the request as too large (HTTP 431), also with a new access token: the token is 80 KB',
			'431',
		],
		[
			'403',
			{ kind: 'forbidden', body: {}, grantedScopes: 'read:aml' },
			"The credential's plan or token scope does not include company data (read:company)",
			'403',
		],
		[
			'404',
			{ kind: 'http', status: 404, body: {} },
			'The registry has no lookup endpoint at https://api.example.test/v1/company/… (HTTP 404)',
			'404',
		],
		[
			'500 after 3 tries',
			{ kind: 'http', status: 500, body: {}, attempts: 3 },
			'The registry could not process the lookup (HTTP 500 Internal Server Error) (tried 3 times)',
			'500',
		],
		[
			'502',
			{ kind: 'http', status: 502, body: {}, attempts: 1 },
			'The registry is unavailable (HTTP 502 Bad Gateway)',
			'502',
		],
		[
			'503',
			{ kind: 'http', status: 503, body: {}, attempts: 2 },
			'The registry is unavailable (HTTP 503 Service Unavailable) (tried 2 times)',
			'503',
		],
		[
			'504',
			{ kind: 'http', status: 504, body: {} },
			'The registry timed out behind its gateway (HTTP 504 Gateway Timeout)',
			'504',
		],
		[
			'an unlisted status',
			{ kind: 'http', status: 418, statusMessage: "I'm a Teapot", body: {} },
			"The registry answered HTTP 418 I'm a Teapot",
			'418',
		],
		[
			'429 beyond the budget',
			{ kind: 'rate-limited', waitedMs: 61_000 },
			'The registry kept answering 429 Too Many Requests beyond the Max Rate-Limit Wait of 60 s',
			'429',
		],
		[
			'a redirect',
			{ kind: 'redirect', status: 307, location: 'https://evil.example.test/x?token=1' },
			'The registry answered with a redirect (HTTP 307) to https://evil.example.test/x, which the node does not follow',
			'307',
		],
		[
			'a broken record',
			{ kind: 'contract', problem: 'field \'status\' is "Dissolved"' },
			"The registry's answer is not a valid company record: field 'status' is \"Dissolved\"",
			'200',
		],
		[
			'a timeout',
			{ kind: 'no-response', reason: 'timeout', code: 'ETIMEDOUT', attempts: 1 },
			'The Company Registry did not answer within 30 s',
			undefined,
		],
		[
			'no connection',
			{ kind: 'no-response', reason: 'network', code: 'ECONNREFUSED', attempts: 3 },
			'Could not reach the Company Registry at https://api.example.test (tried 3 times)',
			undefined,
		],
		[
			'a failed token exchange',
			{ kind: 'credential', message: 'The token endpoint rejected the Client ID' },
			'The token endpoint rejected the Client ID',
			undefined,
		],
		[
			'a registry that is down',
			{ kind: 'registry-down', failed: 20, of: 20 },
			'The Company Registry at https://api.example.test seems to be down; this row was not looked up',
			undefined,
		],
	])('%s', (_label, failure, message, httpCode) => {
		const error = registryError(failure, context);
		expect(error.message).toBe(message);
		expect(error.httpCode ?? undefined).toBe(httpCode);
		expect(error.context.itemIndex).toBe(4);
		expect(JSON.stringify(error)).not.toContain('pw@');
	});

	it('says a quota may be spent when the registry asks to wait longer than the budget', () => {
		const error = registryError(
			{ kind: 'rate-limited', waitedMs: 0, retryAfterMs: 3 * 3_600_000 },
			context,
		);
		expect(error.description).toContain(
			'The registry asks to wait 3 h, longer than the Max Rate-Limit Wait of 60 s: a quota may be spent.',
		);
	});

	it('keeps a secret out of the reason phrase of an unlisted status', () => {
		const error = registryError(
			{ kind: 'http', status: 418, statusMessage: 'top-secret-value', body: {} },
			context,
		);
		expect(error.message).toBe('The registry answered HTTP 418 [redacted]');
	});

	it('keeps secrets and controls of server text out of every message', () => {
		const error = registryError(
			{
				kind: 'http',
				status: 500,
				body: { message: 'echo: top-secret-value\r\nBearer abc' },
				attempts: 1,
			},
			context,
		);
		expect(error.description).toContain('echo: [redacted]\\u{D}\\u{A}Bearer [redacted]');
	});
});
