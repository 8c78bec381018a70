import { runBatch } from '../../../nodes/shared/transport/batchRunner';
import { RateController } from '../../../nodes/shared/transport/rateControl';
import type { On401, RegistryAnswer } from '../../../nodes/shared/transport/registryRequest';
import { VirtualClock } from '../../../bench/sim/virtualClock';

// Red team (a token that expires in 1 s, redteam/shortLivedToken.test.ts, run against the sandbox at
// Max Requests per Second 3): after each 401 the renewing request was sent 9 s later, then 8, 7 ... and
// a 30-row sheet of 10 s took 80 s. The lookup that renews asks the rate controller for a new permit
// (lookupSession.renewToken) and queues behind every lookup of the execution already waiting; each of
// those, given its permit while the renewal is under way, does not send (`unsent`) but has spent its
// place in the pace. So the renewal waits one pace step per lookup waiting, with nothing sent meanwhile.
// The same for a stored token revoked mid-sheet, under any pace (a learned limit too). Not fixed here:
// the renewal needs to go first in the controller's queue (rateControl/, not this branch's to change), or
// a lookup given its permit during a renewal to hand that permit to the renewal (lookupSession.ts, a
// change to how permits pass between lookups, for the controller's owners to judge). Kept as a known
// failure, on the virtual clock (at 3 a second, 30 rows: the renewal 8.7 s after the 401).

const RECORD = { isRegistered: false, officialName: 'N/A', status: 'N/A', registrationDate: 'N/A' };
const ok: RegistryAnswer = { kind: 'response', status: 200, headers: {}, body: RECORD };
const unauthorized: RegistryAnswer = {
	kind: 'response',
	status: 401,
	statusMessage: 'Unauthorized',
	headers: {},
	body: {},
};

it.failing(
	'a token refused mid-sheet at 3 requests a second: the renewal is sent within a second of the 401',
	async () => {
		RateController.forgetAll();
		const clock = new VirtualClock();
		const calls: Array<{ on401: On401; at: number; status: number }> = [];
		let renewed = false;
		const rows = 30;
		await clock.run(
			runBatch(
				rows,
				(index) => ({ countryCode: 'gb', companyId: String(index) }),
				{
					registryKey: `renewal behind the queue ${Math.random()}`,
					maxConcurrency: 20,
					maxRateLimitWaitMs: 60_000,
					maxAttempts: 3,
					maxRequestsPerSecond: 3,
				},
				{
					request: async (_key, on401) => {
						const at = clock.now();
						await clock.sleep(10);
						// The token expires after the 4th request; the renewal's new one is accepted.
						if (on401 === 'renew') renewed = true;
						const answer = renewed || calls.length < 4 ? ok : unauthorized;
						calls.push({ on401, at, status: (answer as { status: number }).status });
						return answer;
					},
					tokenWasStored: true,
					grantedScopes: async () => undefined,
					reloadCredential: async () => {},
					clock,
					random: () => 0.5,
				},
				{ stopAtFirstFailure: false },
			),
		);
		const refusedAt = calls.find((call) => call.status === 401)!.at;
		const renewedAt = calls.find((call) => call.on401 === 'renew')!.at;
		expect(renewedAt - refusedAt).toBeLessThanOrEqual(1000);
	},
);
