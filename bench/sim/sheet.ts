import type { LookupKey } from '../../nodes/shared/model/lookupKey';
import {
	runBatch,
	type BatchSettings,
	type LookupOutcome,
} from '../../nodes/shared/transport/batchRunner';
import type { RegistryRequest } from '../../nodes/shared/transport/registryRequest';
import { seededRandom } from './random';
import type { VirtualClock } from './virtualClock';

/** The node's defaults (descriptions.ts / lookupPipeline.ts) for what the batch runner takes. */
export const NODE_DEFAULTS = {
	maxConcurrency: 20,
	maxRateLimitWaitMs: 60_000,
	maxAttempts: 3,
} as const;

export interface SheetResult {
	/** Virtual ms from the start of the run to its last outcome. */
	ms: number;
	/** What each row got: 'record', 'cancelled', or the failure's kind. */
	rows: string[];
	/** Each failed row's failure, for messages. */
	outcomes: LookupOutcome[];
}

/** `rows` distinct lookups through the real batch runner, as one execution of one process, on `clock`; retry jitter from `random`. */
export async function runSheet(
	clock: VirtualClock,
	request: RegistryRequest,
	rows: number,
	{
		process = 'p0',
		execution = 0,
		tokenWasStored = true,
		settings = {},
		random = seededRandom(7),
	}: {
		process?: string;
		execution?: number;
		tokenWasStored?: boolean;
		settings?: Partial<BatchSettings>;
		random?: () => number;
	} = {},
): Promise<SheetResult> {
	const startedAt = clock.now();
	const key = (index: number): LookupKey => ({
		countryCode: 'de',
		companyId: `${process}-${execution}-${index}`,
	});
	const outcomes = (await runBatch(
		rows,
		key,
		// One controller per process: a process is its own registryKey here.
		{ registryKey: `sim ${process}`, ...NODE_DEFAULTS, ...settings },
		{
			request,
			tokenWasStored,
			clock,
			random,
			grantedScopes: async () => undefined,
			reloadCredential: async () => {},
		},
		{ stopAtFirstFailure: false },
	)) as LookupOutcome[];
	return {
		ms: clock.now() - startedAt,
		rows: outcomes.map((outcome) =>
			outcome.kind === 'failed' ? outcome.failure.kind : outcome.kind,
		),
		outcomes,
	};
}
