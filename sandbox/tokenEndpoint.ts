import type { IncomingMessage, ServerResponse } from 'node:http';
import { randomUUID } from 'node:crypto';

import { chaosFailure } from './chaos';
import { HttpFailure, readBody, sendJson } from './http';
import type { TokenSigner } from './jwt';
import { redirectHeaders, type Behaviour, type SandboxCounters } from './state';

/** A client the token endpoint knows (interface document 2.3). */
export interface SandboxClient {
	clientId: string;
	clientSecret: string;
	/** Space-separated, as in the token response (2.4). */
	scope: string;
	/** Token lifetime in seconds; 2,592,000 (30 days) unless set (3.2). */
	expiresIn?: number;
}

interface TokenEndpointContext {
	clients: Map<string, SandboxClient>;
	signer: TokenSigner;
	/** Token ids still valid; revoking all tokens empties it. */
	liveTokenIds: Set<string>;
	counters: SandboxCounters;
	behaviour: Behaviour;
	origin: () => { baseUrl: string; audience: string };
	/** Every token issued, for tests that hunt for leaks. */
	issuedTokens?: string[];
}

/** POST /oauth/token: the client credentials grant of section 4.1. */
export function tokenEndpoint(context: TokenEndpointContext) {
	const { clients, signer, liveTokenIds, counters, behaviour } = context;
	return async function handleToken(
		request: IncomingMessage,
		response: ServerResponse,
	): Promise<void> {
		counters.tokenRequests += 1;
		const { redirect, echo, chaos } = behaviour;
		const misbehaviour = chaos?.draw('token', request.url ?? '');
		if (chaos && misbehaviour) {
			if (misbehaviour === 'echo-value' || misbehaviour === 'echo-key') {
				throw new HttpFailure(400, {
					error: 'invalid_request',
					error_description: `Could not process ${await readBody(request)}`,
				});
			}
			const failure = chaosFailure(misbehaviour, chaos, '/oauth/token');
			if (failure === 'reset') {
				request.socket.destroy();
				return;
			}
			if (failure) throw new HttpFailure(failure.status, failure.body, failure.headers);
		}
		if (redirect?.route === 'token') {
			sendJson(
				response,
				redirect.status,
				{ message: 'Moved' },
				redirectHeaders(redirect, request.url ?? '/'),
			);
			return;
		}
		if (request.method !== 'POST') {
			throw new HttpFailure(
				405,
				{ error: 'invalid_request', error_description: 'Use POST' },
				{ allow: 'POST' },
			);
		}
		const raw = await readBody(request);
		if (echo?.route === 'token') {
			// The raw body holds the client secret: this is the leak the node must redact.
			throw new HttpFailure(
				400,
				echo.field === 'error'
					? { error: `invalid_request: could not process ${raw}` }
					: {
							error: 'invalid_request',
							error_description: `The request could not be processed: ${raw}`,
						},
			);
		}
		const contentType = request.headers['content-type'] ?? '';
		let body: Record<string, unknown>;
		try {
			if (contentType.includes('application/x-www-form-urlencoded')) {
				body = Object.fromEntries(new URLSearchParams(raw));
			} else {
				const parsed: unknown = JSON.parse(raw);
				if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
					throw new Error('not an object');
				body = parsed as Record<string, unknown>;
			}
		} catch {
			throw new HttpFailure(400, {
				error: 'invalid_request',
				error_description: 'The request body must be a JSON object (section 4.1)',
			});
		}
		for (const field of ['grant_type', 'client_id', 'client_secret', 'audience']) {
			if (typeof body[field] !== 'string' || body[field] === '') {
				throw new HttpFailure(400, {
					error: 'invalid_request',
					error_description: `Missing required parameter: ${field}`,
				});
			}
		}
		if (body.grant_type !== 'client_credentials') {
			throw new HttpFailure(400, {
				error: 'unsupported_grant_type',
				error_description: 'Only the client_credentials grant is supported',
			});
		}
		const client = clients.get(body.client_id as string);
		if (!client || client.clientSecret !== body.client_secret) {
			// One answer for an unknown client and a wrong secret: no hint which one it was.
			throw new HttpFailure(401, {
				error: 'invalid_client',
				error_description: 'Client authentication failed',
			});
		}
		const { baseUrl, audience } = context.origin();
		if (body.audience !== audience) {
			throw new HttpFailure(403, {
				error: 'access_denied',
				error_description: `Service not enabled within domain: ${String(body.audience)}`,
			});
		}
		const now = Math.floor(Date.now() / 1000);
		const expiresIn = client.expiresIn ?? 2_592_000;
		const jti = randomUUID();
		liveTokenIds.add(jti);
		counters.tokensIssued += 1;
		const accessToken = signer.sign({
			iss: `${baseUrl}/`,
			sub: `${client.clientId}@clients`,
			aud: audience,
			iat: now,
			exp: now + expiresIn,
			scope: client.scope,
			gty: 'client-credentials',
			jti,
		});
		context.issuedTokens?.push(accessToken);
		sendJson(
			response,
			200,
			{
				access_token: accessToken,
				scope: client.scope,
				expires_in: expiresIn,
				token_type: 'Bearer',
			},
			{ 'cache-control': 'no-store', pragma: 'no-cache' },
		);
	};
}
