import { NodeApiError } from 'n8n-workflow';

import { standInNode } from '../../../harness/standInNode';
import {
	badInputItemJson,
	checkFailedItemJson,
	failedChecksToReport,
	type FailedCheck,
} from '../../../nodes/shared/watch/failedChecks';
import { watchKey } from '../../../nodes/shared/watch/snapshot';

// The trigger's record of failing companies at its edges: what it loads from saved static data, the
// exact interval boundary, duplicate rows, interval 0; and the JSON of a failed check.

const node = standInNode({ name: 'Trigger', type: 'companyRegistryTrigger' });
const HOUR = 3_600_000;
const START = Date.UTC(2026, 0, 5);
const key = (companyId: string) => ({ countryCode: 'de', companyId });
const id = (companyId: string) => watchKey(key(companyId));
const check = (companyId: string, itemIndex = 0, description?: string) => {
	const error = new NodeApiError(node, {}, { itemIndex, message: 'The registry is down' });
	error.description = description ?? null;
	return {
		key: key(companyId),
		itemIndex,
		row: { kind: 'failed' as const, itemIndex, key: key(companyId), error, cause: 'http' as const },
	};
};
const at = (ms: number) => new Date(START + ms);

describe('failed checks: the saved record', () => {
	it.each([
		['a string', 'x'],
		['a list', [{ since: 1 }]],
		['null', null],
	])('saved as %s is started afresh', (_label, failing) => {
		const staticData: Record<string, unknown> = { failing };
		const report = failedChecksToReport(staticData, [check('A')], new Set([id('A')]), at(0), HOUR);
		expect(report).toHaveLength(1);
		expect(staticData.failing).toStrictEqual({ [id('A')]: { since: START, reported: START } });
	});

	it('drops an entry that does not hold, alone; a good one carries its spell on', () => {
		const staticData: Record<string, unknown> = {
			failing: {
				[id('A')]: { since: START - HOUR, reported: START - HOUR / 2 },
				[id('B')]: { since: -1 },
				[id('C')]: { since: 'yesterday' },
				[id('D')]: 'corrupt',
			},
		};
		const listed = new Set(['A', 'B', 'C', 'D'].map(id));
		const report = failedChecksToReport(
			staticData,
			['A', 'B', 'C', 'D'].map((companyId) => check(companyId)),
			listed,
			at(0),
			HOUR,
		);
		// A was reported half an hour ago: not again yet; the others start a spell now and are reported.
		expect(report.map((failed) => failed.key.companyId)).toEqual(['B', 'C', 'D']);
		expect(staticData.failing).toStrictEqual({
			[id('A')]: { since: START - HOUR, reported: START - HOUR / 2 },
			[id('B')]: { since: START, reported: START },
			[id('C')]: { since: START, reported: START },
			[id('D')]: { since: START, reported: START },
		});
	});

	it('a saved key "__proto__" is a key like any other, and harms no company', () => {
		const staticData: Record<string, unknown> = {
			failing: JSON.parse('{"__proto__": {"since": 5, "reported": 5}}') as unknown,
		};
		const [first] = failedChecksToReport(staticData, [check('y')], new Set([id('y')]), at(0), HOUR);
		expect(first.since).toEqual(at(0));
		expect(staticData.failing).toStrictEqual({ [id('y')]: { since: START, reported: START } });
	});
});

describe('failed checks: when to report', () => {
	it('several rows of one company are one failed check, the first row', () => {
		const staticData: Record<string, unknown> = {};
		const report = failedChecksToReport(
			staticData,
			[check('A', 0), check('A', 3), check('B', 4)],
			new Set([id('A'), id('B')]),
			at(0),
			HOUR,
		);
		expect(report.map((failed) => [failed.key.companyId, failed.itemIndex])).toEqual([
			['A', 0],
			['B', 4],
		]);
	});

	it('exactly an interval after the last report, a failure is reported again', () => {
		const staticData: Record<string, unknown> = {};
		const listed = new Set([id('A')]);
		failedChecksToReport(staticData, [check('A')], listed, at(0), HOUR);
		expect(failedChecksToReport(staticData, [check('A')], listed, at(HOUR - 1), HOUR)).toEqual([]);
		const [again] = failedChecksToReport(staticData, [check('A')], listed, at(HOUR), HOUR);
		expect(again.since).toEqual(at(0));
		expect(staticData.failing).toStrictEqual({
			[id('A')]: { since: START, reported: START + HOUR },
		});
	});

	it('a recovered company keeps its last report until exactly an interval has passed', () => {
		const staticData: Record<string, unknown> = {};
		const listed = new Set([id('A')]);
		failedChecksToReport(staticData, [check('A')], listed, at(0), HOUR);
		failedChecksToReport(staticData, [], listed, at(HOUR - 1), HOUR);
		expect(staticData.failing).toStrictEqual({ [id('A')]: { reported: START } });
		failedChecksToReport(staticData, [], listed, at(HOUR), HOUR);
		expect(staticData.failing).toStrictEqual({});
	});

	it('with the interval 0, nothing is reported, yet each spell is known from its start', () => {
		const staticData: Record<string, unknown> = {};
		const listed = new Set([id('A')]);
		expect(failedChecksToReport(staticData, [check('A')], listed, at(0), 0)).toEqual([]);
		expect(staticData.failing).toStrictEqual({ [id('A')]: { since: START } });
		expect(failedChecksToReport(staticData, [check('A')], listed, at(HOUR), 0)).toEqual([]);
		expect(staticData.failing).toStrictEqual({ [id('A')]: { since: START } });
		failedChecksToReport(staticData, [], listed, at(2 * HOUR), 0);
		expect(staticData.failing).toStrictEqual({});
	});

	it('a company taken off the list while failing is forgotten at once', () => {
		const staticData: Record<string, unknown> = {};
		failedChecksToReport(
			staticData,
			[check('A'), check('B')],
			new Set([id('A'), id('B')]),
			at(0),
			HOUR,
		);
		failedChecksToReport(staticData, [check('A'), check('B')], new Set([id('B')]), at(1), HOUR);
		expect(Object.keys(staticData.failing as object)).toEqual([id('B')]);
	});
});

describe('the JSON of a failed check', () => {
	const now = new Date(START + 100 * 60_000);
	const failedCheck = (changes: Partial<FailedCheck> = {}): FailedCheck => ({
		...check('A', 2, 'Try again later'),
		since: new Date(START),
		...changes,
	});

	it('says what failed, how, since when and for how long (hours to one decimal)', () => {
		expect(checkFailedItemJson(failedCheck({ lastCheckedDay: 20_457 }), now)).toStrictEqual({
			event: 'checkFailed',
			error: { message: 'The registry is down', kind: 'http', description: 'Try again later' },
			lookup: { countryCode: 'de', companyId: 'A' },
			lastCheckedOn: '2026-01-04',
			failingSince: '2026-01-05T00:00:00.000Z',
			failingForHours: 1.7,
			detectedAt: '2026-01-05T01:40:00.000Z',
		});
	});

	it('without a description, a cause or a last check: no description, kind unknown, never checked', () => {
		const plain = check('A');
		const json = checkFailedItemJson(
			{ ...plain, row: { ...plain.row, cause: undefined }, since: new Date(START + 30 * 60_000) },
			now,
		);
		expect(json.error).toStrictEqual({ message: 'The registry is down', kind: 'unknown' });
		expect(json.lastCheckedOn).toBeNull();
		expect(json.failingForHours).toBe(1.2);
		expect(json.lookup).not.toBe(plain.key);
	});

	it('of a row that names no company: kind input, no lookup, failing from now', () => {
		const { row } = check('A', 0, 'Give a country');
		expect(badInputItemJson(row, now)).toStrictEqual({
			event: 'checkFailed',
			error: { message: 'The registry is down', kind: 'input', description: 'Give a country' },
			lookup: null,
			lastCheckedOn: null,
			failingSince: '2026-01-05T01:40:00.000Z',
			failingForHours: 0,
			detectedAt: '2026-01-05T01:40:00.000Z',
		});
		expect(badInputItemJson(check('A').row, now).error).toStrictEqual({
			message: 'The registry is down',
			kind: 'input',
		});
	});
});
