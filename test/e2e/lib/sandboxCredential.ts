// The Company Registry credential for the sandbox's demo client, as every end-to-end check gives it to n8n.
import { DEMO_CLIENT, type Sandbox } from '../../../sandbox/server';
import type { CredentialRef } from './workflows';

type Endpoints = Pick<Sandbox, 'baseUrl' | 'authUrl'>;

/** The credential's fields; `clientSecret` another to see it refused. */
export function sandboxCredentialData(sandbox: Endpoints, clientSecret = DEMO_CLIENT.clientSecret) {
	return {
		clientId: DEMO_CLIENT.clientId,
		clientSecret,
		baseUrl: sandbox.baseUrl,
		authUrl: sandbox.authUrl,
	};
}

/** The credential as `n8n import:credentials` reads it. */
export function sandboxCredential(
	{ id, name }: CredentialRef,
	sandbox: Endpoints,
	clientSecret = DEMO_CLIENT.clientSecret,
) {
	return {
		id,
		name,
		type: 'companyRegistryApi',
		data: sandboxCredentialData(sandbox, clientSecret),
	};
}
