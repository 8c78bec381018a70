import { z } from 'zod';

/** The literal that stands in for every field of an unregistered company (section 2.1 "Company record", rule). */
export const NOT_AVAILABLE = 'N/A';

const DATE_FORM = /^\d{4}-\d{2}-\d{2}$/;

const calendarDate = z
	.string()
	.regex(DATE_FORM, 'expected a date in the form yyyy-mm-dd')
	.refine((value) => {
		// zod runs this even when the pattern failed: then the pattern's message is the one to show. A value
		// of the right form that no calendar has (month 13, 30 February) is refused here.
		if (!DATE_FORM.test(value)) return true;
		const time = Date.parse(`${value}T00:00:00Z`);
		return !Number.isNaN(time) && new Date(time).toISOString().startsWith(value);
	}, 'not a calendar date');

/**
 * The year before which a "date of first registration" is a placeholder (0000-01-01, 0001-01-01 are
 * systems' minimum dates), not a date: the oldest registered companies date from centuries later.
 */
const EARLIEST_YEAR = 1000;

/** Section 2.1: "date of first registration", a real calendar date, not a systems' minimum date. */
const registrationDate = calendarDate.refine(
	(value) => !/^\d{4}/.test(value) || Number(value.slice(0, 4)) >= EARLIEST_YEAR,
	`not a plausible date of first registration (before the year ${EARLIEST_YEAR})`,
);

/** "N/A" as registries write it: n/a, NA, N.A., N / A. */
const NOT_AVAILABLE_FORMS = /^n\.?\s*\/?\s*a\.?$/i;

/** Empty, or white space only. */
export const isBlank = (text: string): boolean => text.trim() === '';

/** Blank, a not-available form, or no letter or digit at all ("-", "—", "..."): no value. */
function isPlaceholder(text: string): boolean {
	// Blank has no letter or digit either.
	const trimmed = text.trim();
	return NOT_AVAILABLE_FORMS.test(trimmed) || !/[\p{L}\p{N}]/u.test(trimmed);
}

/**
 * The most characters of an official name or an address: six times the longest name a register allows
 * (Companies House: 160). Bounded because every row carries them on, and a watch keeps both in n8n's
 * database for each company it watches.
 */
export const MAX_TEXT_CHARS = 1_000;
const tooLong = `longer than ${MAX_TEXT_CHARS} characters, which no register gives`;

/** Sections 2.1 "Company record" and 4.2 "Look up a company", rule 1: a registered company. Fields the API may add later pass through. */
export const registeredCompanySchema = z
	.object({
		isRegistered: z.literal(true),
		// A registered company has a name: blank or a placeholder means a broken record.
		officialName: z
			.string()
			.max(MAX_TEXT_CHARS, tooLong)
			.refine(
				(name) => !isPlaceholder(name),
				`expected the official name, not blank or a placeholder such as '${NOT_AVAILABLE}' or '-'`,
			),
		status: z.enum(['Active', 'Inactive']),
		registrationDate,
		// "Only sometimes available": a register without one leaves the field out (4.2 rule 1), or writes it
		// blank (as a service writes an absent text that has no omitempty): no address. A placeholder with
		// text ('N/A', '-') is a broken record, not a missing address.
		registeredAddress: z
			.string()
			.max(MAX_TEXT_CHARS, tooLong)
			.refine(
				(address) => isBlank(address) || !isPlaceholder(address),
				`expected the address, or no registeredAddress when the register has none ('${NOT_AVAILABLE}' is for unregistered companies)`,
			)
			.optional(),
	})
	.passthrough();

/**
 * Section 2.1 "Company record", rule, and 4.2 "Look up a company", rule 2: an unknown company carries `N/A` in the four other fields.
 * registeredAddress may also be absent, as it is "only sometimes available".
 */
export const unregisteredCompanySchema = z
	.object({
		isRegistered: z.literal(false),
		officialName: z.literal(NOT_AVAILABLE),
		status: z.literal(NOT_AVAILABLE),
		registrationDate: z.literal(NOT_AVAILABLE),
		registeredAddress: z.literal(NOT_AVAILABLE).optional(),
	})
	.passthrough();

export const companyRecordSchema = z.discriminatedUnion('isRegistered', [
	registeredCompanySchema,
	unregisteredCompanySchema,
]);

export type CompanyRecord = z.infer<typeof companyRecordSchema>;
export type RegisteredCompany = z.infer<typeof registeredCompanySchema>;

export type RecordCheck =
	| { valid: true; record: CompanyRecord }
	| { valid: false; problem: string };

/** A registry a day ahead of UTC (UTC+14) may already list today's registrations under tomorrow. */
const DAY_MS = 86_400_000;

/**
 * Checks a lookup response against section 2.1 "Company record" and says which field broke the
 * contract, and how. `now` is the clock a date of first registration may not be after.
 */
export function checkCompanyRecord(body: unknown, now: number = Date.now()): RecordCheck {
	// A gateway's or another API's shapes around a record: said as such, not as a missing field.
	if (Array.isArray(body) && body.some(holdsRecord))
		return {
			valid: false,
			problem: `the response body is not a JSON object but a list of ${body.length}: a lookup answers one company record (section 2.1)`,
		};
	const wrapper =
		holdsRecord(body) || typeof body !== 'object' || body === null
			? undefined
			: Object.entries(body).find(([, value]) => holdsRecord(value));
	if (wrapper)
		return {
			valid: false,
			problem: `the record is under field '${wrapper[0]}', not at the top level of the answer (section 2.1)`,
		};
	if (typeof body !== 'object' || body === null || Array.isArray(body)) {
		const shown = typeof body === 'string' ? truncate(body) : JSON.stringify(body);
		return { valid: false, problem: `the response body is not a JSON object: ${shown}` };
	}
	const deep = Object.entries(body).find(([, value]) => nestingDepth(value) > MAX_NESTING);
	if (deep) {
		return {
			valid: false,
			problem: `field '${deep[0]}' nests deeper than ${MAX_NESTING} levels, which no company record does`,
		};
	}
	const parsed = companyRecordSchema.safeParse(body);
	if (parsed.success) {
		const record = parsed.data;
		if (record.isRegistered && Date.parse(`${record.registrationDate}T00:00:00Z`) > now + DAY_MS) {
			return {
				valid: false,
				problem: `field 'registrationDate' is ${JSON.stringify(record.registrationDate)}: a date of first registration cannot be in the future`,
			};
		}
		// The answer itself, not zod's copy of it: zod copies fields by assignment, and a field named
		// `__proto__` became the copy's prototype instead of a field (lookupPipeline moves it aside).
		return { valid: true, record: body as CompanyRecord };
	}
	// The body is an object and the record flat: every issue names one top-level field.
	const issue = parsed.error.issues[0];
	const field = String(issue.path[0]);
	const value = (body as Record<string, unknown>)[field];
	const shownValue =
		value === undefined
			? 'missing'
			: typeof value === 'string' && value.length > 80
				? `${truncate(value)} (${value.length} characters)`
				: JSON.stringify(value);
	return { valid: false, problem: `field '${field}' is ${shownValue}: ${describeIssue(issue)}` };
}

/** An object with the record's first field: a record, wherever it is. */
const holdsRecord = (value: unknown) =>
	typeof value === 'object' && value !== null && !Array.isArray(value) && 'isRegistered' in value;

/**
 * The deepest a field a registry adds may nest. Records are flat; a field nested thousands of levels deep
 * (64 KB of `[[[…]]]`) would overflow the stack of whatever walks it next: the secrets' removal, n8n.
 */
const MAX_NESTING = 32;

/** How deep `value` nests, counted only up to just past MAX_NESTING, so the count itself cannot overflow. */
function nestingDepth(value: unknown, depth = 0): number {
	if (typeof value !== 'object' || value === null || depth > MAX_NESTING) return depth;
	let deepest = depth + 1;
	for (const entry of Object.values(value)) {
		deepest = Math.max(deepest, nestingDepth(entry, depth + 1));
		if (deepest > MAX_NESTING) break;
	}
	return deepest;
}

function describeIssue(issue: z.ZodIssue): string {
	if (issue.code === 'invalid_enum_value') return `expected ${issue.options.join(' or ')}`;
	if (issue.code === 'invalid_union_discriminator') return 'expected true or false';
	// The discriminator picks the schema, so only an unregistered company's N/A literals can differ.
	if (issue.code === 'invalid_literal')
		return `expected '${NOT_AVAILABLE}' because isRegistered is false`;
	return issue.message;
}

function truncate(text: string): string {
	return JSON.stringify(text.length > 80 ? `${text.slice(0, 80)}…` : text);
}
