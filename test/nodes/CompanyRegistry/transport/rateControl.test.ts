import { RateController } from '../../../../nodes/CompanyRegistry/transport/rateControl';

/** Starts `count` acquisitions and reports how many got a slot within `ms`. */
async function startedWithin(controller: RateController, count: number, ms: number): Promise<number> {
	let started = 0;
	for (let index = 0; index < count; index++) void controller.acquire().then(() => started++);
	await new Promise((resolve) => setTimeout(resolve, ms));
	return started;
}

describe('rate controller', () => {
	it('lets the first request go alone, so that one token is fetched before the others start', async () => {
		const controller = new RateController({ maxConcurrency: 10 });
		expect(await startedWithin(controller, 5, 30)).toBe(1);
		controller.release({ status: 200 });
		await new Promise((resolve) => setTimeout(resolve, 30));
		expect(controller.stats.requests).toBe(5);
	});

	it('never has more than Max Concurrent Requests in flight', async () => {
		const controller = new RateController({ maxConcurrency: 3 });
		await controller.acquire();
		controller.release({ status: 200 });
		expect(await startedWithin(controller, 10, 30)).toBe(3);
	});

	it('halves the concurrency on a 429 and grows it back by about one per round of successes', async () => {
		const controller = new RateController({ maxConcurrency: 8 });
		await controller.acquire();
		controller.release({ status: 200 });
		for (let index = 0; index < 8; index++) await controller.acquire();
		controller.release({ status: 429, retryAfterMs: 0 });
		for (let index = 0; index < 7; index++) controller.release({ status: 200 });
		// 8 / 2 = 4, plus 7 successes at 1/4 each ≈ 5.3: five may be in flight now.
		expect(await startedWithin(controller, 10, 30)).toBe(5);
	});

	it('when every request in flight meets 429, everybody waits out the Retry-After (no retry storm)', async () => {
		const controller = new RateController({ maxConcurrency: 4 });
		await controller.acquire();
		controller.release({ status: 200 });
		for (let index = 0; index < 4; index++) await controller.acquire();
		const pausedAt = Date.now();
		for (let index = 0; index < 4; index++) controller.release({ status: 429, retryAfterMs: 300 });
		expect(controller.stats.pauses).toBe(1);
		expect(await startedWithin(controller, 2, 150)).toBe(0);
		// Both start once the Retry-After has passed (allowing for a busy machine's timers).
		while (controller.stats.requests < 7 && Date.now() - pausedAt < 3000) await new Promise((resolve) => setTimeout(resolve, 20));
		expect(controller.stats.requests).toBe(7);
		expect(Date.now() - pausedAt).toBeGreaterThanOrEqual(290);
	});

	it('a single long Retry-After (a quota) pauses everybody', async () => {
		const controller = new RateController({ maxConcurrency: 4 });
		await controller.acquire();
		controller.release({ status: 429, retryAfterMs: 60_000 });
		expect(await startedWithin(controller, 1, 50)).toBe(0);
	});

	it('paces at Max Requests per Second', async () => {
		const controller = new RateController({ maxConcurrency: 10, maxRequestsPerSecond: 20 });
		await controller.acquire();
		controller.release({ status: 200 });
		const started = Date.now();
		for (let index = 0; index < 5; index++) {
			await controller.acquire();
			controller.release({ status: 200 });
		}
		expect(Date.now() - started).toBeGreaterThanOrEqual(190);
	});

	it('with X-RateLimit-Remaining at 0 and no refill estimate yet, waits for an answer instead of guessing', async () => {
		const controller = new RateController({ maxConcurrency: 10 });
		await controller.acquire();
		controller.release({ status: 200, remaining: 1 });
		await controller.acquire();
		expect(await startedWithin(controller, 3, 30)).toBe(0);
		controller.release({ status: 200, remaining: 3 });
		await new Promise((resolve) => setTimeout(resolve, 30));
		expect(controller.stats.requests).toBe(5);
	});

	it('estimates the refill rate from how X-RateLimit-Remaining moves, and paces at it once the budget is spent', async () => {
		const controller = new RateController({ maxConcurrency: 10 });
		// 20 answered successes over 250 ms with the budget staying at 0: the server refills 80 per second.
		for (let index = 0; index < 20; index++) {
			await controller.acquire();
			controller.release({ status: 200, remaining: 0 });
			await new Promise((resolve) => setTimeout(resolve, 12.5));
		}
		const started = Date.now();
		for (let index = 0; index < 8; index++) {
			await controller.acquire();
			controller.release({ status: 200, remaining: 0 });
		}
		const perSecond = 8 / ((Date.now() - started) / 1000);
		expect(perSecond).toBeGreaterThan(40);
		expect(perSecond).toBeLessThan(120);
	});
});
