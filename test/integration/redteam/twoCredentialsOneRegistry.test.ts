import type { IncomingMessage } from 'node:http';

import type { INode, INodeParameters } from 'n8n-workflow';

import type { WorkflowFile } from '../../../harness/engine';
import { RateLimiter } from '../../../sandbox/limiters';
import { CREDENTIAL_ID, lookupWorkflow, REGISTRY_NODE, runRows } from '../../../harness/fixtures';
import { scriptedEngine } from '../../support/scriptedEngine';
import {
	bodyOf,
	GOOD_RECORD,
	json,
	scriptedRegistryEachTest,
	type ScriptedRegistry,
} from '../../support/scriptedRegistry';

// Red team: the node twice in one workflow (a sheet looked up for the company and again for its parent),
// on one credential or on two credentials for one registry (two accounts: a team's and a client's plan;
// or the same account saved twice). Walked: each lookup goes out on its own credential's token, never the
// other's (a token is its account's: the other's quota, the other's audit trail); one credential used by
// both nodes asks for one token; two credentials of one client share the rate limit the registry keeps per
// client, and two clients do not.

const OTHER_CREDENTIAL = 'company-registry-other';
const SECOND_NODE = 'Company Registry (parent)';

/** The sheet looked up by REGISTRY_NODE, and again by a second node (ids prefixed "P") on `credentialId`. */
function twoLookups(credentialId: string): WorkflowFile {
	const workflow = lookupWorkflow();
	const first = workflow.nodes.find((node) => node.name === REGISTRY_NODE)!;
	const second: INode = {
		...structuredClone(first),
		id: 'second-registry-node',
		name: SECOND_NODE,
		position: [240, 200],
		parameters: {
			...first.parameters,
			companyId: "={{ 'P' + $json.companyId }}",
		} as INodeParameters,
		credentials: { companyRegistryApi: { id: credentialId, name: credentialId } },
	};
	workflow.nodes.push(second);
	workflow.connections.Sheet.main[0]!.push({ node: SECOND_NODE, type: 'main', index: 0 });
	return workflow;
}

const ROWS = [
	{ country: 'de', companyId: 'HRB1' },
	{ country: 'de', companyId: 'HRB2' },
];

/** The client id a token request names. */
const clientIdOf = (request: IncomingMessage) =>
	String((JSON.parse(bodyOf(request)) as { client_id?: string }).client_id);

describe('the node twice in one workflow, on one registry', () => {
	let registry: ScriptedRegistry;
	/** The Authorization each lookup carried, by the company id it asked for. */
	let seen: Map<string, string>;
	scriptedRegistryEachTest(
		(started) => {
			registry = started;
			seen = new Map();
			registry.token = (request, response) => {
				const client = clientIdOf(request);
				json(response, 200, {
					access_token: `token-of-${client}`,
					token_type: 'Bearer',
					expires_in: 3600,
				});
			};
		},
		(request, response) => {
			seen.set(String(request.url).split('/').pop()!, String(request.headers.authorization));
			json(response, 200, GOOD_RECORD);
		},
	);

	it('on two credentials (two clients): each lookup carries its own credential’s token', async () => {
		const engine = scriptedEngine(registry, { clientId: 'team-client' });
		engine.saveCredential(OTHER_CREDENTIAL, {
			...engine.credentials.stored(CREDENTIAL_ID),
			clientId: 'parent-client',
			clientSecret: 'parent-secret',
		});
		const result = await engine.execute(twoLookups(OTHER_CREDENTIAL), { rows: ROWS });

		expect(result.outputOf(REGISTRY_NODE)[0]).toHaveLength(2);
		expect(result.outputOf(SECOND_NODE)[0]).toHaveLength(2);
		expect(Object.fromEntries(seen)).toEqual({
			HRB1: 'Bearer token-of-team-client',
			HRB2: 'Bearer token-of-team-client',
			PHRB1: 'Bearer token-of-parent-client',
			PHRB2: 'Bearer token-of-parent-client',
		});
		expect(registry.tokenRequests).toBe(2);
		expect(engine.credentials.stored(CREDENTIAL_ID)?.accessToken).toBe('token-of-team-client');
		expect(engine.credentials.stored(OTHER_CREDENTIAL)?.accessToken).toBe('token-of-parent-client');
	});

	it('on one credential: one token, fetched by the first node, used by both', async () => {
		const engine = scriptedEngine(registry, { clientId: 'team-client' });
		const result = await engine.execute(twoLookups(CREDENTIAL_ID), { rows: ROWS });

		expect(result.outputOf(SECOND_NODE)[0]).toHaveLength(2);
		expect(new Set(seen.values())).toEqual(new Set(['Bearer token-of-team-client']));
		expect(registry.tokenRequests).toBe(1);
	});
});

// The registry keeps its limit per client (a token bucket of 10 a second, burst 2, per client id). The
// first sheet learns it from its 429s; a second sheet on the same client learns nothing anew, whichever of
// the client's credentials it runs on (as Loop Over Items' batches share it: loopOverItems.test.ts).
describe('two credentials of one client, one after the other', () => {
	let registry: ScriptedRegistry;
	let limiter: RateLimiter;
	let refused: number;
	scriptedRegistryEachTest(
		(started) => {
			registry = started;
			limiter = new RateLimiter({ ratePerSecond: 10, burst: 2 });
			refused = 0;
		},
		(request, response) => {
			const client = String(request.headers.authorization);
			const decision = limiter.take(client);
			if (decision.allowed) return json(response, 200, GOOD_RECORD);
			refused += 1;
			json(response, 429, { message: 'Too Many Requests' }, { 'retry-after': '1' });
		},
	);

	const SHEET = Array.from({ length: 30 }, (_, index) => ({
		country: 'de',
		companyId: `HRB${index}`,
	}));

	it("share the client's limit: the second sheet meets far fewer refusals than the first", async () => {
		const engine = scriptedEngine(registry, { clientId: 'team-client' });
		engine.saveCredential(OTHER_CREDENTIAL, {
			...engine.credentials.stored(CREDENTIAL_ID),
			// The same account saved again (another name in n8n): its own token, the client's one limit.
			accessToken: '',
		});
		const first = await runRows(engine, SHEET, { onError: 'continueErrorOutput' });
		const refusedByFirst = refused;
		const workflow = lookupWorkflow();
		workflow.nodes.find((node) => node.name === REGISTRY_NODE)!.credentials = {
			companyRegistryApi: { id: OTHER_CREDENTIAL, name: OTHER_CREDENTIAL },
		};
		const second = await engine.execute(workflow, { rows: SHEET });

		expect(first.registered).toHaveLength(SHEET.length);
		expect(second.outputOf(REGISTRY_NODE)[0]).toHaveLength(SHEET.length);
		expect(registry.tokenRequests).toBe(2);
		expect(refusedByFirst).toBeGreaterThanOrEqual(3);
		// 19-20 refused the first sheet; the second meets 1-2 (its start against a bucket whose burst the
		// first's end left spent: how many depends on the machine's timing); a controller per execution, 18.
		expect(refused - refusedByFirst).toBeLessThanOrEqual(3);
	});
});
