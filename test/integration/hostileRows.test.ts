import type { IDataObject } from 'n8n-workflow';

import { mulberry32 } from '../../sandbox/faults';
import { DEMO_CLIENT, startSandbox, type Sandbox } from '../../sandbox/server';
import { CREDENTIAL_ID, REGISTRY_NODE, engineFor, runRows } from '../../harness/fixtures';

// Issue "Hostile world", property-style: a few hundred generated hostile rows (broken unicode, control
// characters, numbers, objects, very long strings, path tricks) mixed with good ones, under each On
// Error mode. Whatever the rows: one output item per row, on the right output, paired with its row;
// no request to any path but /v1/company/{country}/{id}; no secret or token anywhere in the run.

const GOOD = [
	{ row: { country: 'de', companyId: 'HRB12345' }, registered: true },
	{ row: { country: 'DEU', companyId: ' HRB12345 ' }, registered: true },
	{ row: { country: 'gb', companyId: '09876543' }, registered: true },
	{ row: { country: 'us', companyId: 'C0806592', state: 'ca' }, registered: true },
	{ row: { country: 'de', companyId: 'HRB00000' }, registered: false },
	{ row: { country: 'gb', companyId: '12345678' }, registered: false },
];

const PATH_TRICKS = [
	'..',
	'../admin',
	'%2e%2e',
	'HRB1/../../oauth/token',
	'HRB1?stateCode=ca',
	'HRB1#x',
	'/etc/passwd',
	'a\\b',
	'%00',
	'.',
	'HRB1 ',
];

function hostileValue(random: () => number): unknown {
	const pick = <T>(values: T[]) => values[Math.floor(random() * values.length)];
	const text = (length: number) =>
		Array.from({ length }, () => String.fromCharCode(Math.floor(random() * 0xffff))).join('');
	switch (Math.floor(random() * 9)) {
		case 0:
			return text(1 + Math.floor(random() * 12)); // any UTF-16 units, lone surrogates and controls included
		case 1:
			return `HRB${pick(['\uD800', '\uDFFF', '\r\n', '\u0000', '\u202E', '\u2066', '\t'])}1`;
		case 2:
			return pick([
				0,
				-1,
				1e21,
				3.14,
				Number.NaN,
				Number.POSITIVE_INFINITY,
				Number.NEGATIVE_INFINITY,
			]);
		case 3:
			return pick([{}, { id: 'HRB12345' }, [], ['HRB12345'], null, true, false]);
		case 4:
			return 'X'.repeat(100 + Math.floor(random() * 100_000));
		case 5:
			return pick(PATH_TRICKS);
		case 6:
			return pick(['', '   ', 'N/A', 'Ünïcödé-ÄG', '株式会社', 'Å'.repeat(40)]);
		default:
			return `HRB${Math.floor(random() * 1e6)}`;
	}
}

function hostileSheet(seed: number, size: number): Array<{ json: IDataObject; expect?: boolean }> {
	const random = mulberry32(seed);
	return Array.from({ length: size }, () => {
		if (random() < 0.3) {
			const good = GOOD[Math.floor(random() * GOOD.length)];
			return { json: { ...good.row }, expect: good.registered };
		}
		const country = random() < 0.8 ? 'de' : hostileValue(random);
		return {
			json: {
				country,
				companyId: hostileValue(random),
				state: random() < 0.1 ? hostileValue(random) : '',
			} as IDataObject,
		};
	});
}

const LOOKUP_PATH = /^\/v1\/company\/([a-z]{2})\/([^/?#]+)(\?.*)?$/;

describe('a few hundred hostile rows', () => {
	let sandbox: Sandbox;
	beforeAll(async () => {
		sandbox = await startSandbox({ port: 0 });
	});
	afterAll(async () => await sandbox.close());

	describe.each(['continueRegularOutput', 'continueErrorOutput'] as const)(
		'under On Error %s',
		(onError) => {
			it.each([1, 2, 3])(
				'seed %i: every row once, on the right output, paired, nothing leaked',
				async (seed) => {
					const rows = hostileSheet(seed, 300);
					const engine = engineFor(sandbox);
					const logged = sandbox.lookupLog.length;
					const { result, registered, notRegistered, errors } = await runRows(
						engine,
						rows.map((row) => row.json),
						{ onError },
					);

					const seen = new Map<number, string>();
					const outputs: Array<[string, typeof registered]> = [
						['registered', registered],
						['notRegistered', notRegistered],
						['errors', errors],
					];
					for (const [output, items] of outputs) {
						for (const item of items) {
							const index = (item.pairedItem as { item: number }).item;
							expect(seen.has(index)).toBe(false);
							seen.set(index, item.json.error !== undefined ? 'error' : output);
							if (output === 'registered') expect(item.json.isRegistered).toBe(true);
							if (item.json.error === undefined) {
								// A record is joined to its own row: the key it was looked up with came from that row.
								expect(
									String(item.json.lookup && (item.json.lookup as IDataObject).companyId),
								).toBe(String(rows[index].json.companyId).trim());
							}
						}
					}
					expect([...seen.keys()].sort((a, b) => a - b)).toEqual(rows.map((_, index) => index));
					rows.forEach((row, index) => {
						if (row.expect === true) expect(seen.get(index)).toBe('registered');
						if (row.expect === false) expect(seen.get(index)).toBe('notRegistered');
						if (row.expect === undefined) expect(seen.get(index)).not.toBe('registered');
					});
					if (onError === 'continueErrorOutput')
						expect(notRegistered.every((item) => item.json.error === undefined)).toBe(true);

					for (const target of sandbox.lookupLog.slice(logged)) {
						const match = LOOKUP_PATH.exec(target);
						expect(match).not.toBeNull();
						const query = new URLSearchParams(match![3] ?? '');
						expect(
							[...query.keys()].every((name) => name === 'stateCode' || name === 'languageCode'),
						).toBe(true);
					}
					const token = String(engine.credentials.stored(CREDENTIAL_ID)?.accessToken);
					const everything = JSON.stringify(result.run) + engine.logs.join('\n');
					expect(everything).not.toContain(DEMO_CLIENT.clientSecret);
					expect(everything).not.toContain(token);
				},
			);
		},
	);

	it('under On Error Stop: the run ends with one error naming a row that is not a good one', async () => {
		const rows = hostileSheet(4, 300);
		const engine = engineFor(sandbox);
		const { result, registered } = await runRows(
			engine,
			rows.map((row) => row.json),
		);
		const error = result.errorOf(REGISTRY_NODE) as unknown as {
			context: { itemIndex: number };
			message: string;
		};
		expect(registered).toHaveLength(0);
		expect(rows[error.context.itemIndex].expect).toBeUndefined();
		const token = String(engine.credentials.stored(CREDENTIAL_ID)?.accessToken);
		expect(JSON.stringify(result.run)).not.toContain(token);
	});
});
