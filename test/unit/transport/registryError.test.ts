import { standInNode } from '../../../harness/standInNode';
import {
	describeFailure,
	registryError,
	type LookupFailure,
} from '../../../nodes/shared/transport/registryError';

// The one place that words a failed lookup: every kind of failure, its message, its HTTP code.
const node = standInNode({ id: '1', type: 'n8n-nodes-company-registry.companyRegistry' });
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
			"a gateway's status, tried again",
			{
				kind: 'http',
				status: 522,
				statusMessage: 'Origin Connection Time-out',
				body: {},
				attempts: 3,
			},
			'The registry answered HTTP 522 Origin Connection Time-out (tried 3 times)',
			'522',
		],
		[
			'429 beyond the budget',
			{ kind: 'rate-limited', waitedMs: 61_000 },
			'The registry kept answering 429 Too Many Requests beyond the Max Rate-Limit Wait of 60 s',
			'429',
		],
		[
			'a 420 for the rate limit beyond the budget',
			{ kind: 'rate-limited', waitedMs: 61_000, status: 420 },
			'The registry kept answering 420 Enhance Your Calm beyond the Max Rate-Limit Wait of 60 s',
			'420',
		],
		[
			'a 403 for the rate limit beyond the budget',
			{ kind: 'rate-limited', waitedMs: 61_000, status: 403 },
			'The registry kept answering 403, its rate-limit budget spent, beyond the Max Rate-Limit Wait of 60 s',
			'403',
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

/**
 * Every branch of the wording, as the user reads it: message, description and HTTP code together. The
 * key is a US company (state shown), the Base URL carries user info (never shown), and 's3cret' is a
 * secret the server echoes (always redacted).
 */
describe('registry error texts, whole', () => {
	const textContext = {
		key: { countryCode: 'us', companyId: 'C123', stateCode: 'ca' },
		baseUrl: 'https://u:p@api.example.test/',
		timeoutMs: 1500,
		maxRateLimitWaitMs: 10_000,
		secrets: ['s3cret'],
	};
	it.each<
		[string, LookupFailure, Partial<typeof textContext> | null, ReturnType<typeof describeFailure>]
	>([
		[
			'400 with a string body, a key with a state',
			{ kind: 'http', status: 400, body: 'Bad id s3cret' },
			null,
			{
				message: 'The registry rejected the input: Bad id [redacted]',
				description:
					"Lookup of us/C123 (state ca). Not retried: check the row's Country and the characters in its Company ID.",
				httpCode: '400',
			},
		],
		[
			'400 without a server message, no key',
			{ kind: 'http', status: 400, body: {} },
			{ key: undefined },
			{
				message: 'The registry rejected the input: Bad Request',
				description:
					"The lookup. Not retried: check the row's Country and the characters in its Company ID.",
				httpCode: '400',
			},
		],
		[
			'401',
			{ kind: 'http', status: 401, body: {} },
			null,
			{
				message: 'The registry rejected the access token, also after fetching a new one',
				description:
					"n8n asked the token endpoint for a new token and the registry still refused it. Check the credential's Base URL and Audience (the token must be for {Base URL}/v1/), and that the client is enabled.",
				httpCode: '401',
			},
		],
		[
			'404',
			{ kind: 'http', status: 404, body: {} },
			null,
			{
				message:
					'The registry has no lookup endpoint at https://api.example.test/v1/company/… (HTTP 404)',
				description:
					"Lookup of us/C123 (state ca). Check the credential's Base URL: it is the API host without /v1, e.g. https://api.verifiet.com.",
				httpCode: '404',
			},
		],
		[
			'404 with a text (a registry that answers an unknown id so)',
			{ kind: 'http', status: 404, body: { message: 'No company C123 in California' } },
			null,
			{
				message:
					'The registry has no lookup endpoint at https://api.example.test/v1/company/… (HTTP 404)',
				description:
					"Lookup of us/C123 (state ca). Check the credential's Base URL: it is the API host without /v1, e.g. https://api.verifiet.com. The registry said: No company C123 in California",
				httpCode: '404',
			},
		],
		[
			'500 once, with the error field',
			{ kind: 'http', status: 500, body: { error: 'InternalFailureException' }, attempts: 1 },
			null,
			{
				message: 'The registry could not process the lookup (HTTP 500 Internal Server Error)',
				description:
					"Lookup of us/C123 (state ca). The problem is on the registry's side; try again later. The registry said: InternalFailureException",
				httpCode: '500',
			},
		],
		[
			'500 with an empty message and error',
			{ kind: 'http', status: 500, body: { message: '', error: '' }, attempts: 2 },
			null,
			{
				message:
					'The registry could not process the lookup (HTTP 500 Internal Server Error) (tried 2 times)',
				description:
					"Lookup of us/C123 (state ca). The problem is on the registry's side; try again later.",
				httpCode: '500',
			},
		],
		[
			'502',
			{ kind: 'http', status: 502, body: '  ', attempts: 3 },
			null,
			{
				message: 'The registry is unavailable (HTTP 502 Bad Gateway) (tried 3 times)',
				description:
					"Lookup of us/C123 (state ca). The problem is on the registry's side; try again later.",
				httpCode: '502',
			},
		],
		[
			'503 with a message',
			{ kind: 'http', status: 503, body: { message: 'maintenance' } },
			null,
			{
				message: 'The registry is unavailable (HTTP 503 Service Unavailable)',
				description:
					"Lookup of us/C123 (state ca). The problem is on the registry's side; try again later. The registry said: maintenance",
				httpCode: '503',
			},
		],
		[
			'504',
			{ kind: 'http', status: 504, body: {}, attempts: 2 },
			null,
			{
				message:
					'The registry timed out behind its gateway (HTTP 504 Gateway Timeout) (tried 2 times)',
				description:
					'Lookup of us/C123 (state ca). The registry was too slow to answer; try again later.',
				httpCode: '504',
			},
		],
		[
			'an unlisted status with a long reason phrase',
			{
				kind: 'http',
				status: 599,
				statusMessage: 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx',
				body: { message: 'why' },
			},
			null,
			{
				message:
					'The registry answered HTTP 599 xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx',
				description: 'Lookup of us/C123 (state ca). The registry said: why',
				httpCode: '599',
			},
		],
		[
			'an unlisted status without one',
			{ kind: 'http', status: 409, body: null },
			null,
			{
				message: 'The registry answered HTTP 409',
				description: 'Lookup of us/C123 (state ca).',
				httpCode: '409',
			},
		],
		[
			'a timeout',
			{ kind: 'no-response', reason: 'timeout', code: 'ETIMEDOUT', attempts: 2 },
			null,
			{
				message: 'The Company Registry did not answer within 1.5 s (tried 2 times)',
				description:
					'Lookup of us/C123 (state ca). If the registry is slow, raise the Request Timeout (Seconds) option.',
			},
		],
		[
			'a timeout of 10 s or more',
			{ kind: 'no-response', reason: 'timeout', code: 'ETIMEDOUT', attempts: 1 },
			{ timeoutMs: 12400 },
			{
				message: 'The Company Registry did not answer within 12 s',
				description:
					'Lookup of us/C123 (state ca). If the registry is slow, raise the Request Timeout (Seconds) option.',
			},
		],
		[
			'no connection',
			{ kind: 'no-response', reason: 'network', code: 'ECONNREFUSED', attempts: 1 },
			null,
			{
				message: 'Could not reach the Company Registry at https://api.example.test',
				description:
					"Lookup of us/C123 (state ca) got no answer (ECONNREFUSED). Check the credential's Base URL and the network between n8n and the registry.",
			},
		],
		[
			'an answer whose headers Node refused as too large',
			{ kind: 'no-response', reason: 'network', code: 'HPE_HEADER_OVERFLOW', attempts: 2 },
			null,
			{
				message: "The registry's answer could not be read as HTTP (tried 2 times)",
				description:
					'Lookup of us/C123 (state ca): its headers are larger than Node.js accepts (16 KB unless n8n is started with --max-http-header-size). The registry, or something between it and n8n, sent them; check with its operator.',
			},
		],
		[
			'an answer that is not well-formed HTTP, its code with a secret',
			{
				kind: 'no-response',
				reason: 'network',
				code: 'HPE_INVALID_HEADER_TOKEN s3cret',
				attempts: 1,
			},
			null,
			{
				message: "The registry's answer could not be read as HTTP",
				description:
					"Lookup of us/C123 (state ca): it is not well-formed HTTP (HPE_INVALID_HEADER_TOKEN [redacted]). Check that the credential's Base URL names the registry's scheme and port (a port of another service answers this way); if it does, the registry or something between it and n8n sent it: check with its operator.",
			},
		],
		[
			'a network code that names HPE_ only inside it',
			{ kind: 'no-response', reason: 'network', code: 'E_HPE_', attempts: 1 },
			null,
			{
				message: 'Could not reach the Company Registry at https://api.example.test',
				description:
					"Lookup of us/C123 (state ca) got no answer (E_HPE_). Check the credential's Base URL and the network between n8n and the registry.",
			},
		],
		[
			'an answer in a Content-Encoding the node does not read',
			{ kind: 'undecodable', status: 200, code: 'Content-Encoding gzip, s3cret' },
			null,
			{
				message: "The registry's answer is in a Content-Encoding the node cannot read (HTTP 200)",
				description:
					"Lookup of us/C123 (state ca). Its Content-Encoding gzip, [redacted] is not one coding n8n's HTTP client decodes (gzip, br or deflate, and zstd on Node.js 22.15 and later); nothing of it was passed on.",
			},
		],
		[
			'an answer not in the Content-Encoding it names',
			{ kind: 'undecodable', status: 200, code: 'Z_DATA_ERROR Content-Encoding ' },
			null,
			{
				message:
					"The registry's answer could not be decompressed: it is not in the Content-Encoding it names (HTTP 200)",
				description:
					'Lookup of us/C123 (state ca). The registry, or something between it and n8n, labelled its answer gzip, br or deflate and it was not (Z_DATA_ERROR Content-Encoding ); nothing of it was passed on.',
			},
		],
		[
			'429, asked for no longer than the wait',
			{ kind: 'rate-limited', waitedMs: 10000, retryAfterMs: 10000 },
			null,
			{
				message:
					'The registry kept answering 429 Too Many Requests beyond the Max Rate-Limit Wait of 10 s',
				description:
					"Lookup of us/C123 (state ca) waited 10 s. Raise the Max Rate-Limit Wait (Seconds) option, lower Max Requests per Second, or turn on the node's Retry On Fail setting so n8n runs it again later.",
				httpCode: '429',
			},
		],
		[
			'429 to every lookup of the execution for its wait: the rows not yet answered given up',
			{
				kind: 'rate-limited',
				waitedMs: 61_500,
				retryAfterMs: 1000,
				status: 429,
				refusedThroughout: true,
			},
			null,
			{
				message:
					'The registry kept answering 429 Too Many Requests beyond the Max Rate-Limit Wait of 10 s',
				description:
					"Lookup of us/C123 (state ca) stopped: the registry refused every lookup of this execution for 62 s, from the first, so none of those not yet answered waits longer. Raise the Max Rate-Limit Wait (Seconds) option, lower Max Requests per Second, or turn on the node's Retry On Fail setting so n8n runs it again later.",
				httpCode: '429',
			},
		],
		[
			'429, asked for minutes',
			{ kind: 'rate-limited', waitedMs: 9960, retryAfterMs: 120000 },
			null,
			{
				message:
					'The registry kept answering 429 Too Many Requests beyond the Max Rate-Limit Wait of 10 s',
				description:
					"Lookup of us/C123 (state ca) waited 10 s. The registry asks to wait 2 min, longer than the Max Rate-Limit Wait of 10 s: a quota may be spent. Raise the Max Rate-Limit Wait (Seconds) option, lower Max Requests per Second, or turn on the node's Retry On Fail setting so n8n runs it again later.",
				httpCode: '429',
			},
		],
		[
			'429, asked for just under two minutes',
			{ kind: 'rate-limited', waitedMs: 0, retryAfterMs: 119000 },
			null,
			{
				message:
					'The registry kept answering 429 Too Many Requests beyond the Max Rate-Limit Wait of 10 s',
				description:
					"Lookup of us/C123 (state ca) waited 0 s. The registry asks to wait 119 s, longer than the Max Rate-Limit Wait of 10 s: a quota may be spent. Raise the Max Rate-Limit Wait (Seconds) option, lower Max Requests per Second, or turn on the node's Retry On Fail setting so n8n runs it again later.",
				httpCode: '429',
			},
		],
		[
			'429, asked for just under two hours',
			{ kind: 'rate-limited', waitedMs: 0, retryAfterMs: 7199000 },
			null,
			{
				message:
					'The registry kept answering 429 Too Many Requests beyond the Max Rate-Limit Wait of 10 s',
				description:
					"Lookup of us/C123 (state ca) waited 0 s. The registry asks to wait 120 min, longer than the Max Rate-Limit Wait of 10 s: a quota may be spent. Raise the Max Rate-Limit Wait (Seconds) option, lower Max Requests per Second, or turn on the node's Retry On Fail setting so n8n runs it again later.",
				httpCode: '429',
			},
		],
		[
			'429, asked for two hours',
			{ kind: 'rate-limited', waitedMs: 0, retryAfterMs: 7200000 },
			null,
			{
				message:
					'The registry kept answering 429 Too Many Requests beyond the Max Rate-Limit Wait of 10 s',
				description:
					"Lookup of us/C123 (state ca) waited 0 s. The registry asks to wait 2 h, longer than the Max Rate-Limit Wait of 10 s: a quota may be spent. Raise the Max Rate-Limit Wait (Seconds) option, lower Max Requests per Second, or turn on the node's Retry On Fail setting so n8n runs it again later.",
				httpCode: '429',
			},
		],
		[
			'a redirect without a Location',
			{ kind: 'redirect', status: 308 },
			null,
			{
				message: 'The registry answered with a redirect (HTTP 308), which the node does not follow',
				description:
					"Lookup of us/C123 (state ca). The access token is only ever sent to the credential's Base URL (https://api.example.test). If the registry has moved, set the Base URL to its new address.",
				httpCode: '308',
			},
		],
		[
			'an oversized answer, declared',
			{ kind: 'oversized', limitBytes: 65536, declaredBytes: 70000 },
			null,
			{
				message:
					"The registry's answer is larger than 64 KB (Content-Length 70000 bytes); it was not read (a company record is under 2 KB)",
				description:
					'Lookup of us/C123 (state ca). Nothing of the answer was passed on. If the Base URL is right, the registry or something between it and n8n sends answers that are no company record.',
			},
		],
		[
			'an oversized answer, found on reading',
			{ kind: 'oversized', limitBytes: 65536 },
			null,
			{
				message:
					"The registry's answer is larger than 64 KB after decompression; it was not read (a company record is under 2 KB)",
				description:
					'Lookup of us/C123 (state ca). Nothing of the answer was passed on. If the Base URL is right, the registry or something between it and n8n sends answers that are no company record.',
			},
		],
		[
			'a broken record',
			{ kind: 'contract', problem: 'x s3cret' },
			null,
			{
				message: "The registry's answer is not a valid company record: x [redacted]",
				description: 'Lookup of us/C123 (state ca). The record was not passed on.',
				httpCode: '200',
			},
		],
		[
			'a 200 whose object holds no record, only a reason (a refusal sent with 200)',
			{ kind: 'contract', problem: 'x', body: { error: 'Rate limit exceeded s3cret' } },
			null,
			{
				message: "The registry's answer is not a valid company record: x",
				description:
					'Lookup of us/C123 (state ca). The record was not passed on. The registry said: Rate limit exceeded [redacted]',
				httpCode: '200',
			},
		],
		[
			'a broken record with a message field of its own: the record is no message',
			{ kind: 'contract', problem: 'x', body: { isRegistered: true, message: 'Filed late' } },
			null,
			{
				message: "The registry's answer is not a valid company record: x",
				description: 'Lookup of us/C123 (state ca). The record was not passed on.',
				httpCode: '200',
			},
		],
		[
			'a 200 whose body is text or nothing: the problem shows it already',
			{ kind: 'contract', problem: 'x', body: 'Service busy' },
			null,
			{
				message: "The registry's answer is not a valid company record: x",
				description: 'Lookup of us/C123 (state ca). The record was not passed on.',
				httpCode: '200',
			},
		],
		[
			'a 200 whose body is null',
			{ kind: 'contract', problem: 'x', body: null },
			null,
			{
				message: "The registry's answer is not a valid company record: x",
				description: 'Lookup of us/C123 (state ca). The record was not passed on.',
				httpCode: '200',
			},
		],
		[
			'403 without scopes, with a message',
			{ kind: 'forbidden', body: { message: 'plan basic' } },
			null,
			{
				message:
					"The credential's plan or token scope does not include company data (read:company)",
				description:
					'Granted scopes: none. Ask the registry operator to add company data to the plan. The registry said: plan basic',
				httpCode: '403',
			},
		],
		[
			'a failed token exchange with a secret',
			{ kind: 'credential', message: 'bad s3cret' },
			null,
			{ message: 'bad [redacted]' },
		],
		[
			'a token refused (413), size unknown',
			{ kind: 'token-refused', status: 413, renewed: false },
			null,
			{
				message:
					'The registry refused the request as too large (HTTP 413): the access token the token endpoint just issued is of unknown size',
				description:
					"An access token is normally one or two KB; the registry, or a proxy before it, does not take request headers this large, so no lookup of this run can succeed. Check the credential's Auth URL and Audience, and ask the registry operator why its tokens are this large.",
				httpCode: '413',
			},
		],
		[
			'a token refused (401), renewed',
			{ kind: 'token-refused', status: 401, renewed: true },
			null,
			{
				message: 'The registry rejected the access token, also after fetching a new one',
				description:
					"The token endpoint issued a new token and the registry rejected it too (HTTP 401), so no lookup of this run can succeed. Check the credential's Base URL and Audience (the token must be for {Base URL}/v1/), and that the client is enabled.",
				httpCode: '401',
			},
		],
		[
			'a token refused (401), fresh',
			{ kind: 'token-refused', status: 401, renewed: false },
			null,
			{
				message:
					'The registry rejected the access token the token endpoint had just issued (HTTP 401)',
				description:
					"A token fetched for this run was refused before the registry accepted any, so no lookup of this run can succeed. Check the credential's Base URL and Audience (the token must be for {Base URL}/v1/), and that the client is enabled.",
				httpCode: '401',
			},
		],
		[
			'a registry that is down, with its last failure and share',
			{
				kind: 'registry-down',
				last: { kind: 'http', status: 503, body: {}, attempts: 1 },
				failed: 9,
				of: 10,
			},
			null,
			{
				message:
					'The Company Registry at https://api.example.test seems to be down; this row was not looked up',
				description:
					'The last error: The registry is unavailable (HTTP 503 Service Unavailable). 9 of its last 10 answers were errors, and it still gave errors after a pause. The rest of this run was not sent, so the registry is not hammered. Run it again later.',
			},
		],
		[
			'a registry that is down, nothing known',
			{ kind: 'registry-down' },
			null,
			{
				message:
					'The Company Registry at https://api.example.test seems to be down; this row was not looked up',
				description:
					'The last error: no answer. The rest of this run was not sent, so the registry is not hammered. Run it again later.',
			},
		],
	])('%s', (_label, failure, changes, expected) => {
		expect(describeFailure(failure, { ...textContext, ...changes })).toEqual(expected);
	});
});

describe('what the registry said, and what n8n keeps of the error', () => {
	const say = (body: unknown) =>
		describeFailure({ kind: 'http', status: 503, body, attempts: 1 }, { ...context, secrets: [] })
			.description;
	it.each<[string, unknown, string]>([
		[
			'an empty message gives way to the error field',
			{ message: '', error: 'boom' },
			' The registry said: boom',
		],
		['an error field that is not text is not quoted', { error: 42 }, ''],
		[
			'a message that is not text gives way to the error field',
			{ message: 7, error: 'boom' },
			' The registry said: boom',
		],
		// The common JSON error envelopes nest the reason (Google's style, GraphQL, JSON:API, RFC 9457).
		[
			'a nested error object with a code',
			{ error: { code: 429, message: 'Rate limit exceeded' } },
			' The registry said: Rate limit exceeded',
		],
		[
			'a list of errors: the first',
			{ errors: [{ message: 'Rate limit exceeded' }, { message: 'second' }] },
			' The registry said: Rate limit exceeded',
		],
		[
			'a JSON:API list of errors: its detail',
			{ errors: [{ status: '429', title: 'Too Many Requests', detail: 'Plan quota spent' }] },
			' The registry said: Plan quota spent',
		],
		[
			'problem details (RFC 9457): the detail',
			{ type: 'about:blank', title: 'Service Unavailable', detail: 'Down for maintenance' },
			' The registry said: Down for maintenance',
		],
		[
			'problem details without detail: the title',
			{ title: 'Service Unavailable' },
			' The registry said: Service Unavailable',
		],
		[
			'a top-level message before a nested one',
			{ message: 'top', error: { message: 'nested' } },
			' The registry said: top',
		],
		['a nested error without text is not quoted', { error: { code: 503 } }, ''],
		['an empty list of errors is not quoted', { errors: [] }, ''],
		['null in the envelopes is not quoted', { error: null, errors: [null] }, ''],
		['an empty text first in a list is not quoted', { errors: ['', 'second'] }, ''],
		[
			'a list of errors that are text: the first',
			{ errors: ['first', 'second'] },
			' The registry said: first',
		],
		// One level only: the reason is where the envelopes put it, not searched for.
		['two levels down is not read', { error: { error: { message: 'deep' } } }, ''],
		['no body at all', undefined, ''],
		['a number as the body', 503, ''],
	])('%s', (_label, body, said) => {
		expect(say(body)).toBe(
			`Lookup of de/HRB1. The problem is on the registry's side; try again later.${said}`,
		);
	});

	it('names a key without a state plainly', () => {
		expect(
			describeFailure({ kind: 'contract', problem: 'x' }, { ...context, secrets: [] }).description,
		).toBe('Lookup of de/HRB1. The record was not passed on.');
	});

	it('n8n keeps the same plain fields as the error response (its error details), nothing of the request', () => {
		const full = registryError({ kind: 'http', status: 404, body: {} }, context);
		expect(full.errorResponse).toEqual({
			message: full.message,
			description: full.description,
			httpCode: '404',
		});
		const bare = registryError(
			{ kind: 'credential', message: 'The Client ID was refused' },
			context,
		);
		expect(bare.errorResponse).toEqual({ message: 'The Client ID was refused' });
	});
});
