import type { IncomingMessage, ServerResponse } from 'node:http';

import { COUNTRIES, US_STATES } from '../nodes/shared/model/countries.generated';
import { chaosFailure, sendChaos200, sendOversized } from './chaos';
import { FAULT_IDS, type FaultDice, type FaultId } from './faults';
import { HttpFailure, sendJson, sleep, trickleJson } from './http';
import type { TokenSigner } from './jwt';
import type { RateDecision, RateLimiter } from './limiters';
import type { Registry, StoredCompany } from './registry';
import { redirectHeaders, retryAfterHeader, type Behaviour } from './state';

const COUNTRY_CODES = new Set(COUNTRIES.map((country) => country.code));
const US_STATE_CODES = new Set(US_STATES.map((state) => state.code));

/**
 * Allowed company ids (our documented choice): 1 to 40 characters of ASCII letters, digits, spaces,
 * `.`, `-` and `/`, starting and ending with a letter or digit, without `..` or `//`.
 */
const COMPANY_ID = /^(?!.*(\.\.|\/\/))[A-Za-z0-9](?:[A-Za-z0-9 .\-/]{0,38}[A-Za-z0-9])?$/;
/** languageCode: a BCP 47 primary language subtag, optionally with a region (`en`, `pt-BR`). */
const LANGUAGE_CODE = /^[a-z]{2,3}(?:-[A-Za-z0-9]{2,8})?$/;
const RATE_LIMIT_MESSAGE = 'Rate limit exceeded. Please wait and try again later.';
export const LOOKUP_PATH = /^\/v1\/company\/([^/]*)\/([^/]*)$/;

const invalidInput = (message: string) =>
	new HttpFailure(400, { error: 'InvalidInputException', message });

/** The record of section 2.1 for a registered company, in the language asked for where it has one. */
function registeredRecord(company: StoredCompany, languageCode: string | undefined) {
	const translation = languageCode
		? (company.translations?.[languageCode] ?? company.translations?.[languageCode.split('-')[0]])
		: undefined;
	const registeredAddress = translation?.registeredAddress ?? company.registeredAddress;
	return {
		isRegistered: true,
		officialName: translation?.officialName ?? company.officialName,
		status: company.status,
		registrationDate: company.registrationDate,
		...(registeredAddress !== undefined ? { registeredAddress } : {}),
	};
}

/** Rule 2.1: an unknown company carries the literal `N/A` in the four other fields. */
const NOT_REGISTERED = {
	isRegistered: false,
	officialName: 'N/A',
	status: 'N/A',
	registrationDate: 'N/A',
	registeredAddress: 'N/A',
} as const;

/** The record that contract-breaking and echoing faults distort: the documented German example. */
const example = (registry: Registry) =>
	registeredRecord(registry.find('de', 'HRB12345') as StoredCompany, undefined);

const ECHO_ERRORS: Record<number, string | undefined> = {
	400: 'InvalidInputException',
	403: 'AccessDeniedException',
	418: undefined,
	500: 'InternalFailureException',
};

interface LookupEndpointContext {
	signer: TokenSigner;
	liveTokenIds: Set<string>;
	registry: Registry;
	limiter: RateLimiter;
	dice: FaultDice;
	behaviour: Behaviour;
	origin: () => { audience: string };
	countLookup: (status: number) => void;
}

/** GET /v1/company/{countryCode}/{companyId}: sections 2.1, 2.2, 4.2, 5 and 7, plus the faults tests ask for. */
export function lookupEndpoint(context: LookupEndpointContext) {
	const { signer, liveTokenIds, registry, limiter, dice, behaviour, countLookup } = context;

	function authorize(request: IncomingMessage) {
		const header = request.headers.authorization;
		const match = header ? /^Bearer ([^\s]+)$/i.exec(header) : null;
		if (!match) {
			// RFC 6750 3.1: a request with no credentials gets a challenge without an error code.
			throw new HttpFailure(
				401,
				{ error: 'UnauthorizedException', message: 'A Bearer access token is required' },
				{ 'www-authenticate': 'Bearer realm="company-registry"' },
			);
		}
		const check = signer.verify(match[1]);
		if (!check.valid) throw invalidToken(check.reason);
		const { claims } = check;
		if (claims.exp <= Date.now() / 1000) throw invalidToken('The access token expired');
		if (claims.aud !== context.origin().audience)
			throw invalidToken('The access token is for another audience');
		if (!liveTokenIds.has(claims.jti)) throw invalidToken('The access token was revoked');
		return claims;
	}

	function invalidToken(reason: string) {
		return new HttpFailure(
			401,
			{ error: 'UnauthorizedException', message: reason },
			{
				'www-authenticate': `Bearer realm="company-registry", error="invalid_token", error_description="${reason}"`,
			},
		);
	}

	/** X-RateLimit-* of a decision, as the header mode allows on this kind of answer. */
	function rateHeaders(
		decision: Pick<RateDecision, 'limit' | 'remaining' | 'resetSeconds'>,
		limited: boolean,
	): Record<string, string> {
		const mode = behaviour.rateLimitHeaders;
		if (mode === 'none' || (mode === '429-only' && !limited)) return {};
		return {
			'x-ratelimit-limit': String(decision.limit),
			'x-ratelimit-remaining': String(decision.remaining),
			'x-ratelimit-reset': String(decision.resetSeconds),
		};
	}

	function rateLimited(decision: {
		retryAfterSeconds: number;
		limit: number;
		resetSeconds: number;
	}): HttpFailure {
		const retryAfter =
			behaviour.retryAfterOverride !== undefined
				? { 'retry-after': behaviour.retryAfterOverride }
				: behaviour.rateLimitHeaders === 'none'
					? {}
					: retryAfterHeader(behaviour.retryAfterFormat, decision.retryAfterSeconds);
		return new HttpFailure(
			429,
			{ message: RATE_LIMIT_MESSAGE },
			{ ...retryAfter, ...rateHeaders({ ...decision, remaining: 0 }, true) },
		);
	}

	/** Answers as an echoing service would; true when it has answered (200), throws for error echoes. */
	function echoed(request: IncomingMessage, response: ServerResponse): boolean {
		const echo = behaviour.echo;
		if (echo?.route !== 'lookup') return false;
		const authorization = request.headers.authorization ?? '';
		if (echo.status === 200) {
			countLookup(200);
			sendJson(response, 200, { ...example(registry), status: authorization });
			return true;
		}
		if ('messageBytes' in echo) {
			const filler = Math.max(0, echo.messageBytes - Buffer.byteLength(authorization));
			const message =
				'x'.repeat(Math.floor(filler / 2)) + authorization + 'x'.repeat(Math.ceil(filler / 2));
			throw new HttpFailure(400, { error: 'InvalidInputException', message });
		}
		const error = ECHO_ERRORS[echo.status];
		throw new HttpFailure(echo.status, {
			...(error ? { error } : {}),
			message: `The request with Authorization: ${authorization} could not be processed`,
		});
	}

	return async function handleLookup(
		request: IncomingMessage,
		response: ServerResponse,
		url: URL,
		match: RegExpExecArray,
	): Promise<void> {
		const target = request.url ?? '';
		if (behaviour.down === '503') throw new HttpFailure(503, { message: 'Service Unavailable' });
		const chaos = behaviour.chaos;
		const misbehaviour = chaos?.draw('lookup', target);
		if (chaos && misbehaviour) {
			const failure = chaosFailure(misbehaviour, chaos, target);
			if (failure === 'reset') {
				countLookup(0);
				request.socket.destroy();
				return;
			}
			if (failure) throw new HttpFailure(failure.status, failure.body, failure.headers);
			if (misbehaviour === '401') throw invalidToken('The access token was revoked');
		}
		const redirect = behaviour.redirect;
		if (redirect?.route === 'lookup')
			throw new HttpFailure(
				redirect.status,
				{ message: 'Moved' },
				redirectHeaders(redirect, target),
			);
		if (request.method !== 'GET') {
			throw new HttpFailure(
				405,
				{ error: 'MethodNotAllowedException', message: 'Use GET' },
				{ allow: 'GET' },
			);
		}
		if (echoed(request, response)) return;
		if (behaviour.permanent401) throw invalidToken('The access token is invalid');
		const claims = authorize(request);
		const scopes = claims.scope.split(' ');
		if (!scopes.includes('read:company')) {
			throw new HttpFailure(403, {
				error: 'AccessDeniedException',
				message: `The token's scope does not include read:company (granted: ${claims.scope}); the plan must include company data`,
			});
		}
		const clientId = claims.sub.replace(/@clients$/, '');
		const decision = limiter.take(clientId);
		if (!decision.allowed) throw rateLimited(decision);
		const okHeaders = rateHeaders(decision, false);

		const { faults } = behaviour;
		const delay = faults.latencyMs + (faults.jitterMs > 0 ? dice.random() * faults.jitterMs : 0);
		if (delay > 0) await sleep(delay);

		let countryCode: string;
		let companyId: string;
		try {
			countryCode = decodeURIComponent(match[1]);
			companyId = decodeURIComponent(match[2]);
		} catch {
			throw invalidInput('The path is not correctly percent-encoded');
		}
		if (!COUNTRY_CODES.has(countryCode)) {
			throw invalidInput(
				`countryCode '${countryCode}' is not an assigned ISO 3166-1 alpha-2 code in lowercase (section 2.2)`,
			);
		}
		if (!COMPANY_ID.test(companyId)) {
			throw invalidInput(
				'companyId has invalid characters or length: allowed are 1 to 40 letters, digits, spaces, ".", "-" and "/", starting and ending with a letter or digit',
			);
		}
		const stateCode = url.searchParams.get('stateCode') ?? undefined;
		if (countryCode === 'us') {
			if (!stateCode)
				throw invalidInput("stateCode is required when countryCode is 'us' (section 2.2)");
			if (!US_STATE_CODES.has(stateCode))
				throw invalidInput(`stateCode '${stateCode}' is not a lowercase ISO 3166-2 US state code`);
		}
		const languageCode = url.searchParams.get('languageCode') ?? undefined;
		if (languageCode !== undefined && !LANGUAGE_CODE.test(languageCode)) {
			throw invalidInput(
				`languageCode '${languageCode}' is not a language code such as 'en' or 'pt-BR'`,
			);
		}

		const reserved = countryCode === 'de' ? (companyId.toUpperCase() as FaultId) : undefined;
		const fault = reserved && reserved in FAULT_IDS ? reserved : undefined;
		const rolled = dice.roll(faults, target);
		const diceFault = fault ? undefined : (behaviour.companyFaults.get(url.pathname) ?? rolled);
		const send200 = async (body: unknown) => {
			countLookup(200);
			if (
				chaos &&
				(await sendChaos200(
					misbehaviour,
					chaos,
					request,
					response,
					body as Record<string, unknown>,
					okHeaders,
				))
			)
				return;
			if (faults.trickleMs) await trickleJson(response, 200, body, okHeaders, faults.trickleMs);
			else sendJson(response, 200, body, okHeaders);
		};

		if (fault === 'HRB99500' || diceFault === '500') {
			throw new HttpFailure(500, {
				error: 'InternalFailureException',
				message: 'The service could not process the request',
			});
		}
		if (diceFault === '502') throw new HttpFailure(502, { message: 'Bad Gateway' });
		if (diceFault === '503')
			throw new HttpFailure(
				503,
				{ message: 'Service Unavailable' },
				retryAfterHeader(behaviour.retryAfterFormat, 1),
			);
		if (fault === 'HRB99504' || diceFault === '504')
			throw new HttpFailure(504, { message: 'Gateway Timeout' });
		if (fault === 'HRB99429')
			throw rateLimited({ retryAfterSeconds: 1, limit: decision.limit, resetSeconds: 1 });
		if (fault === 'HRB99403')
			throw new HttpFailure(403, {
				error: 'AccessDeniedException',
				message: 'The plan does not cover this lookup',
			});
		if (fault === 'HRB99404')
			throw new HttpFailure(404, { error: 'NotFoundException', message: 'Not Found' });
		if (fault === 'HRB99418') throw new HttpFailure(418, { message: "I'm a teapot" });
		if (fault === 'HRB99901' || diceFault === 'drop') {
			countLookup(0);
			request.socket.destroy();
			return;
		}
		if (fault === 'HRB99902' || diceFault === 'malformed') {
			countLookup(200);
			response.writeHead(200, { 'content-type': 'application/json; charset=utf-8', ...okHeaders });
			response.end('{"isRegistered": true, "officialName": "Trunc');
			return;
		}
		if (fault === 'HRB99903' || diceFault === 'status')
			return await send200({ ...example(registry), status: 'Dissolved' });
		if (fault === 'HRB99904' || diceFault === 'date')
			return await send200({ ...example(registry), registrationDate: '17/04/1998' });
		if (fault === 'HRB99905' || diceFault === 'timeout') await sleep(faults.slowMs);

		const company = registry.find(countryCode, companyId, stateCode);
		const record = company ? registeredRecord(company, languageCode) : NOT_REGISTERED;
		if (diceFault === 'oversized' || diceFault === 'gzip-bomb') {
			countLookup(200);
			sendOversized(diceFault, response, record, okHeaders);
			return;
		}
		await send200(record);
	};
}
