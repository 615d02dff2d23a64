import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { type JWTPayload, SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { ConfigurationError } from '../src/errors/configuration-error.js';
import { defineEndpoint } from '../src/resource/policy.js';
import { bearerContext, bearerOptionsFrom } from '../src/server/bearer.js';
import { useService } from './support/service.js';

type Claims = (JWTPayload & { role?: string }) | undefined;

/** Only members may list; each record says who asked. */
const members = defineEndpoint<Claims>({
  resource: 'users',
  path: 'members',
  allowedFilters: ['id'],
  access: { list: (ctx) => ctx?.role === 'member' },
  response: (user, ctx) => ({ id: user.id, sub: ctx?.sub ?? null }),
});

interface Pair {
  privateKey: KeyObject;
  publicKey: KeyObject;
}
const rsa = (): Pair => generateKeyPairSync('rsa', { modulusLength: 2048 });
const pem = (pair: Pair) => pair.publicKey.export({ type: 'spki', format: 'pem' }).toString();

const sign = (
  alg: string,
  key: KeyObject | Uint8Array,
  claims: JWTPayload = { sub: 'someone', role: 'member' },
) => new SignJWT(claims).setProtectedHeader({ alg }).setIssuedAt().setExpirationTime('5m').sign(key);

/**
 * Each public-key algorithm the environment may name beyond RS256 and ES256 (test/auth-cors.test.ts):
 * the key it verifies with, and tokens it must refuse (another key of the same type, or the same key or
 * its PEM under another algorithm).
 */
const cases: { algorithm: string; key: Pair; refused: () => Promise<[string, string][]> }[] = [
  (() => {
    const key = generateKeyPairSync('ed25519');
    return {
      algorithm: 'EdDSA',
      key,
      refused: async () => [
        ['another Ed25519 key', await sign('EdDSA', generateKeyPairSync('ed25519').privateKey)],
        ['ES256', await sign('ES256', generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey)],
        ['HS256 keyed by the public key’s PEM', await sign('HS256', new TextEncoder().encode(pem(key)))],
      ],
    };
  })(),
  ...(['PS256', 'PS384', 'PS512'] as const).map((algorithm) => {
    const key = rsa();
    const others = ['PS256', 'PS384', 'PS512'].filter((other) => other !== algorithm);
    return {
      algorithm,
      key,
      refused: async (): Promise<[string, string][]> => [
        ['another RSA key', await sign(algorithm, rsa().privateKey)],
        ['RS256 by the same key', await sign('RS256', key.privateKey)],
        ...(await Promise.all(
          others.map(
            async (other): Promise<[string, string]> => [
              `${other} by the same key`,
              await sign(other, key.privateKey),
            ],
          ),
        )),
        ['HS256 keyed by the public key’s PEM', await sign('HS256', new TextEncoder().encode(pem(key)))],
      ],
    };
  }),
];

describe.each(cases)(
  'bearer tokens verified with AUTH_JWT_ALGORITHM=$algorithm',
  ({ algorithm, key, refused }) => {
    // As the command reads them from its environment (src/cli/main.ts).
    const options = bearerOptionsFrom({ AUTH_JWT_PUBLIC_KEY: pem(key), AUTH_JWT_ALGORITHM: algorithm });
    const svc = useService<Claims>('sqlite', `bearer_${algorithm.toLowerCase()}`, {
      endpoints: [members],
      context: bearerContext(options ?? {}),
    });
    const list = (token: string) =>
      svc.inject({ url: '/api/members?filter[id]=2', headers: { authorization: `Bearer ${token}` } });

    it('reads the key and its algorithm from the environment', () => {
      expect(options).toMatchObject({ publicKey: pem(key), algorithm });
    });

    it('accepts a token the private key signed: its claims are the context', async () => {
      const res = await list(
        await sign(algorithm, key.privateKey, { sub: `${algorithm}-member`, role: 'member' }),
      );
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json().data).toEqual([{ id: 2, sub: `${algorithm}-member` }]);
      // The claims decide: the same key's token without the role is refused by the access rule.
      const viewer = await list(await sign(algorithm, key.privateKey, { sub: 'v', role: 'viewer' }));
      expect(viewer.statusCode, viewer.body).toBe(403);
    });

    it('answers 401 to a token signed by another key or with another algorithm', async () => {
      for (const [what, token] of await refused()) {
        const res = await list(token);
        expect(res.statusCode, `${what}: ${res.body}`).toBe(401);
        expect(res.json().errors, what).toEqual({ authorization: ['The bearer token is not valid.'] });
        expect(res.headers['www-authenticate'], what).toBe('Bearer error="invalid_token"');
      }
    });
  },
);

describe('AUTH_JWT_PUBLIC_KEY of a type jose cannot verify with', () => {
  it('stops the start-up, naming the key and the algorithm: Ed448 for EdDSA, an RSASSA-PSS key for PS*', () => {
    const refusals: [string, Pair, RegExp][] = [
      ['EdDSA', generateKeyPairSync('ed448'), /is a ed448 key, which cannot verify EdDSA/],
      [
        'PS256',
        generateKeyPairSync('rsa-pss', { modulusLength: 2048 }),
        /is a rsa-pss key, which cannot verify PS256/,
      ],
    ];
    for (const [algorithm, key, message] of refusals) {
      const options = bearerOptionsFrom({ AUTH_JWT_PUBLIC_KEY: pem(key), AUTH_JWT_ALGORITHM: algorithm });
      expect(() => bearerContext(options ?? {}), algorithm).toThrow(ConfigurationError);
      expect(() => bearerContext(options ?? {}), algorithm).toThrow(message);
    }
  });
});
