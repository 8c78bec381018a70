import type { ServerResponse } from 'node:http';

import { runRows } from '../../../harness/fixtures';
import { scriptedEngine } from '../../support/scriptedEngine';
import { scriptedRegistryEachTest, type ScriptedRegistry } from '../../support/scriptedRegistry';

// Red team: a registry that adds numeric fields to its records (a register's 20-digit internal number, a
// LEI's numeric form, a share capital to the cent) and writes them as JSON numbers. JSON.parse reads a
// number as a double: past 2^53 (and past 17 significant digits) the digits changed without a word, so
// the item carried another company's number. The answer is written here as raw text, because
// JSON.stringify of a JavaScript number could never hold the digits the registry sent; what the test
// reads is what the package made of that text, whatever Node runs it (Node 20 here, Node 24 in n8n).

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
	'"registerNumber":98765432109876543210,"negative":-9007199254740993,' +
	'"capital":{"amount":123456789012345678.91,"precise":0.10000000000000000555},' +
	'"history":[9007199254740993,42,1.5e3,-1.50,1E+2,0.1,1e-400],"text":"9007199254740993 \\" 1e400",' +
	'"safe":9007199254740991,"huge":1e400}';

describe('a registry whose records carry numbers a double cannot hold', () => {
	let registry: ScriptedRegistry;
	scriptedRegistryEachTest(
		(started) => (registry = started),
		(_request, response) => raw(response, RECORD_TEXT),
	);

	it('keeps the digits the registry sent, as text, and every other number as a number', async () => {
		const { registered, errors } = await runRows(
			scriptedEngine(registry),
			[{ country: 'de', companyId: 'HRB1' }],
			{ onError: 'continueErrorOutput' },
		);
		expect(errors).toEqual([]);
		expect(registered).toHaveLength(1);
		const item = registered[0].json;
		expect(item.registerNumber).toBe('98765432109876543210');
		expect(item.negative).toBe('-9007199254740993');
		expect(item.capital).toEqual({
			amount: '123456789012345678.91',
			precise: '0.10000000000000000555',
		});
		expect(item.history).toEqual(['9007199254740993', 42, 1500, -1.5, 100, 0.1, '1e-400']);
		expect(item.text).toBe('9007199254740993 " 1e400');
		expect(item.safe).toBe(9007199254740991);
		expect(item.huge).toBe('1e400');
	});
});
