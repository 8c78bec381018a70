import type { LookupKey } from '../../../nodes/shared/model/lookupKey';
import { withEarlierTries } from '../../../nodes/shared/watch/earlierTries';
import { type FoundChange, FIRST_SEEN } from '../../../nodes/shared/watch/snapshot';
import { company } from './storeFixtures';

// Retry On Fail hands every try of one node run the same input array: the changes an earlier try found
// (and saved in the memory) must leave with the last try, once per company.
const found = (key: LookupKey, status: string, itemIndex: number): FoundChange => ({
	key,
	record: company(status),
	change: FIRST_SEEN,
	itemIndex,
});
const de = (companyId: string): LookupKey => ({ countryCode: 'de', companyId });
const summary = (changes: FoundChange[]) =>
	changes.map(
		(c) => `${c.key.countryCode}:${c.key.stateCode ?? ''}/${c.key.companyId} ${c.record.status}`,
	);

describe('withEarlierTries: the changes of the earlier tries of one node run', () => {
	it('gives a first try its own changes', () => {
		expect(summary(withEarlierTries([], [found(de('1'), 'Active', 0)]))).toEqual(['de:/1 Active']);
	});

	it('carries an earlier try’s changes to the next try of the same node run, in the order found', () => {
		const nodeRun: unknown[] = [];
		withEarlierTries(nodeRun, [found(de('1'), 'Active', 0), found(de('2'), 'Active', 1)]);
		const second = withEarlierTries(nodeRun, [found(de('3'), 'Inactive', 2)]);
		expect(summary(second)).toEqual(['de:/1 Active', 'de:/2 Active', 'de:/3 Inactive']);
		// A third try that finds nothing new still gives all of them.
		expect(summary(withEarlierTries(nodeRun, []))).toEqual(summary(second));
	});

	it('keeps one change a company, the newer one, when a company is found again', () => {
		const nodeRun: unknown[] = [];
		withEarlierTries(nodeRun, [found(de('1'), 'Active', 0), found(de('2'), 'Active', 1)]);
		expect(summary(withEarlierTries(nodeRun, [found(de('1'), 'Inactive', 0)]))).toEqual([
			'de:/1 Inactive',
			'de:/2 Active',
		]);
	});

	it('tells companies apart by their whole key (a US state, a language)', () => {
		const nodeRun: unknown[] = [];
		const us = (stateCode: string): LookupKey => ({ countryCode: 'us', stateCode, companyId: '7' });
		withEarlierTries(nodeRun, [found(us('DE'), 'Active', 0)]);
		const second = withEarlierTries(nodeRun, [
			found(us('NY'), 'Active', 1),
			found({ ...de('7'), languageCode: 'en' }, 'Active', 2),
			found(de('7'), 'Active', 3),
		]);
		expect(second).toHaveLength(4);
	});

	it('never mixes two node runs (each has its own input array)', () => {
		const first: unknown[] = [];
		const other: unknown[] = [];
		withEarlierTries(first, [found(de('1'), 'Active', 0)]);
		expect(summary(withEarlierTries(other, [found(de('2'), 'Active', 0)]))).toEqual([
			'de:/2 Active',
		]);
		expect(summary(withEarlierTries(first, []))).toEqual(['de:/1 Active']);
	});
});
