import type { ICredentialDataDecryptedObject, IHttpRequestHelper } from 'n8n-workflow';

export const withoutTrailingSlashes = (url: string) => url.trim().replace(/\/+$/, '');

/** `{Base URL}/v1/` with exactly one slash between the parts ("Token request"), unless the user set one. */
export function audienceFor(credentials: ICredentialDataDecryptedObject): string {
	const audience = String(credentials.audience ?? '').trim();
	return audience !== '' ? audience : `${withoutTrailingSlashes(String(credentials.baseUrl))}/v1/`;
}

/** A token's claims (its JWT payload), read, never verified; undefined for an opaque token. */
export function claimsOf(token: unknown): Record<string, unknown> | undefined {
	try {
		const payload = String(token ?? '').split('.')[1] ?? '';
		const claims: unknown = JSON.parse(atob(payload.replace(/-/g, '+').replace(/_/g, '/')));
		return typeof claims === 'object' && claims !== null && !Array.isArray(claims)
			? (claims as Record<string, unknown>)
			: undefined;
	} catch {
		return undefined;
	}
}

/**
 * The origin of an address a token can be sent to; none for a name. `urn:...`, `api://...` (Azure's
 * audiences) and the like have the origin "null", a bare name or GUID none: such an audience cannot tell.
 */
const originOf = (url: string) => {
	try {
		const { origin } = new URL(url);
		return origin === 'null' ? undefined : origin;
	} catch {
		return undefined;
	}
};

/**
 * What a token is asked for, stored beside it (the credential's hidden Token Issued for): the origin the
 * lookups send it to, the audience requested and the client it was issued to (another Client ID is another
 * account, whose lookups must not go out on the first one's token). A token is sent only while the
 * credential names all three.
 */
export function tokenIssuedFor(credentials: ICredentialDataDecryptedObject): string {
	const baseUrl = withoutTrailingSlashes(String(credentials.baseUrl));
	const clientId = String(credentials.clientId ?? '').trim();
	return JSON.stringify([originOf(baseUrl) ?? baseUrl, audienceFor(credentials), clientId]);
}

/**
 * The credential with its stored token only if that token was issued for the registry it names now.
 * n8n keeps the hidden token when a user edits the credential: after a change of Base URL it would go to
 * the new registry. A token is kept while its Token Issued for matches the credential; one stored before
 * that field existed (it is '') is judged by its `aud`: one naming only addresses of another origin is
 * left out, so n8n fetches one first; an opaque token, or one naming no address (`urn:...`, a name),
 * cannot tell and is kept until n8n next fetches one, which stores the field.
 */
export function withTokenForItsRegistry(
	credentials: ICredentialDataDecryptedObject,
): ICredentialDataDecryptedObject {
	const withoutToken = { ...credentials, accessToken: '' };
	const issuedFor = String(credentials.tokenIssuedFor ?? '');
	if (issuedFor !== '')
		return issuedFor === tokenIssuedFor(credentials) ? credentials : withoutToken;
	const audiences = claimsOf(credentials.accessToken)?.aud;
	const named = (Array.isArray(audiences) ? audiences : [audiences]).filter(
		(audience): audience is string => typeof audience === 'string',
	);
	if (named.length === 0) return credentials;
	const audience = audienceFor(credentials);
	const fits = named.some((issued) => {
		const origin = originOf(issued);
		return origin === undefined || origin === originOf(audience);
	});
	return fits ? credentials : withoutToken;
}

/**
 * n8n hands the credential's token exchange only `helpers`, with no cancel signal: registryRequest.ts
 * sets the lookup's on them under this name, so that the exchange's waits between tries end with the
 * lookup (its Request Timeout passed, the execution stopped), as its requests do.
 */
export const LOOKUP_CANCEL_SIGNAL = 'lookupCancelSignal';

/** The lookup's cancel signal the token exchange was handed; none for the credential's Test. */
export function lookupCancelSignalOf(helper: IHttpRequestHelper): AbortSignal | undefined {
	const signal: unknown = (helper.helpers as Record<string, unknown>)[LOOKUP_CANCEL_SIGNAL];
	return signal instanceof AbortSignal ? signal : undefined;
}
