import { bareGateway503, report } from '../../../nodes/shared/transport/answerReport';
import type { RegistryAnswer } from '../../../nodes/shared/transport/registryRequest';
import { NGINX_503_PAGE } from '../../../bench/sim/registry';

// Which 503s are a gateway's bare ones (nginx's limit_req by default, or a gateway whose upstream is
// down): no Retry-After, no rate-limit header, no JSON of the registry's own, nothing or a short page.
// The controller then tells a limit from an outage (rateControl/gatewayRefusal.test.ts).

const answer = (
	status: number,
	headers: Record<string, unknown>,
	body: unknown,
): RegistryAnswer => ({
	kind: 'response',
	status,
	headers,
	body,
});

describe('bareGateway503', () => {
	it.each<[string, RegistryAnswer, boolean]>([
		[
			"nginx's default 503 page",
			answer(503, { 'content-type': 'text/html' }, NGINX_503_PAGE),
			true,
		],
		['an empty 503', answer(503, {}, ''), true],
		['a 503 whose page was left unread (over 64 KB)', answer(503, {}, undefined), false],
		['a 503 page of 4,096 characters', answer(503, {}, 'x'.repeat(4_096)), true],
		['a 503 page of 4,097 characters', answer(503, {}, 'x'.repeat(4_097)), false],
		['a 503 with Retry-After (maintenance told)', answer(503, { 'retry-after': '30' }, ''), false],
		['a 503 with X-RateLimit-Remaining', answer(503, { 'x-ratelimit-remaining': '0' }, ''), false],
		['a 503 with X-RateLimit-Limit', answer(503, { 'x-ratelimit-limit': '10' }, ''), false],
		['a 503 with RateLimit-Reset', answer(503, { 'ratelimit-reset': '1' }, ''), false],
		["a 503 in the registry's own JSON", answer(503, {}, { message: 'maintenance' }), false],
		['a 502 with the same page', answer(502, {}, NGINX_503_PAGE), false],
		['a 429', answer(429, {}, ''), false],
		['no answer', { kind: 'no-response', reason: 'timeout', code: 'ETIMEDOUT' }, false],
		[
			'a 503 in a Content-Encoding that could not be read (no answer to read)',
			{ kind: 'undecodable', status: 503, code: 'Z_DATA_ERROR' },
			false,
		],
	])('%s: %s', (_name, given, bare) => {
		expect(bareGateway503(given)).toBe(bare);
	});

	it('is told to the controller as a 503 to judge, not as a 429', () => {
		expect(report(1_000, answer(503, {}, NGINX_503_PAGE), 1_001)).toMatchObject({
			status: 503,
			gatewayRefusal: true,
			retryAfterMs: undefined,
		});
		expect(report(1_000, answer(503, {}, { message: 'down' }), 1_001)).not.toHaveProperty(
			'gatewayRefusal',
		);
	});
});
