/**
 * One token renewal per refused token, shared by every request in flight. Requests take a 401 back as
 * an answer; the first to meet one renews for everybody (it sends again with the 401 left to n8n,
 * which asks the credential for a new token and repeats the request), and the others wait for that and
 * send again. So a token revoked mid-sheet costs one token request, not one per request in flight.
 *
 * A token that was fetched during this execution and refused before the registry ever accepted it
 * will not be accepted on a second try either (wrong audience, disabled client, a registry that
 * refuses everything): then every lookup of the execution fails at once, instead of fetching token
 * after token. Once the registry has accepted a token of this credential in this execution, though, a
 * new token it refuses is refused for itself: a short-lived token (`exp` is in whole seconds, so a
 * "1 s" token may live a few milliseconds) expired on its way. Another is fetched, up to
 * MAX_REFUSED_RENEWALS refused in a row.
 */

/** New tokens refused one after another, after the registry accepted an earlier one, before giving up. */
export const MAX_REFUSED_RENEWALS = 3;

export type On401Decision = 'renew' | 'resend' | 'refused';

export class TokenRenewal {
	/** Counts renewals: a request sent before the latest one met the old token. */
	private generation = 0;
	private accepted = false;
	private underway: { done: Promise<void>; finish: () => void } | undefined;
	private refusedForGood = false;
	private renewals = 0;
	/** New tokens refused since the registry last accepted one. */
	private refusedRenewals = 0;

	/** `tokenWasStored`: the credential held a token when the execution began (it may be stale). */
	constructor(private readonly tokenWasStored: boolean) {}

	/** The token generation a request is sent with. */
	get current(): number {
		return this.generation;
	}

	/** Whether this execution asked for a new token (a refusal after that is a new token's). */
	get renewed(): boolean {
		return this.renewals > 0;
	}

	get renewing(): boolean {
		return this.underway !== undefined;
	}

	/** Whether every lookup of the execution now fails with the refusal. */
	get refused(): boolean {
		return this.refusedForGood;
	}

	/** Resolves once no renewal is under way. */
	async ready(): Promise<void> {
		while (this.underway) await this.underway.done;
	}

	/** An answer other than 401 to a request sent with the current token: the registry accepts it. */
	accept(generation: number): void {
		if (generation === this.generation) this.accepted = true;
	}

	/** A 401 to a request sent with token `generation`: what that request does next. */
	on401(generation: number): On401Decision {
		if (this.refusedForGood) return 'refused';
		if (generation < this.generation || this.underway) return 'resend';
		const fetchedHere = this.generation > 0 || !this.tokenWasStored;
		if (fetchedHere && !this.accepted) {
			this.refusedForGood = true;
			return 'refused';
		}
		let finish = () => {};
		const done = new Promise<void>((resolve) => (finish = resolve));
		this.underway = { done, finish };
		this.renewals += 1;
		return 'renew';
	}

	/**
	 * The renewing request's verdict: the new token was refused too, it is in use now (the registry
	 * answered), or unknown (no answer: the others send again and may renew again).
	 */
	finish(verdict: 'refused' | 'renewed' | 'unknown'): void {
		if (verdict === 'refused') {
			// The credential now holds the refused token: requests that waited send with it and renew again.
			this.generation += 1;
			this.refusedRenewals += 1;
			if (!this.accepted || this.refusedRenewals >= MAX_REFUSED_RENEWALS)
				this.refusedForGood = true;
		}
		if (verdict === 'renewed') {
			this.generation += 1;
			this.accepted = true;
			this.refusedRenewals = 0;
		}
		const renewing = this.underway;
		this.underway = undefined;
		renewing?.finish();
	}
}
