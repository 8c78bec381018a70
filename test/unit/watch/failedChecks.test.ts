import { NodeApiError } from 'n8n-workflow';

import { standInNode } from '../../../harness/standInNode';
import { failedChecksToReport } from '../../../nodes/shared/watch/failedChecks';
import { watchKey } from '../../../nodes/shared/watch/snapshot';

const node = standInNode({ name: 'Trigger', type: 'companyRegistryTrigger' });
const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;
const START = Date.UTC(2026, 0, 5);

const key = (companyId: string) => ({ countryCode: 'de', companyId });
const failures = new Map<string, ReturnType<typeof makeFailure>>();
/** One per company: an error is costly to build, and the seeds below make thousands of polls. */
const failure = (companyId: string) => {
	if (!failures.has(companyId)) failures.set(companyId, makeFailure(companyId));
	return failures.get(companyId)!;
};
const makeFailure = (companyId: string, itemIndex = 0) => ({
	key: key(companyId),
	itemIndex,
	row: {
		kind: 'failed' as const,
		itemIndex,
		key: key(companyId),
		error: new NodeApiError(node, { message: 'down' }, { itemIndex }),
		cause: 'http' as const,
	},
});

/** Polls on an injected clock; `failsAt(poll, id)` says which companies fail in that poll. Returns report times per company. */
function poll(
	ids: string[],
	polls: number,
	stepMs: number,
	intervalMs: number,
	failsAt: (poll: number, id: string) => boolean,
) {
	const staticData: Record<string, unknown> = {};
	const listed = new Set(ids.map((id) => watchKey(key(id))));
	const reports = new Map<string, number[]>(ids.map((id) => [id, []]));
	for (let i = 0; i < polls; i++) {
		const now = new Date(START + i * stepMs);
		const failed = ids.filter((id) => failsAt(i, id)).map((id) => failure(id));
		for (const check of failedChecksToReport(staticData, failed, listed, now, intervalMs))
			reports.get(check.key.companyId)!.push(now.getTime());
	}
	return { reports, staticData };
}

/** A small deterministic generator (mulberry32), so that each seed gives the same case. */
function random(seed: number) {
	let a = seed;
	return () => {
		a = (a + 0x6d2b79f5) | 0;
		let t = Math.imul(a ^ (a >>> 15), 1 | a);
		t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
		return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
	};
}

describe('failed checks to report (trigger, on an injected clock)', () => {
	it('reports a company failing every other poll once a day, not once per spell', () => {
		// A poll each minute for a day, failing every other poll: 720 spells.
		const { reports } = poll(['HRB1'], DAY / MINUTE, MINUTE, DAY, (i) => i % 2 === 0);
		expect(reports.get('HRB1')).toEqual([START]);
	});

	it('reports the first failure, then once an interval while it lasts', () => {
		const { reports } = poll(['HRB1'], 3 * 24, 60 * MINUTE, DAY, () => true);
		expect(reports.get('HRB1')).toEqual([START, START + DAY, START + 2 * DAY]);
	});

	it('reports a new spell at once when the last report is an interval old', () => {
		// Fails in hour 0, works for 30 hours, fails again.
		const { reports } = poll(['HRB1'], 40, 60 * MINUTE, DAY, (i) => i === 0 || i >= 31);
		expect(reports.get('HRB1')).toEqual([START, START + 31 * 60 * MINUTE]);
	});

	it('gives a new spell its own start (failingSince)', () => {
		const staticData: Record<string, unknown> = {};
		const listed = new Set([watchKey(key('HRB1'))]);
		failedChecksToReport(staticData, [failure('HRB1')], listed, new Date(START), DAY);
		failedChecksToReport(staticData, [], listed, new Date(START + 60 * MINUTE), DAY);
		const [report] = failedChecksToReport(
			staticData,
			[failure('HRB1')],
			listed,
			new Date(START + DAY + 60 * MINUTE),
			DAY,
		);
		expect(report.since.getTime()).toBe(START + DAY + 60 * MINUTE);
	});

	it('forgets a recovered company once an interval has passed, and at once when it is taken off the list', () => {
		const { staticData } = poll(['HRB1', 'HRB2'], 26, 60 * MINUTE, DAY, (i) => i === 0);
		expect(staticData.failing).toEqual({});
		const data: Record<string, unknown> = {};
		failedChecksToReport(
			data,
			[failure('HRB1')],
			new Set([watchKey(key('HRB1'))]),
			new Date(START),
			DAY,
		);
		failedChecksToReport(data, [], new Set(), new Date(START + MINUTE), DAY);
		expect(data.failing).toEqual({});
	});

	it('never reports a company twice within an interval, and reports every failure an interval after the last report (200 seeds)', () => {
		for (let seed = 1; seed <= 200; seed++) {
			const next = random(seed);
			const ids = ['A', 'B', 'C'];
			const stepMs = (1 + Math.floor(next() * 120)) * MINUTE;
			const intervalMs = Math.floor(next() * 4) * 6 * 60 * MINUTE; // 0, 6 h, 12 h or 18 h
			const failRate = next();
			const fails = new Map<string, boolean[]>(
				ids.map((id) => [id, Array.from({ length: 300 }, () => next() < failRate)]),
			);
			const { reports } = poll(ids, 300, stepMs, intervalMs, (i, id) => fails.get(id)![i]);
			for (const id of ids) {
				const times = reports.get(id)!;
				if (intervalMs === 0) {
					expect(times).toEqual([]);
					continue;
				}
				// One expect per company: thousands of them make the test slow.
				const violations: string[] = [];
				for (let r = 1; r < times.length; r++)
					if (times[r] - times[r - 1] < intervalMs) violations.push(`twice at ${times[r]}`);
				// Liveness: a failing poll an interval or more after the last report is reported.
				let last: number | undefined;
				const reported = new Set(times);
				for (let i = 0; i < 300; i++) {
					const t = START + i * stepMs;
					if (!fails.get(id)![i]) continue;
					const due = last === undefined || t - last >= intervalMs;
					if (due) last = t;
					if (due !== reported.has(t)) violations.push(`${due ? 'not ' : ''}reported at ${t}`);
				}
				expect({ seed, id, violations }).toEqual({ seed, id, violations: [] });
			}
		}
	});
});
