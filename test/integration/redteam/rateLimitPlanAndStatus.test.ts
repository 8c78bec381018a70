import {
	json,
	scriptedRegistryEachTest,
	type ScriptedRegistry,
} from '../../support/scriptedRegistry';
import { lookUpTwoRows } from '../../support/scriptedEngine';

// A reviewer's find on 680520e (a 403 whose headers say its budget is spent is a rate limit). A plan that
// includes no company lookups may say so with a budget of none: X-RateLimit-Limit 0, Remaining 0.
// That 403 is a plan's, not a spent budget's: waiting mends nothing, and the user must be told the
// plan lacks company data. A Remaining of 0 alone cannot tell the two apart; a Limit of 0 can.

describe('a 403 from a plan with no company-lookup budget (X-RateLimit-Limit 0, Remaining 0)', () => {
	let registry: ScriptedRegistry;
	scriptedRegistryEachTest(
		(started) => {
			registry = started;
		},
		(_request, response) =>
			json(
				response,
				403,
				{ message: 'Your plan does not include company data' },
				{ 'x-ratelimit-limit': '0', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '3600' },
			),
	);

	it("fails each row at once as the plan's, not as a rate limit", async () => {
		const { errors, registered, notRegistered } = await lookUpTwoRows(registry, {
			maxRateLimitWait: 1,
		});
		expect(registered).toEqual([]);
		expect(notRegistered).toEqual([]);
		expect(errors).toHaveLength(2);
		expect(JSON.stringify(errors.map((item) => item.json))).toContain(
			"The credential's plan or token scope does not include company data",
		);
	});
});

// A 403 or 420 refused for the rate limit beyond the Max Rate-Limit Wait: the row's error must not
// say the registry answered 429, which it never did (the user looks for 429s in the registry's logs).
describe.each([
	[403, { 'retry-after': '120' }],
	[420, { 'retry-after': '120' }],
])('a %s refusal for the rate limit beyond the Max Rate-Limit Wait', (status, headers) => {
	let registry: ScriptedRegistry;
	scriptedRegistryEachTest(
		(started) => {
			registry = started;
		},
		(_request, response) => json(response, status, { message: 'API rate limit exceeded' }, headers),
	);

	it('names the status the registry answered', async () => {
		const { errors } = await lookUpTwoRows(registry, { maxRateLimitWait: 1 });
		expect(errors).toHaveLength(2);
		const said = JSON.stringify(errors.map((item) => item.json));
		expect(said).not.toContain('429');
		expect(said).toContain(String(status));
	});
});
