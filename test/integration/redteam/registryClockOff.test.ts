import { runRows } from '../../../harness/fixtures';
import { scriptedEngine } from '../../support/scriptedEngine';
import {
	GOOD_RECORD,
	json,
	SCRIPTED_TOKEN,
	scriptedRegistryEachTest,
	type ScriptedRegistry,
} from '../../support/scriptedRegistry';

// Red team: a registry whose clock is hours off ours (a server writing its local time with "GMT" after
// it, a clock never synchronised) and that says when to try again as an HTTP date, Retry-After:
// <its now + 1 s>, with its Date header from the same clock. The node read the date against its own
// clock: two hours ahead, every refused row failed at once ("asks to wait 2 h", a spent quota, said
// the message); two hours behind, the date was past and the row was sent again and again on the floor
// of 100 ms doubling, each refused. What the registry asks is the date less its own Date: a wait of 1 s.

const HOUR_MS = 3_600_000;
const ROWS = [
	{ country: 'de', companyId: 'HRB1' },
	{ country: 'de', companyId: 'HRB2' },
];

/** Lookups refused once each with Retry-After 1 s as a date of a clock `offsetMs` off ours, and held to it. */
function refusingOnceByItsClock(offsetMs: number) {
	const askedAt = new Map<string, number>();
	const registryNow = () => Date.now() + offsetMs;
	const handler = (request: { url?: string }, response: Parameters<typeof json>[0]) => {
		const now = registryNow();
		const key = String(request.url);
		const asked = askedAt.get(key);
		if (asked === undefined || now < asked) {
			// Whole seconds, as HTTP dates are: the next whole second at least 1 s away.
			const at = Math.ceil((now + 1_000) / 1_000) * 1_000;
			askedAt.set(key, at);
			return json(
				response,
				429,
				{ message: 'Too Many Requests' },
				{ 'retry-after': new Date(at).toUTCString(), date: new Date(now).toUTCString() },
			);
		}
		json(response, 200, GOOD_RECORD, { date: new Date(now).toUTCString() });
	};
	return handler;
}

describe.each([
	['two hours ahead of ours', 2 * HOUR_MS],
	['two hours behind ours', -2 * HOUR_MS],
	['ours (held before: the control)', 0],
])('a registry whose clock is %s, asking to wait by an HTTP date', (_name, offsetMs) => {
	let registry: ScriptedRegistry;
	scriptedRegistryEachTest((started) => (registry = started), refusingOnceByItsClock(offsetMs));

	it('is waited for as long as it asks: every row registered, each sent twice', async () => {
		const { registered, notRegistered, errors } = await runRows(scriptedEngine(registry), ROWS, {
			onError: 'continueErrorOutput',
		});
		expect(errors.map((item) => item.json.error)).toEqual([]);
		expect(notRegistered).toEqual([]);
		expect(registered).toHaveLength(2);
		expect(registry.lookups).toBe(4);
	});
});

describe('a token endpoint whose clock is two hours ahead, asking to wait by an HTTP date', () => {
	let registry: ScriptedRegistry;
	scriptedRegistryEachTest((started) => (registry = started));

	it('is waited for: the token comes on the next try, every row registered', async () => {
		const registryNow = () => Date.now() + 2 * HOUR_MS;
		registry.token = (_request, response) => {
			const now = registryNow();
			if (registry.tokenRequests === 1)
				return json(
					response,
					429,
					{ error: 'slow_down' },
					{
						'retry-after': new Date(Math.ceil((now + 1_000) / 1_000) * 1_000).toUTCString(),
						date: new Date(now).toUTCString(),
					},
				);
			json(response, 200, { access_token: SCRIPTED_TOKEN, token_type: 'Bearer', expires_in: 3600 });
		};
		const { registered, errors } = await runRows(scriptedEngine(registry), ROWS, {
			onError: 'continueErrorOutput',
		});
		expect(errors.map((item) => item.json.error)).toEqual([]);
		expect(registered).toHaveLength(2);
		expect(registry.tokenRequests).toBe(2);
	});
});
