import { createPublicKey } from 'node:crypto';
import { createRemoteJWKSet, importSPKI, type JWTPayload, type JWTVerifyGetKey, jwtVerify } from 'jose';
import { ConfigurationError } from '../errors/configuration-error.js';
import { RETRY_AFTER_SECONDS } from '../errors/refusal.js';
import { RequestError } from '../errors/request-error.js';
import type { ContextRequest } from '../resource/policy.js';

/** How bearer tokens are verified: one of `secret`, `publicKey` or `jwksUrl`. */
export interface BearerOptions {
  /** HS256/384/512 shared secret. */
  secret?: string;
  /** An RS/PS/ES public key, PEM (SPKI), with its `algorithm` (default RS256). */
  publicKey?: string;
  algorithm?: string;
  /** A JWKS document's URL (the identity provider's keys, fetched and cached by jose). */
  jwksUrl?: string;
  /** When set, the token's `iss` / `aud` must match. */
  issuer?: string;
  audience?: string;
}

const hmac = ['HS256', 'HS384', 'HS512'];
const asymmetric = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA'];

/** The verification settings from the environment (`AUTH_JWT_*`), or undefined when none is set. */
export function bearerOptionsFrom(env: NodeJS.ProcessEnv): BearerOptions | undefined {
  const options: BearerOptions = {
    secret: env.AUTH_JWT_SECRET || undefined,
    publicKey: env.AUTH_JWT_PUBLIC_KEY || undefined,
    algorithm: env.AUTH_JWT_ALGORITHM || undefined,
    jwksUrl: env.AUTH_JWT_JWKS_URL || undefined,
    issuer: env.AUTH_JWT_ISSUER || undefined,
    audience: env.AUTH_JWT_AUDIENCE || undefined,
  };
  return options.secret || options.publicKey || options.jwksUrl ? options : undefined;
}

/**
 * What jose reports about the token itself (malformed, signature, algorithm, claims, no key for its
 * `kid`); anything else while verifying against a JWKS URL is the key set that could not be fetched.
 */
const tokenErrors = new Set([
  'ERR_JWT_CLAIM_VALIDATION_FAILED',
  'ERR_JWT_EXPIRED',
  'ERR_JWT_INVALID',
  'ERR_JWS_INVALID',
  'ERR_JWS_SIGNATURE_VERIFICATION_FAILED',
  'ERR_JOSE_ALG_NOT_ALLOWED',
  'ERR_JOSE_NOT_SUPPORTED',
  'ERR_JWKS_NO_MATCHING_KEY',
  'ERR_JWKS_MULTIPLE_MATCHING_KEYS',
]);

/**
 * The key type (and curve) each public-key algorithm needs, checked when the key is read: those jose
 * verifies with. It imports neither an Ed448 key nor an RSA key whose SPKI names RSASSA-PSS
 * (`rsa-pss`): let through here, either failed every request that carried a token, never the start-up.
 */
function keyFits(algorithm: string, type: string | undefined, curve: string | undefined): boolean {
  if (algorithm.startsWith('RS') || algorithm.startsWith('PS')) return type === 'rsa';
  if (algorithm === 'EdDSA') return type === 'ed25519';
  const curves: Record<string, string> = { ES256: 'prime256v1', ES384: 'secp384r1', ES512: 'secp521r1' };
  return type === 'ec' && curve === curves[algorithm];
}

function invalid(message: string): RequestError {
  return new RequestError(
    401,
    { message, errors: { authorization: [message] } },
    { 'www-authenticate': 'Bearer error="invalid_token"' },
  );
}

/**
 * A `context` hook for bearer JWTs (verified with jose): no Authorization header gives an anonymous
 * request (context `undefined`); a valid token gives its claims; anything else is 401. Access rules
 * then decide what the claims may do.
 */
export function bearerContext(
  options: BearerOptions,
): (request: ContextRequest) => Promise<JWTPayload | undefined> {
  const sources = [options.secret, options.publicKey, options.jwksUrl].filter(Boolean).length;
  if (sources !== 1)
    throw new ConfigurationError('Bearer tokens need exactly one of secret, publicKey or jwksUrl.');
  let algorithms: string[];
  let key: Promise<Uint8Array | Awaited<ReturnType<typeof importSPKI>>> | JWTVerifyGetKey;
  if (options.secret) {
    algorithms = hmac;
    key = Promise.resolve(new TextEncoder().encode(options.secret));
  } else if (options.publicKey) {
    const algorithm = options.algorithm ?? 'RS256';
    if (!asymmetric.includes(algorithm))
      throw new ConfigurationError(`AUTH_JWT_ALGORITHM "${algorithm}" is not a public-key algorithm.`);
    algorithms = [algorithm];
    // Read now, so that an unreadable key or one of the wrong type stops the start-up (jose's import
    // is asynchronous: its failure would be an unhandled rejection, which ends the process).
    let details: { type?: string; curve?: string };
    try {
      const parsed = createPublicKey({ key: options.publicKey, format: 'pem' });
      details = { type: parsed.asymmetricKeyType, curve: parsed.asymmetricKeyDetails?.namedCurve };
    } catch (error) {
      throw new ConfigurationError(`AUTH_JWT_PUBLIC_KEY is not a PEM public key: ${String(error)}`);
    }
    if (!keyFits(algorithm, details.type, details.curve))
      throw new ConfigurationError(
        `AUTH_JWT_PUBLIC_KEY is a ${details.type ?? 'unknown'}${details.curve ? ` (${details.curve})` : ''} key, ` +
          `which cannot verify ${algorithm}.`,
      );
    key = importSPKI(options.publicKey, algorithm).catch((error: unknown) => {
      throw new ConfigurationError(`The JWT public key could not be read: ${String(error)}`);
    });
    // Failures surface on each request that awaits the key; none is left unhandled meanwhile.
    key.catch(() => {});
  } else {
    algorithms = asymmetric;
    let url: URL;
    try {
      url = new URL(options.jwksUrl as string);
    } catch {
      throw new ConfigurationError(`AUTH_JWT_JWKS_URL "${options.jwksUrl}" is not a URL.`);
    }
    if (url.protocol !== 'https:' && url.protocol !== 'http:')
      throw new ConfigurationError(`AUTH_JWT_JWKS_URL must be an http(s) URL (got "${options.jwksUrl}").`);
    key = createRemoteJWKSet(url);
  }
  const verify = { algorithms, issuer: options.issuer, audience: options.audience };
  return async (request) => {
    const header = request.headers.authorization;
    const value = Array.isArray(header) ? header[0] : header;
    if (value === undefined || value === '') return undefined;
    const match = /^Bearer +([A-Za-z0-9._~+/-]+=*) *$/i.exec(value);
    if (!match) throw invalid('The Authorization header must be "Bearer <token>".');
    try {
      const result =
        typeof key === 'function'
          ? await jwtVerify(match[1] as string, key, verify)
          : await jwtVerify(match[1] as string, await key, verify);
      return result.payload;
    } catch (error) {
      if (error instanceof ConfigurationError) throw error;
      const code = (error as { code?: string }).code;
      // The identity provider's keys could not be fetched (unreachable, not 200, not a key set): the
      // token may be fine, so not a 401 that would make clients drop it; 503 (logged), retry later.
      if (typeof key === 'function' && !tokenErrors.has(code ?? '')) {
        const message = "The identity provider's keys could not be fetched; try again in a few seconds.";
        throw new RequestError(
          503,
          { message, errors: { authorization: [message] } },
          { 'retry-after': String(RETRY_AFTER_SECONDS) },
          error,
        );
      }
      throw invalid(
        code === 'ERR_JWT_EXPIRED' ? 'The bearer token has expired.' : 'The bearer token is not valid.',
      );
    }
  };
}
