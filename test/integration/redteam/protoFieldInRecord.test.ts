import type { ServerResponse } from 'node:http';

import { runRows } from '../../../harness/fixtures';
import { scriptedEngine } from '../../support/scriptedEngine';
import { scriptedRegistryEachTest, type ScriptedRegistry } from '../../support/scriptedRegistry';

// Red team: a registry (or a proxy before it) whose records carry a field named `__proto__`, at the top
// or inside a field it adds. JSON.parse makes it an own field, but the record's check (zod) copies fields
// by assignment, and `copy.__proto__ = value` sets the copy's prototype instead: the field was gone from
// the item without a word, and its value became what the item inherits. An own field of that name would
// do the same in the next node that copies an item by assignment (n8n's deepCopy does). It moves aside as
// `registry__proto__`, as `error` and `lookup` move aside as `registryError` and `registryLookup`.
// Review (session 41): n8n's deepCopy skips `constructor` and `prototype` too, at every depth
// (reservedCopyKeys): a field so named was dropped in the next node. They move aside as
// `registryConstructor` and `registryPrototype`.

function raw(response: ServerResponse, text: string) {
	response.writeHead(200, {
		'content-type': 'application/json',
		'content-length': Buffer.byteLength(text),
	});
	response.end(text);
}

const RECORD_TEXT =
	'{"isRegistered":true,"officialName":"Scripted GmbH","status":"Active",' +
	'"registrationDate":"2001-02-03","registeredAddress":"Musterweg 1, Berlin",' +
	'"__proto__":{"polluted":"top"},"registry__proto__":"kept",' +
	'"constructor":"C-1","prototype":{"p":1},' +
	'"filing":{"__proto__":{"polluted":"nested"},"constructor":"C-2","prototype":"P-2","year":2020}}';

describe('a registry whose records carry a field named __proto__', () => {
	let registry: ScriptedRegistry;
	scriptedRegistryEachTest(
		(started) => (registry = started),
		(_request, response) => raw(response, RECORD_TEXT),
	);

	it('keeps every value under a plain name, and no item inherits from the registry', async () => {
		const { registered, errors } = await runRows(
			scriptedEngine(registry),
			[{ country: 'de', companyId: 'HRB1' }],
			{ onError: 'continueErrorOutput' },
		);
		expect(errors).toEqual([]);
		expect(registered).toHaveLength(1);
		const item = registered[0].json;
		expect(Object.getPrototypeOf(item)).toBe(Object.prototype);
		expect(Object.hasOwn(item, '__proto__')).toBe(false);
		expect(item.registry__proto__).toEqual({ polluted: 'top' });
		expect(item.registryRegistry__proto__).toBe('kept');
		expect(Object.hasOwn(item, 'constructor')).toBe(false);
		expect(item.registryConstructor).toBe('C-1');
		expect(item.registryPrototype).toEqual({ p: 1 });
		const filing = item.filing as object;
		expect(Object.getPrototypeOf(filing)).toBe(Object.prototype);
		expect(Object.hasOwn(filing, '__proto__')).toBe(false);
		expect(filing).toEqual({
			registry__proto__: { polluted: 'nested' },
			registryConstructor: 'C-2',
			registryPrototype: 'P-2',
			year: 2020,
		});
		expect(({} as { polluted?: string }).polluted).toBeUndefined();
	});
});
