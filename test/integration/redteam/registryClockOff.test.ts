import { runRows } from '../../../harness/fixtures';
import { scriptedEngine } from '../../support/scriptedEngine';
import {
	GOOD_RECORD,
	json,
	SCRIPTED_TOKEN,
	scriptedRegistry,
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

// The same registry telling its window's reset as Unix time (X-RateLimit-Reset, GitHub-style), with its
// Date, 5 lookups in windows of 2 s of its clock. Two hours ahead, the rate controller read the reset
// against our clock (`unixSeconds * 1000 - sentAt`): a window that ends in 2 h, within LONGEST_RESET_MS
// (a day). Once the window's 5 were spent, the rows behind it were held for that reset, past the Max
// Rate-Limit Wait: 15 of 20 rows failed in about 2 s with "kept answering 429 Too Many Requests beyond the
// Max Rate-Limit Wait of 20 s". Two hours behind, every reset was in the past, so none: the rows went on
// refusals alone. Now the reset is read against the answer's Date where that is more than 5 s off ours,
// as Retry-After is (rateControl/headers/registryClock.ts, CLOCKS_AGREE_WITHIN_MS).
describe('a registry whose clock is off ours, telling its reset as Unix time', () => {
	const SHEET = Array.from({ length: 20 }, (_, index) => ({
		country: 'de',
		companyId: `HRB${index}`,
	}));
	const LIMIT = 5;
	const WINDOW_MS = 2_000;

	/**
	 * Windows of LIMIT lookups, WINDOW_MS long from its first request (the sheet's first burst falls in
	 * one), on its clock `offsetMs` off ours, the reset told as Unix time.
	 */
	function fixedWindowByItsClock(offsetMs: number) {
		let firstAt: number | undefined;
		let windowIndex = -1;
		let used = 0;
		return (_request: unknown, response: Parameters<typeof json>[0]) => {
			const now = Date.now() + offsetMs;
			firstAt ??= now;
			const index = Math.floor((now - firstAt) / WINDOW_MS);
			if (index !== windowIndex) [windowIndex, used] = [index, 0];
			const resetAt = firstAt + (index + 1) * WINDOW_MS;
			const headers = {
				'x-ratelimit-limit': String(LIMIT),
				'x-ratelimit-reset': String(Math.ceil(resetAt / 1_000)),
				date: new Date(now).toUTCString(),
			};
			if (used >= LIMIT)
				return json(
					response,
					429,
					{ message: 'Too Many Requests' },
					{ ...headers, 'x-ratelimit-remaining': '0', 'retry-after': '1' },
				);
			used += 1;
			json(response, 200, GOOD_RECORD, {
				...headers,
				'x-ratelimit-remaining': String(LIMIT - used),
			});
		};
	}

	async function lookUpSheet(offsetMs: number) {
		let registry: ScriptedRegistry | undefined;
		try {
			registry = await scriptedRegistry(fixedWindowByItsClock(offsetMs));
			return await runRows(scriptedEngine(registry), SHEET, {
				onError: 'continueErrorOutput',
				options: { maxRateLimitWait: 20 },
			});
		} finally {
			await registry?.close();
		}
	}

	it('two hours ahead: every row registered', async () => {
		const { registered, errors } = await lookUpSheet(2 * HOUR_MS);
		expect(errors.map((item) => item.json.error)).toEqual([]);
		expect(registered).toHaveLength(SHEET.length);
	});

	it.each([
		['two hours behind', -2 * HOUR_MS],
		['ours', 0],
	])('%s: every row registered (held)', async (_name, offsetMs) => {
		const { registered, errors } = await lookUpSheet(offsetMs);
		expect(errors.map((item) => item.json.error)).toEqual([]);
		expect(registered).toHaveLength(SHEET.length);
	});
});
