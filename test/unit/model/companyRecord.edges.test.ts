import { checkCompanyRecord } from '../../../nodes/shared/model/companyRecord';

// The record contract at its edges, with the whole problem text a row's error shows (issue 27: the
// existing tests matched only its start, so a changed explanation went unnoticed).
const registered = {
	isRegistered: true,
	officialName: 'Müller & Söhne Präzisionsteile GmbH',
	status: 'Active',
	registrationDate: '1998-04-17',
};
const unregistered = {
	isRegistered: false,
	officialName: 'N/A',
	status: 'N/A',
	registrationDate: 'N/A',
};

const problemOf = (body: unknown) => {
	const check = checkCompanyRecord(body);
	if (check.valid) throw new Error(`accepted: ${JSON.stringify(body)}`);
	return check.problem;
};

describe('company record check, at the edges', () => {
	it.each([
		[{ ...registered, officialName: undefined }, "field 'officialName' is missing: Required"],
		[
			{ ...registered, status: 'active' },
			`field 'status' is "active": expected Active or Inactive`,
		],
		[
			{ ...registered, registrationDate: '1998-4-17' },
			`field 'registrationDate' is "1998-4-17": expected a date in the form yyyy-mm-dd`,
		],
		[
			{ ...registered, registrationDate: '1900-02-29' },
			`field 'registrationDate' is "1900-02-29": not a calendar date`,
		],
		[
			{ ...registered, registrationDate: '1998-13-01' },
			`field 'registrationDate' is "1998-13-01": not a calendar date`,
		],
		[
			{ ...registered, registeredAddress: '–' },
			`field 'registeredAddress' is "–": expected the address, or no registeredAddress when the register has none ('N/A' is for unregistered companies)`,
		],
		[
			{ ...registered, officialName: ' N/A ' },
			`field 'officialName' is " N/A ": expected the official name, not blank or a placeholder such as 'N/A' or '-'`,
		],
		[
			{ ...unregistered, registrationDate: '2001-01-01' },
			`field 'registrationDate' is "2001-01-01": expected 'N/A' because isRegistered is false`,
		],
		[
			{ ...unregistered, registeredAddress: 'Somewhere 1' },
			`field 'registeredAddress' is "Somewhere 1": expected 'N/A' because isRegistered is false`,
		],
		[
			{ ...registered, isRegistered: 'true' },
			`field 'isRegistered' is "true": expected true or false`,
		],
		[{}, "field 'isRegistered' is missing: expected true or false"],
	])('%j: %s', (body, problem) => {
		expect(problemOf(body)).toBe(problem);
	});

	it('accepts real calendar dates, leap days included', () => {
		for (const registrationDate of ['2000-02-29', '2024-02-29', '1998-12-31', '1000-01-01']) {
			expect(checkCompanyRecord({ ...registered, registrationDate }).valid).toBe(true);
		}
	});

	it('an unknown company may leave its address out', () => {
		expect(checkCompanyRecord(unregistered)).toEqual({ valid: true, record: unregistered });
	});

	it.each([
		[42, 'the response body is not a JSON object: 42'],
		[true, 'the response body is not a JSON object: true'],
		['x'.repeat(80), `the response body is not a JSON object: "${'x'.repeat(80)}"`],
		['x'.repeat(81), `the response body is not a JSON object: "${'x'.repeat(80)}…"`],
		[[], 'the response body is not a JSON object: []'],
	])('a body that is not a JSON object is shown, cut after 80 characters: %p', (body, problem) => {
		expect(problemOf(body)).toBe(problem);
	});
});

describe('company record check, at its limits (issue 27: each limit seen from both sides)', () => {
	it.each([
		['x'.repeat(80), `the response body is not a JSON object: "${'x'.repeat(80)}"`],
		['x'.repeat(81), `the response body is not a JSON object: "${'x'.repeat(80)}…"`],
		[42, 'the response body is not a JSON object: 42'],
		[[1], 'the response body is not a JSON object: [1]'],
		[
			{ ...registered, officialName: 7 },
			"field 'officialName' is 7: Expected string, received number",
		],
		[
			{ ...registered, officialName: 'n.a.' },
			`field 'officialName' is "n.a.": expected the official name, not blank or a placeholder such as 'N/A' or '-'`,
		],
		[
			{ ...registered, registrationDate: '1998-04-17x' },
			`field 'registrationDate' is "1998-04-17x": expected a date in the form yyyy-mm-dd`,
		],
		[
			{ ...registered, officialName: 'N / A' },
			`field 'officialName' is "N / A": expected the official name, not blank or a placeholder such as 'N/A' or '-'`,
		],
		[
			{ ...registered, registrationDate: 'x1998-04-17' },
			`field 'registrationDate' is "x1998-04-17": expected a date in the form yyyy-mm-dd`,
		],
		[
			{ ...registered, registrationDate: '0999-12-31' },
			`field 'registrationDate' is "0999-12-31": not a plausible date of first registration (before the year 1000)`,
		],
	])('%j: %s', (body, problem) => {
		expect(problemOf(body)).toBe(problem);
	});

	it.each([['Tina'], ['Nana'], ['Ina'], ['N/Air']])(
		'accepts %j as a name: only the whole name can be a not-available form',
		(officialName) => {
			expect(checkCompanyRecord({ ...registered, officialName }).valid).toBe(true);
		},
	);

	it.each([['officialName'], ['registeredAddress']])(
		'%s: 1,000 characters pass, one more is a broken record (shown cut, with its length)',
		(field) => {
			const longest = `Main ${'x'.repeat(989)} 12345`;
			expect(longest).toHaveLength(1_000);
			expect(checkCompanyRecord({ ...registered, [field]: longest }).valid).toBe(true);
			expect(problemOf({ ...registered, [field]: `${longest}6` })).toBe(
				`field '${field}' is "Main ${'x'.repeat(75)}…" (1001 characters): longer than 1000 characters, which no register gives`,
			);
		},
	);

	it('a broken value up to 80 characters is shown whole; a longer one cut, with its length', () => {
		const date80 = `1998-04-17${'x'.repeat(70)}`;
		expect(problemOf({ ...registered, registrationDate: date80 })).toBe(
			`field 'registrationDate' is "${date80}": expected a date in the form yyyy-mm-dd`,
		);
		expect(problemOf({ ...registered, registrationDate: `${date80}y` })).toBe(
			`field 'registrationDate' is "${date80}…" (81 characters): expected a date in the form yyyy-mm-dd`,
		);
	});

	it('a broken value that is no text is shown whole, however long', () => {
		const list = Array.from({ length: 81 }, (_, index) => index);
		expect(problemOf({ ...registered, officialName: list })).toBe(
			`field 'officialName' is ${JSON.stringify(list)}: Expected string, received array`,
		);
	});

	it('takes the year 1000 as the earliest date of first registration', () => {
		const check = checkCompanyRecord({ ...registered, registrationDate: '1000-01-01' });
		expect(check.valid).toBe(true);
	});

	it('a registration date up to a day ahead of the clock passes; a millisecond more is the future', () => {
		const registeredOn = { ...registered, registrationDate: '2026-11-26' };
		const dayBefore = Date.parse('2026-11-25T00:00:00Z');
		expect(checkCompanyRecord(registeredOn, dayBefore)).toEqual({
			valid: true,
			record: registeredOn,
		});
		expect(checkCompanyRecord(registeredOn, dayBefore - 1)).toEqual({
			valid: false,
			problem: `field 'registrationDate' is "2026-11-26": a date of first registration cannot be in the future`,
		});
	});
});

// A gateway's or another API's shapes around a record (red team: a record under `data`, a list of one):
// the problem says where the record is, not that its first field is missing.
describe('company record check, a record wrapped', () => {
	it.each([
		[
			[registered],
			'the response body is not a JSON object but a list of 1: a lookup answers one company record (section 2.1)',
		],
		[
			[1, unregistered],
			'the response body is not a JSON object but a list of 2: a lookup answers one company record (section 2.1)',
		],
		[
			{ data: registered },
			"the record is under field 'data', not at the top level of the answer (section 2.1)",
		],
		[
			{ meta: null, page: [registered], result: unregistered },
			"the record is under field 'result', not at the top level of the answer (section 2.1)",
		],
	])('%p', (body, problem) => {
		expect(checkCompanyRecord(body)).toEqual({ valid: false, problem });
	});

	it.each([
		[null, 'the response body is not a JSON object: null'],
		[undefined, 'the response body is not a JSON object: undefined'],
		['isRegistered', 'the response body is not a JSON object: "isRegistered"'],
		[[[registered]], `the response body is not a JSON object: ${JSON.stringify([[registered]])}`],
		[{ data: {} }, "field 'isRegistered' is missing: expected true or false"],
	])('what holds no record is said as before: %p', (body, problem) => {
		expect(checkCompanyRecord(body)).toEqual({ valid: false, problem });
	});

	it('a record with a field of its own that looks like a record is the record', () => {
		const record = { ...registered, parent: { isRegistered: true } };
		expect(checkCompanyRecord(record)).toEqual({ valid: true, record });
	});
});

describe('company record check, fields a registry adds', () => {
	it('keeps a field named __proto__ as the field it is in the answer, not as the record’s prototype', () => {
		const body = JSON.parse(
			`{"isRegistered":true,"officialName":"Proto Ltd","status":"Active","registrationDate":"2001-02-03","__proto__":{"polluted":true}}`,
		) as object;
		const check = checkCompanyRecord(body);
		if (!check.valid) throw new Error(check.problem);
		expect(Object.getPrototypeOf(check.record)).toBe(Object.prototype);
		expect(Object.keys(check.record)).toEqual([
			'isRegistered',
			'officialName',
			'status',
			'registrationDate',
			'__proto__',
		]);
		expect(Object.getOwnPropertyDescriptor(check.record, '__proto__')?.value).toEqual({
			polluted: true,
		});
	});
});
