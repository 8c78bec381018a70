import { NodeOperationError, type IDataObject, type INode } from 'n8n-workflow';

import { loadWatchState, nodeStaticData } from '../../../nodes/shared/watch/memory';
import { compareSnapshots, watchKey } from '../../../nodes/shared/watch/snapshot';

describe('watch key', () => {
	it('keeps the readable key earlier versions saved, so existing watches carry on', () => {
		expect(watchKey({ countryCode: 'de', companyId: 'HRB12345' })).toBe('de/HRB12345');
		expect(watchKey({ countryCode: 'us', stateCode: 'ca', companyId: 'C0806592' })).toBe(
			'us:ca/C0806592',
		);
		expect(watchKey({ countryCode: 'jp', companyId: '1010001000001', languageCode: 'en' })).toBe(
			'jp/1010001000001|en',
		);
	});

	it('never gives an id holding "|" the key of the same id with a language', () => {
		const withBar = watchKey({ countryCode: 'de', companyId: 'X|en' });
		const withLanguage = watchKey({ countryCode: 'de', companyId: 'X', languageCode: 'en' });
		expect(withBar).not.toBe(withLanguage);
		expect(withBar).toBe('de/X%7Cen');
		expect(watchKey({ countryCode: 'de', companyId: 'X%7Cen' })).toBe('de/X%257Cen');
	});
});

describe('loading the saved watch state', () => {
	const logger = () => {
		const lines: string[] = [];
		return { lines, warn: (message: string) => lines.push(message) };
	};

	it('drops entries that are not snapshots and says so once', () => {
		const log = logger();
		const data: Record<string, unknown> = {
			companies: {
				'de/A': { s: 'A', n: 'A GmbH', d: 20_000 },
				'de/B': { s: 'A', n: 'B GmbH' },
				'de/C': { s: 'Q', d: 20_000 },
				'de/D': 'corrupt',
			},
		};
		const state = loadWatchState(data, log);
		expect(Object.keys(state.companies!)).toEqual(['de/A']);
		expect(log.lines).toHaveLength(1);
	});

	it.each([
		['a string', 'x'],
		['a number', 1],
		['a list', []],
		['null', null],
	])('replaces companies saved as %s', (_label, companies) => {
		const log = logger();
		const state = loadWatchState({ companies }, log);
		expect(state.companies).toEqual({});
		expect(log.lines).toHaveLength(1);
	});

	it('leaves a good state alone, silently', () => {
		const log = logger();
		const data = { companies: { 'de/A': { s: 'I', n: 'A GmbH', a: 'Street 1', d: 20_000 } } };
		expect(loadWatchState(data, log)).toEqual(data);
		expect(log.lines).toEqual([]);
	});
});

describe("the node's state in the static data", () => {
	const node = { name: 'Watch Suppliers' } as INode;
	const contextWith = (state: unknown) => ({
		getWorkflowStaticData: (type: 'node') => {
			expect(type).toBe('node');
			return state as IDataObject;
		},
		getNode: () => node,
	});

	it('is handed back as n8n gave it where it is an object', () => {
		const state = { companies: '{}' };
		expect(nodeStaticData(contextWith(state))).toBe(state);
		const empty = {};
		expect(nodeStaticData(contextWith(empty))).toBe(empty);
	});

	it.each([
		['a text', '{"gb/04417982":{"s":"A","d":20000}}'],
		['null', null],
		['a list', []],
		['a number', 7],
		['a boolean', true],
	])('fails the run where it is %s, naming it and what to remove', (label, state) => {
		let thrown: unknown;
		try {
			nodeStaticData(contextWith(state));
		} catch (error) {
			thrown = error;
		}
		expect(thrown).toBeInstanceOf(NodeOperationError);
		const error = thrown as NodeOperationError;
		expect(error.message).toBe(
			`The node's saved state in the workflow's static data is ${label}, not an object`,
		);
		expect(error.description).toBe(
			'An imported or hand-edited workflow can hold this. Rename the node to start a new baseline, or remove "node:Watch Suppliers" from the workflow\'s staticData (export the workflow, edit it, import it again).',
		);
		expect(error.node).toBe(node);
	});
});

describe('comparing snapshots', () => {
	it('reports turning Inactive once, with the fields that changed', () => {
		const change = compareSnapshots({ s: 'A', n: 'A GmbH', d: 1 }, { s: 'I', n: 'A GmbH', d: 2 });
		expect(change).toMatchObject({ event: 'turnedInactive', changedFields: ['status'] });
		expect(
			compareSnapshots({ s: 'I', n: 'A GmbH', d: 2 }, { s: 'I', n: 'A GmbH', d: 3 }),
		).toBeUndefined();
	});
});
