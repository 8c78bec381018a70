import { TokenRenewal } from '../../../nodes/shared/transport/tokenRenewal';

describe('token renewal', () => {
	it('renews a stored token once; requests that met the same 401 send again after it', async () => {
		const renewal = new TokenRenewal(true);
		expect(renewal.on401(0)).toBe('renew');
		expect(renewal.on401(0)).toBe('resend');
		let ready = false;
		const waiting = renewal.ready().then(() => (ready = true));
		await Promise.resolve();
		expect(ready).toBe(false);
		renewal.finish('renewed');
		await waiting;
		expect(renewal.current).toBe(1);
		// A request sent with the old token meets 401 late: it sends again, no second renewal.
		expect(renewal.on401(0)).toBe('resend');
	});

	it('refuses for good when a token fetched in this run was refused before it was ever accepted', () => {
		const renewal = new TokenRenewal(false);
		expect(renewal.on401(0)).toBe('refused');
		expect(renewal.on401(0)).toBe('refused');
	});

	it('renews a token fetched in this run that worked and was then revoked', () => {
		const renewal = new TokenRenewal(false);
		renewal.accept(0);
		expect(renewal.on401(0)).toBe('renew');
		renewal.finish('renewed');
		// The renewed token worked (the renewing request was answered): a later revocation renews again.
		expect(renewal.on401(1)).toBe('renew');
	});

	it('a renewal that got no answer changes nothing: the next 401 renews again', () => {
		const renewal = new TokenRenewal(true);
		expect(renewal.on401(0)).toBe('renew');
		renewal.finish('unknown');
		expect(renewal.current).toBe(0);
		expect(renewal.on401(0)).toBe('renew');
	});

	it('refuses for good when the renewed token is refused too', () => {
		const renewal = new TokenRenewal(true);
		expect(renewal.on401(0)).toBe('renew');
		renewal.finish('refused');
		expect(renewal.on401(0)).toBe('refused');
	});
});

describe('token renewal after the registry accepted this credential (short-lived tokens)', () => {
	it('a new token refused is that token alone: renews again, up to 3 refused in a row', () => {
		const renewal = new TokenRenewal(false);
		renewal.accept(0);
		for (let refusedInARow = 1; refusedInARow <= 3; refusedInARow++) {
			expect(renewal.on401(renewal.current)).toBe('renew');
			renewal.finish('refused');
			expect(renewal.refused).toBe(refusedInARow === 3);
		}
		expect(renewal.on401(renewal.current)).toBe('refused');
	});

	it('a renewed token the registry answers starts the count again', () => {
		const renewal = new TokenRenewal(true);
		renewal.accept(0);
		for (const verdict of ['refused', 'refused', 'renewed', 'refused', 'refused'] as const) {
			expect(renewal.on401(renewal.current)).toBe('renew');
			renewal.finish(verdict);
		}
		expect(renewal.refused).toBe(false);
		expect(renewal.on401(renewal.current)).toBe('renew');
	});

	it('requests sent with the token before a refused renewal send again, with the new one', () => {
		const renewal = new TokenRenewal(true);
		renewal.accept(0);
		expect(renewal.on401(0)).toBe('renew');
		renewal.finish('refused');
		expect(renewal.on401(0)).toBe('resend');
		expect(renewal.current).toBe(1);
	});
});
