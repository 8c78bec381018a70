import { checkCompanyRecord } from '../../../nodes/shared/model/companyRecord';

const registered = {
	isRegistered: true,
	officialName: 'Müller & Söhne Präzisionsteile GmbH',
	status: 'Active',
	registrationDate: '1998-04-17',
	registeredAddress: 'Königstraße 12, 70173 Stuttgart',
};
const unregistered = {
	isRegistered: false,
	officialName: 'N/A',
	status: 'N/A',
	registrationDate: 'N/A',
	registeredAddress: 'N/A',
};

// Interface document section 2.1 and 4.2 rules 1 and 2.
describe('company record check', () => {
	it('accepts a registered company, with or without an address (2.1: "only sometimes available")', () => {
		expect(checkCompanyRecord(registered)).toEqual({ valid: true, record: registered });
		const { registeredAddress: _, ...withoutAddress } = registered;
		expect(checkCompanyRecord(withoutAddress).valid).toBe(true);
	});

	it('accepts an unknown company whose fields are all N/A (2.1 rule)', () => {
		expect(checkCompanyRecord(unregistered)).toEqual({ valid: true, record: unregistered });
	});

	it.each([['N/A'], ['n/a'], ['N.A.'], ['-'], ['—'], ['...'], [''], ['   ']])(
		'refuses a registered company whose official name is %p: a registered company has a name',
		(officialName) => {
			const check = checkCompanyRecord({ ...registered, officialName });
			expect(check).toEqual({
				valid: false,
				problem: `field 'officialName' is ${JSON.stringify(officialName)}: expected the official name, not blank or a placeholder such as 'N/A' or '-'`,
			});
		},
	);

	it.each([['N/A'], ['n/a'], ['-'], [' - ']])(
		'refuses a registered company whose address is %p: a register without one leaves the field out',
		(registeredAddress) => {
			const check = checkCompanyRecord({ ...registered, registeredAddress });
			expect(check).toEqual({
				valid: false,
				problem: `field 'registeredAddress' is ${JSON.stringify(registeredAddress)}: expected the address, or no registeredAddress when the register has none ('N/A' is for unregistered companies)`,
			});
		},
	);

	it.each([[''], ['   '], ['\n\t']])(
		'accepts a registered company whose address is blank (%p): no address, as one left out',
		(registeredAddress) => {
			expect(checkCompanyRecord({ ...registered, registeredAddress })).toEqual({
				valid: true,
				record: { ...registered, registeredAddress },
			});
		},
	);

	it.each([['I.M. Pei & Partners'], ['3M'], ['株式会社トヨタ'], ['NAB Ltd']])(
		'accepts a real name such as %p',
		(officialName) => {
			expect(checkCompanyRecord({ ...registered, officialName }).valid).toBe(true);
		},
	);

	it.each([['0000-01-01'], ['0001-01-01'], ['0999-12-31']])(
		'refuses %p as a date of first registration: a placeholder, not a date',
		(registrationDate) => {
			const check = checkCompanyRecord({ ...registered, registrationDate });
			expect(check).toEqual({
				valid: false,
				problem: `field 'registrationDate' is ${JSON.stringify(registrationDate)}: not a plausible date of first registration (before the year 1000)`,
			});
		},
	);

	it('refuses a date of first registration in the future; today (in any time zone) passes', () => {
		const now = Date.parse('2026-11-25T06:00:00Z');
		expect(checkCompanyRecord({ ...registered, registrationDate: '2999-12-31' }, now)).toEqual({
			valid: false,
			problem:
				'field \'registrationDate\' is "2999-12-31": a date of first registration cannot be in the future',
		});
		expect(checkCompanyRecord({ ...registered, registrationDate: '2026-11-28' }, now).valid).toBe(
			false,
		);
		expect(checkCompanyRecord({ ...registered, registrationDate: '2026-11-26' }, now).valid).toBe(
			true,
		);
		expect(checkCompanyRecord({ ...registered, registrationDate: '1602-03-20' }, now).valid).toBe(
			true,
		);
	});

	it('keeps fields a later API version adds (9.2)', () => {
		const check = checkCompanyRecord({ ...registered, legalForm: 'GmbH' });
		expect(check.valid && check.record).toMatchObject({ legalForm: 'GmbH' });
	});

	it.each([
		[
			{ ...registered, status: 'Dissolved' },
			'field \'status\' is "Dissolved": expected Active or Inactive',
		],
		[{ ...registered, status: 'N/A' }, 'field \'status\' is "N/A": expected Active or Inactive'],
		[
			{ ...registered, registrationDate: '17/04/1998' },
			'field \'registrationDate\' is "17/04/1998": expected a date in the form yyyy-mm-dd',
		],
		[
			{ ...registered, registrationDate: '1998-02-30' },
			'field \'registrationDate\' is "1998-02-30": not a calendar date',
		],
		[{ ...registered, officialName: undefined }, "field 'officialName' is missing"],
		[
			{ ...unregistered, status: 'Active' },
			"field 'status' is \"Active\": expected 'N/A' because isRegistered is false",
		],
		[
			{ ...unregistered, officialName: '' },
			"field 'officialName' is \"\": expected 'N/A' because isRegistered is false",
		],
		[
			{ ...registered, isRegistered: 'yes' },
			'field \'isRegistered\' is "yes": expected true or false',
		],
		[{ officialName: 'x' }, "field 'isRegistered' is missing"],
	])('names the field and value that break the contract: %j', (body, problem) => {
		const check = checkCompanyRecord(body);
		expect(check.valid).toBe(false);
		expect(!check.valid && check.problem).toContain(problem);
	});

	it.each([
		['{"isRegistered": tru', 'the response body is not a JSON object: "{\\"isRegistered\\": tru"'],
		[null, 'the response body is not a JSON object: null'],
		[[registered], 'the response body is not a JSON object'],
	])('rejects a body that is not a JSON object: %p', (body, problem) => {
		const check = checkCompanyRecord(body);
		expect(!check.valid && check.problem).toContain(problem);
	});
});
