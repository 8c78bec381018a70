import { ANSWERS_KEPT_MS, AnsweredLookups, MAX_ANSWERS } from '../../nodes/shared/answeredLookups';
import type { CompanyRecord } from '../../nodes/shared/model/companyRecord';
import type { LookupKey } from '../../nodes/shared/model/lookupKey';
import { mulberry32 } from '../../sandbox/faults';

const keyOf = (index: number): LookupKey => ({
	countryCode: 'gb',
	companyId: String(10_000_000 + index),
});
const recordOf = (index: number, answer: number): CompanyRecord =>
	({
		isRegistered: true,
		officialName: `Company ${index} (answer ${answer})`,
		status: 'Active',
		registrationDate: '2020-01-01',
	}) as CompanyRecord;

describe("a node run's answers across the tries of Retry On Fail (injected clock)", () => {
	let now = 0;
	const clock = () => now;
	beforeEach(() => {
		now = 1_000_000;
	});

	it('a failed try hands its answers to the next try of the same node run, and only to it', () => {
		const nodeRun = [{}];
		const first = AnsweredLookups.forTry(nodeRun, 'credential', clock);
		first.remember(keyOf(1), recordOf(1, 1));
		first.keepForNextTry();
		now += 5_000;
		expect(AnsweredLookups.forTry([{}], 'credential', clock).recordFor(keyOf(1))).toBeUndefined();
		expect(
			AnsweredLookups.forTry(nodeRun, 'another credential', clock).recordFor(keyOf(1)),
		).toBeUndefined();
	});

	it(`nothing is reused more than ${ANSWERS_KEPT_MS / 1000} s after the failed try, nor after a try that answered every row`, () => {
		const late = [{}];
		const first = AnsweredLookups.forTry(late, 'credential', clock);
		first.remember(keyOf(1), recordOf(1, 1));
		first.keepForNextTry();
		now += ANSWERS_KEPT_MS + 1;
		expect(AnsweredLookups.forTry(late, 'credential', clock).recordFor(keyOf(1))).toBeUndefined();

		const done = [{}];
		const whole = AnsweredLookups.forTry(done, 'credential', clock);
		whole.remember(keyOf(2), recordOf(2, 1));
		whole.release();
		expect(AnsweredLookups.forTry(done, 'credential', clock).recordFor(keyOf(2))).toBeUndefined();
	});

	it(`keeps at most ${MAX_ANSWERS} answers per node run`, () => {
		const answers = AnsweredLookups.forTry([{}], 'credential', clock);
		for (let index = 0; index < MAX_ANSWERS + 10; index++)
			answers.remember(keyOf(index), recordOf(index, 1));
		expect(answers.size).toBe(MAX_ANSWERS);
	});

	// Generated histories: node runs of several executions and credentials take turns; each try answers
	// some keys and then fails or succeeds; time jumps by up to twice the keep time. A model of the rule
	// (an answer is reused only by a later try of the same node run, with the same credential, starting
	// within the keep time of a failed try, with every try between them failed) must agree at every step.
	it.each(Array.from({ length: 200 }, (_, seed) => seed))(
		'agrees with the rule over a generated history (seed %i)',
		(seed) => {
			const random = mulberry32(seed);
			const pick = <T>(list: T[]): T => list[Math.floor(random() * list.length)];
			const nodeRuns = Array.from({ length: 3 }, () => [{}]);
			const credentials = ['a', 'b'];
			const model = new Map<
				object,
				{ credential: string; keptUntil: number; records: Map<number, CompanyRecord> }
			>();
			const disagreements: string[] = [];
			for (let step = 0; step < 60; step++) {
				now += Math.floor(random() * (random() < 0.2 ? 2 * ANSWERS_KEPT_MS : 6_000));
				const nodeRun = pick(nodeRuns);
				const credential = random() < 0.9 ? credentials[0] : pick(credentials);
				const answers = AnsweredLookups.forTry(nodeRun, credential, clock);

				const earlier = model.get(nodeRun);
				const reusable =
					earlier && earlier.credential === credential && now <= earlier.keptUntil
						? earlier.records
						: new Map<number, CompanyRecord>();
				for (let index = 0; index < 12; index++) {
					if (answers.recordFor(keyOf(index)) !== reusable.get(index))
						disagreements.push(`step ${step}, key ${index}`);
				}

				const records = new Map(reusable);
				for (let index = 0; index < 12; index++) {
					if (random() < 0.3) {
						const record = recordOf(index, step);
						answers.remember(keyOf(index), record);
						records.set(index, record);
					}
				}
				if (random() < 0.7) {
					answers.keepForNextTry();
					model.set(nodeRun, { credential, keptUntil: now + ANSWERS_KEPT_MS, records });
				} else {
					answers.release();
					model.delete(nodeRun);
				}
			}
			expect(disagreements).toEqual([]);
		},
	);
});
