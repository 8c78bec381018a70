import {
	createPrivateKey,
	createPublicKey,
	createSign,
	createVerify,
	generateKeyPairSync,
	randomBytes,
	type KeyObject,
} from 'node:crypto';

/** The claims the sandbox puts in an access token (public service notes, "Tokens"). */
interface AccessTokenClaims {
	iss: string;
	sub: string;
	aud: string;
	iat: number;
	exp: number;
	scope: string;
	gty: 'client-credentials';
	jti: string;
}

type TokenCheck = { valid: true; claims: AccessTokenClaims } | { valid: false; reason: string };

const base64url = (input: Buffer | string) => Buffer.from(input).toString('base64url');

let keyPair: { privateKey: KeyObject; publicKey: KeyObject } | undefined;

/**
 * The signing key: SANDBOX_SIGNING_KEY (a PKCS#8 PEM) when set, as the tests' jest setup sets it once for
 * every sandbox they start (making a key costs about a second of CPU); else one made at first use. Each
 * sandbox still has its own key id and live tokens, so it refuses another sandbox's tokens.
 */
function signingKeyPair(): { privateKey: KeyObject; publicKey: KeyObject } {
	if (!keyPair) {
		const shared = process.env.SANDBOX_SIGNING_KEY;
		const privateKey = shared ? createPrivateKey(shared) : undefined;
		keyPair = privateKey
			? { privateKey, publicKey: createPublicKey(privateKey) }
			: generateKeyPairSync('rsa', { modulusLength: 2048 });
	}
	return keyPair;
}

/** RS256 signer with a key pair made at start: tokens are real JWTs that any JWT library can read. */
export class TokenSigner {
	readonly kid = randomBytes(8).toString('hex');
	private readonly privateKey: KeyObject;
	private readonly publicKey: KeyObject;
	/** Signature checks are cached per token string: the RSA check is the costly part of a lookup. */
	private readonly verified = new Map<string, AccessTokenClaims>();

	constructor() {
		const { privateKey, publicKey } = signingKeyPair();
		this.privateKey = privateKey;
		this.publicKey = publicKey;
	}

	/** The public key as a JSON Web Key Set, as an OAuth server publishes it at /.well-known/jwks.json. */
	jwks(): { keys: Array<Record<string, unknown>> } {
		return {
			keys: [
				{ ...this.publicKey.export({ format: 'jwk' }), kid: this.kid, alg: 'RS256', use: 'sig' },
			],
		};
	}

	sign(claims: AccessTokenClaims): string {
		const header = base64url(JSON.stringify({ alg: 'RS256', typ: 'JWT', kid: this.kid }));
		const payload = base64url(JSON.stringify(claims));
		const signature = createSign('RSA-SHA256').update(`${header}.${payload}`).sign(this.privateKey);
		return `${header}.${payload}.${base64url(signature)}`;
	}

	/** Checks form, algorithm, key id and signature. Expiry, audience and revocation are the caller's. */
	verify(token: string): TokenCheck {
		const cached = this.verified.get(token);
		if (cached) return { valid: true, claims: cached };
		const parts = token.split('.');
		if (parts.length !== 3) return { valid: false, reason: 'The access token is not a JWT' };
		const [header, payload, signature] = parts;
		let parsedHeader: { alg?: string; kid?: string };
		let claims: AccessTokenClaims;
		try {
			parsedHeader = JSON.parse(Buffer.from(header, 'base64url').toString('utf8'));
			claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
		} catch {
			return { valid: false, reason: 'The access token is not a JWT' };
		}
		if (parsedHeader.alg !== 'RS256' || parsedHeader.kid !== this.kid) {
			return { valid: false, reason: 'The access token was not issued by this server' };
		}
		const signatureOk = createVerify('RSA-SHA256')
			.update(`${header}.${payload}`)
			.verify(this.publicKey, Buffer.from(signature, 'base64url'));
		if (!signatureOk) return { valid: false, reason: 'The access token signature is invalid' };
		if (this.verified.size > 10_000) this.verified.clear();
		this.verified.set(token, claims);
		return { valid: true, claims };
	}
}
