import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import fc from 'fast-check';
import Fastify, { type FastifyInstance } from 'fastify';
import {
  type CryptoKey,
  decodeJwt,
  exportJWK,
  exportSPKI,
  generateKeyPair,
  type JWTPayload,
  jwtVerify,
  SignJWT,
  UnsecuredJWT,
} from 'jose';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { DEMO_SECRET, type DemoContext, demoContext, demoTokens } from '../examples/demo/auth.js';
import demoConfig from '../examples/demo/config.js';
import { resources } from '../examples/demo/resources.js';
import { createSchema } from '../examples/demo/schema.js';
import { connectOptionsFrom, corsOptionsFrom } from '../src/cli/env.js';
import { ConfigurationError } from '../src/errors/configuration-error.js';
import { resourceQueryPlugin } from '../src/hosts/fastify.js';
import { type ContextRequest, defineEndpoint, type ServiceConfig } from '../src/resource/policy.js';
import { type BearerOptions, bearerContext, bearerOptionsFrom } from '../src/server/bearer.js';
import { buildService } from '../src/server/standalone.js';
import type { Connection } from '../src/sql/connect.js';
import { builtPackage } from './support/built.js';
import { freshDatabase } from './support/databases.js';
import { insertFixture, users } from './support/fixture.js';
import type { InjectResponse } from './support/hosts.js';
import { useService } from './support/service.js';

// The demo's context hook reads AUTH_JWT_* when its module is imported (above, hoisted): a key set in
// the developer's shell would replace DEMO_SECRET and the documented tokens would stop working.
vi.hoisted(() => {
  for (const name of Object.keys(process.env)) if (name.startsWith('AUTH_JWT_')) delete process.env[name];
});

type Claims = (JWTPayload & { role?: string }) | undefined;

const SECRET = 'a-test-secret-that-is-long-enough-for-hs512-signatures-0123456789';
const ISSUER = 'https://issuer.test/';
const AUDIENCE = 'rqs-tests';

/** Echoes who is asking: the claims the context hook gave reach the response transformer. */
const whoami = defineEndpoint<Claims>({
  resource: 'users',
  path: 'whoami',
  allowedFilters: ['id'],
  response: (user, ctx) => ({ id: user.id, sub: ctx?.sub ?? null, role: ctx?.role ?? null }),
});
/** Listing closed to anonymous requests: the claims reach the access rule. */
const members = defineEndpoint<Claims>({
  resource: 'users',
  path: 'members',
  allowedFilters: ['id'],
  access: { list: (ctx) => ctx?.role === 'member' },
});

const now = () => Math.floor(Date.now() / 1000);

function hsToken(claims: JWTPayload, { secret = SECRET, alg = 'HS256' } = {}): Promise<string> {
  return new SignJWT(claims).setProtectedHeader({ alg }).setIssuedAt().sign(new TextEncoder().encode(secret));
}

/** The service's 401 for a token it cannot accept: the envelope and the Bearer challenge. */
function expectInvalid(
  res: Pick<InjectResponse, 'statusCode' | 'body' | 'json'> & { headers: object },
  message: RegExp = /not valid/,
): void {
  expect(res.statusCode, res.body).toBe(401);
  const body = res.json();
  expect(Object.keys(body).sort()).toEqual(['errors', 'message']);
  expect(body.message).toMatch(message);
  expect(body.errors).toEqual({ authorization: [body.message] });
  expect((res.headers as Record<string, unknown>)['www-authenticate']).toBe('Bearer error="invalid_token"');
}

/** A context hook whose options are known only once keys are generated (in a beforeAll). */
function lateContext(): {
  set(options: BearerOptions): void;
  hook: (request: ContextRequest) => Promise<JWTPayload | undefined>;
} {
  let hook: ((request: ContextRequest) => Promise<JWTPayload | undefined>) | undefined;
  return {
    set: (options) => {
      hook = bearerContext(options);
    },
    hook: (request) => (hook as NonNullable<typeof hook>)(request),
  };
}

describe('bearer tokens signed with a shared secret (HS256, issuer and audience checked)', () => {
  const svc = useService<Claims>('sqlite', 'bearer_hs', {
    endpoints: [whoami, members],
    context: bearerContext({ secret: SECRET, issuer: ISSUER, audience: AUDIENCE }),
  });
  const who = (authorization?: string) =>
    svc.inject({
      url: '/api/whoami?filter[id]=1',
      ...(authorization !== undefined && { headers: { authorization } }),
    });
  const good = { sub: 'user-7', role: 'member', iss: ISSUER, aud: AUDIENCE };

  it('gives a valid token’s claims to the transformer and the access rules', async () => {
    const token = await hsToken(good);
    const res = await who(`Bearer ${token}`);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toEqual([{ id: 1, sub: 'user-7', role: 'member' }]);
    // The scheme is case-insensitive; HS384/HS512 are accepted with the secret too.
    expect((await who(`bearer ${token}`)).statusCode).toBe(200);
    for (const alg of ['HS384', 'HS512'])
      expect((await who(`Bearer ${await hsToken(good, { alg })}`)).json().data[0].sub, alg).toBe('user-7');
    const member = await svc.inject({
      url: '/api/members?filter[id]=1',
      headers: { authorization: `Bearer ${token}` },
    });
    expect(member.statusCode).toBe(200);
    expect(member.json().data.map((u: { id: number }) => u.id)).toEqual([1]);
    const outsider = await svc.inject({
      url: '/api/members',
      headers: { authorization: `Bearer ${await hsToken({ ...good, role: 'guest' })}` },
    });
    expect(outsider.statusCode).toBe(403);
  });

  it('treats a request without an Authorization header as anonymous', async () => {
    const res = await who();
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toEqual([{ id: 1, sub: null, role: null }]);
    expect((await who('')).statusCode).toBe(200);
    // Anonymous where a rule wants an identity: 401 with the plain Bearer challenge.
    const closed = await svc.inject({ url: '/api/members' });
    expect(closed.statusCode).toBe(401);
    expect(closed.headers['www-authenticate']).toBe('Bearer');
    expect(closed.json().errors.authorization[0]).toContain('Authentication is required');
  });

  it('answers 401 with the envelope to an Authorization header that is not "Bearer <token>"', async () => {
    for (const header of [
      'Basic dXNlcjpwYXNzd29yZA==',
      'Bearer',
      'Bearer ',
      'Token abc.def.ghi',
      'Bearer abc def',
      'Bearer <script>',
      `${await hsToken(good)}`,
    ])
      expectInvalid(await who(header), /must be "Bearer <token>"/);
  });

  it('answers 401 to a bad signature, alg "none", an RS token and garbage', async () => {
    const token = await hsToken(good);
    const [header, payload, signature] = token.split('.') as [string, string, string];
    const flipped = `${signature.slice(0, -2)}${signature.endsWith('AA') ? 'BB' : 'AA'}`;
    const forged = Buffer.from(JSON.stringify({ ...good, role: 'admin' })).toString('base64url');
    const { privateKey } = await generateKeyPair('RS256');
    const cases: [string, string][] = [
      ['other secret', await hsToken(good, { secret: `${SECRET}-other` })],
      ['flipped signature', `${header}.${payload}.${flipped}`],
      ['forged payload', `${header}.${forged}.${signature}`],
      ['no signature', `${header}.${payload}.`],
      ['alg none', new UnsecuredJWT(good).encode()],
      ['alg none, signed', `${new UnsecuredJWT(good).encode()}${signature}`],
      ['RS256', await new SignJWT(good).setProtectedHeader({ alg: 'RS256' }).setIssuedAt().sign(privateKey)],
      ['garbage', 'abc.def.ghi'],
      ['two parts', `${header}.${payload}`],
      ['dots', '...'],
    ];
    for (const [name, bad] of cases) {
      const res = await who(`Bearer ${bad}`);
      expect(res.statusCode, name).toBe(401);
      expectInvalid(res);
    }
  });

  it('answers 401 to an expired token, one not yet valid, and a wrong or missing issuer or audience', async () => {
    const expired = await new SignJWT(good)
      .setProtectedHeader({ alg: 'HS256' })
      .setIssuedAt(now() - 3600)
      .setExpirationTime(now() - 60)
      .sign(new TextEncoder().encode(SECRET));
    expectInvalid(await who(`Bearer ${expired}`), /has expired/);
    const early = await new SignJWT(good)
      .setProtectedHeader({ alg: 'HS256' })
      .setNotBefore(now() + 3600)
      .sign(new TextEncoder().encode(SECRET));
    expectInvalid(await who(`Bearer ${early}`));
    const { iss: _iss, ...noIssuer } = good;
    const { aud: _aud, ...noAudience } = good;
    for (const claims of [
      { ...good, iss: 'https://elsewhere.test/' },
      noIssuer,
      { ...good, aud: 'another-service' },
      noAudience,
    ])
      expectInvalid(await who(`Bearer ${await hsToken(claims)}`));
    // Still valid until then.
    const later = await new SignJWT(good)
      .setProtectedHeader({ alg: 'HS256' })
      .setExpirationTime(now() + 600)
      .sign(new TextEncoder().encode(SECRET));
    expect((await who(`Bearer ${later}`)).statusCode).toBe(200);
  });

  it('never answers 500 to a token it cannot read (random headers, payloads and signatures)', async () => {
    const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
    const token = fc.oneof(
      fc.stringMatching(/^[A-Za-z0-9._~+/-]{1,120}=*$/),
      fc
        .tuple(
          fc.oneof(
            fc.jsonValue(),
            fc.record({
              alg: fc.constantFrom('HS256', 'RS256', 'none', 'ES256', 'HS1', ''),
              crit: fc.array(fc.string(), { maxLength: 2 }),
              b64: fc.boolean(),
              kid: fc.jsonValue(),
            }),
          ),
          fc.oneof(
            fc.jsonValue(),
            fc.record({ exp: fc.jsonValue(), iss: fc.jsonValue(), aud: fc.jsonValue() }),
          ),
          fc.stringMatching(/^[A-Za-z0-9_-]{0,60}$/),
        )
        .map(([header, payload, signature]) => `${part(header)}.${part(payload)}.${signature}`),
    );
    await fc.assert(
      fc.asyncProperty(token, async (value) => {
        const res = await who(`Bearer ${value}`);
        expect(res.statusCode, value).toBe(401);
        expect(res.headers['www-authenticate']).toBe('Bearer error="invalid_token"');
      }),
      { numRuns: 150 },
    );
  });
});

describe('bearer tokens verified with an RS256 public key (PEM)', () => {
  const late = lateContext();
  let privateKey: CryptoKey;
  let pem: string;
  beforeAll(async () => {
    const pair = await generateKeyPair('RS256');
    privateKey = pair.privateKey;
    pem = await exportSPKI(pair.publicKey);
    late.set({ publicKey: pem, algorithm: 'RS256' });
  });
  const svc = useService<Claims>('sqlite', 'bearer_rs', { endpoints: [whoami], context: late.hook });
  const who = (token: string) =>
    svc.inject({ url: '/api/whoami?filter[id]=2', headers: { authorization: `Bearer ${token}` } });

  it('accepts a token signed with the private key', async () => {
    const token = await new SignJWT({ sub: 'rs-user', role: 'editor' })
      .setProtectedHeader({ alg: 'RS256' })
      .setIssuedAt()
      .setExpirationTime('5m')
      .sign(privateKey);
    const res = await who(token);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toEqual([{ id: 2, sub: 'rs-user', role: 'editor' }]);
  });

  it('refuses algorithm confusion: an HS256 token whose secret is the public key itself', async () => {
    for (const secret of [pem, pem.trim()]) expectInvalid(await who(await hsToken({ sub: 'x' }, { secret })));
  });

  it('refuses another key, another algorithm of the same key, and an EC token', async () => {
    const other = await generateKeyPair('RS256');
    expectInvalid(
      await who(await new SignJWT({ sub: 'x' }).setProtectedHeader({ alg: 'RS256' }).sign(other.privateKey)),
    );
    const ps = await generateKeyPair('PS256', { extractable: true });
    expectInvalid(
      await who(await new SignJWT({ sub: 'x' }).setProtectedHeader({ alg: 'PS256' }).sign(ps.privateKey)),
    );
    const ec = await generateKeyPair('ES256');
    expectInvalid(
      await who(await new SignJWT({ sub: 'x' }).setProtectedHeader({ alg: 'ES256' }).sign(ec.privateKey)),
    );
    expectInvalid(await who(new UnsecuredJWT({ sub: 'x' }).encode()));
  });
});

describe('bearer tokens verified through a JWKS URL (ES256, served on 127.0.0.1)', () => {
  const late = lateContext();
  let privateKey: CryptoKey;
  let server: Server;
  let fetches = 0;
  let jwksUrl: string;
  beforeAll(async () => {
    const pair = await generateKeyPair('ES256');
    privateKey = pair.privateKey;
    const decoy = await generateKeyPair('RS256');
    const keys = [
      { ...(await exportJWK(pair.publicKey)), kid: 'es-1', alg: 'ES256', use: 'sig' },
      { ...(await exportJWK(decoy.publicKey)), kid: 'rs-1', alg: 'RS256', use: 'sig' },
    ];
    server = createServer((request, response) => {
      if (request.url !== '/.well-known/jwks.json') {
        response.writeHead(404).end();
        return;
      }
      fetches++;
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys }));
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    jwksUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/.well-known/jwks.json`;
    late.set({ jwksUrl, issuer: ISSUER });
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const svc = useService<Claims>('sqlite', 'bearer_jwks', { endpoints: [whoami], context: late.hook });
  const who = (token: string) =>
    svc.inject({ url: '/api/whoami?filter[id]=3', headers: { authorization: `Bearer ${token}` } });
  const sign = (claims: JWTPayload, kid: string, key: CryptoKey = privateKey) =>
    new SignJWT(claims).setProtectedHeader({ alg: 'ES256', kid }).setIssuedAt().sign(key);

  it('accepts a token signed with the key its kid names, fetching the key set once', async () => {
    const token = await sign({ sub: 'jwks-user', role: 'viewer', iss: ISSUER }, 'es-1');
    for (let i = 0; i < 3; i++) {
      const res = await who(token);
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json().data).toEqual([{ id: 3, sub: 'jwks-user', role: 'viewer' }]);
    }
    expect(fetches).toBe(1);
  });

  it('refuses an unknown kid, a kid naming another key, a foreign key, a wrong issuer and HS256', async () => {
    const foreign = await generateKeyPair('ES256');
    const claims = { sub: 'x', iss: ISSUER };
    expectInvalid(await who(await sign(claims, 'unknown')));
    expectInvalid(await who(await sign(claims, 'rs-1')));
    expectInvalid(await who(await sign(claims, 'es-1', foreign.privateKey)));
    expectInvalid(await who(await sign({ ...claims, iss: 'https://elsewhere.test/' }, 'es-1')));
    expectInvalid(await who(await hsToken(claims)));
    expectInvalid(await who(new UnsecuredJWT(claims).encode()));
  });

  it('answers 503 with Retry-After (logged), not 401, when the key set cannot be fetched', async () => {
    const closed = createServer();
    closed.listen(0, '127.0.0.1');
    await once(closed, 'listening');
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const hook = bearerContext({ jwksUrl: `http://127.0.0.1:${port}/jwks.json` });
    const token = await sign({ sub: 'x' }, 'es-1');
    const request = { method: 'GET', url: '/api/whoami', headers: { authorization: `Bearer ${token}` } };
    await expect(hook(request)).rejects.toMatchObject({
      status: 503,
      cause: expect.objectContaining({ message: expect.stringMatching(/fetch failed/) }),
    });
    const app = await buildService({
      config: { resources, endpoints: [whoami], context: hook } as ServiceConfig,
      connection: svc.conn,
    });
    try {
      const res = await app.inject({ url: request.url, headers: request.headers });
      expect(res.statusCode).toBe(503);
      expect(res.headers['retry-after']).toBe('5');
      expect(res.json().errors.authorization).toEqual([
        "The identity provider's keys could not be fetched; try again in a few seconds.",
      ]);
      expect(res.headers['www-authenticate']).toBeUndefined();
    } finally {
      await app.close();
    }
    const notFound = bearerContext({ jwksUrl: jwksUrl.replace('/.well-known/jwks.json', '/missing') });
    await expect(notFound(request)).rejects.toMatchObject({
      status: 503,
      cause: expect.objectContaining({ message: expect.stringMatching(/Expected 200 OK/) }),
    });
  });
});

describe('bearer configuration', () => {
  it('bearerOptionsFrom reads the AUTH_JWT_* variables, and gives undefined without a key', () => {
    expect(bearerOptionsFrom({})).toBeUndefined();
    expect(bearerOptionsFrom({ AUTH_JWT_SECRET: '', AUTH_JWT_ISSUER: 'https://i.test/' })).toBeUndefined();
    expect(
      bearerOptionsFrom({
        AUTH_JWT_SECRET: 's3cret',
        AUTH_JWT_ISSUER: 'https://i.test/',
        AUTH_JWT_AUDIENCE: 'a',
      }),
    ).toEqual({ secret: 's3cret', issuer: 'https://i.test/', audience: 'a' });
    expect(bearerOptionsFrom({ AUTH_JWT_PUBLIC_KEY: 'PEM', AUTH_JWT_ALGORITHM: 'ES256' })).toEqual({
      publicKey: 'PEM',
      algorithm: 'ES256',
    });
    expect(bearerOptionsFrom({ AUTH_JWT_JWKS_URL: 'https://idp.test/jwks' })).toEqual({
      jwksUrl: 'https://idp.test/jwks',
    });
    // Unset fields are absent (undefined), so that a spread never overrides with an empty string.
    const options = bearerOptionsFrom({ AUTH_JWT_SECRET: 'x', AUTH_JWT_AUDIENCE: '' });
    expect(options?.audience).toBeUndefined();
  });

  it('bearerContext wants exactly one key source, and a usable one', async () => {
    const { publicKey } = await generateKeyPair('RS256', { extractable: true });
    const rsaPem = await exportSPKI(publicKey);
    const ec = await generateKeyPair('ES384', { extractable: true });
    const ecPem = await exportSPKI(ec.publicKey);
    const refused: [BearerOptions, RegExp][] = [
      [{}, /exactly one/],
      [{ issuer: ISSUER }, /exactly one/],
      [{ secret: 's', jwksUrl: 'https://idp.test/jwks' }, /exactly one/],
      [{ secret: 's', publicKey: rsaPem }, /exactly one/],
      [{ secret: 's', publicKey: rsaPem, jwksUrl: 'https://idp.test/jwks' }, /exactly one/],
      [{ publicKey: rsaPem, algorithm: 'HS256' }, /not a public-key algorithm/],
      [{ publicKey: rsaPem, algorithm: 'none' }, /not a public-key algorithm/],
      [{ publicKey: 'not a key' }, /not a PEM public key/],
      [{ publicKey: rsaPem.replace(/\n/g, '\\n') }, /not a PEM public key/],
      [{ publicKey: rsaPem, algorithm: 'ES256' }, /rsa key, which cannot verify ES256/],
      [{ publicKey: ecPem, algorithm: 'ES256' }, /secp384r1.*cannot verify ES256/],
      [{ publicKey: ecPem }, /cannot verify RS256/],
      [{ jwksUrl: 'not a url' }, /AUTH_JWT_JWKS_URL/],
      [{ jwksUrl: 'file:///etc/passwd' }, /http\(s\) URL/],
    ];
    for (const [options, message] of refused) {
      expect(() => bearerContext(options), JSON.stringify(options)).toThrow(ConfigurationError);
      expect(() => bearerContext(options), JSON.stringify(options)).toThrow(message);
    }
    // The right pairs are accepted.
    expect(bearerContext({ publicKey: rsaPem })).toBeTypeOf('function');
    expect(bearerContext({ publicKey: rsaPem, algorithm: 'PS512' })).toBeTypeOf('function');
    expect(bearerContext({ publicKey: ecPem, algorithm: 'ES384' })).toBeTypeOf('function');
    expect(bearerContext({ jwksUrl: 'https://idp.test/jwks' })).toBeTypeOf('function');
  });
});

describe('the demo’s documented tokens, through the demo’s configuration', () => {
  const svc = useService<DemoContext>('sqlite', 'demo_auth', {
    resources: demoConfig.resources,
    endpoints: demoConfig.endpoints,
    context: demoConfig.context,
  });
  const patch = (id: number, body: unknown, token?: string) =>
    svc.inject({
      method: 'PATCH',
      url: `/api/users/${id}`,
      headers: { 'content-type': 'application/json', ...(token && { authorization: `Bearer ${token}` }) },
      payload: JSON.stringify(body),
    });
  const stored = async (id: number) =>
    (await svc.conn.db.selectFrom('users').select(['name']).where('id', '=', id).executeTakeFirstOrThrow())
      .name;

  it('the configuration uses the demo context hook, and the tokens say what the README says', async () => {
    expect(demoConfig.context).toBe(demoContext);
    for (const [role, token] of Object.entries(demoTokens)) {
      const { payload, protectedHeader } = await jwtVerify(token, new TextEncoder().encode(DEMO_SECRET));
      expect(protectedHeader.alg).toBe('HS256');
      expect(payload).toMatchObject({ sub: `demo-${role}`, role });
      expect(payload.exp).toBeUndefined();
      expect(decodeJwt(token).role).toBe(role);
    }
  });

  it('lets anyone list and read', async () => {
    const anonymous = await svc.get('/api/users?per_page=3');
    expect(anonymous.status).toBe(200);
    expect(anonymous.body.data).toHaveLength(3);
    for (const token of Object.values(demoTokens))
      expect((await svc.get('/api/users?per_page=3', { authorization: `Bearer ${token}` })).status).toBe(200);
    expect((await svc.get('/api/posts')).status).toBe(200);
  });

  it('lets only the editor PATCH: anonymous 401, viewer 403, editor 200 and stored', async () => {
    const before = users[0]?.name;
    expect(await stored(1)).toBe(before);

    const anonymous = await patch(1, { name: 'Anonymous Change' });
    expect(anonymous.statusCode).toBe(401);
    expect(anonymous.headers['www-authenticate']).toBe('Bearer');
    expect(anonymous.json().errors.authorization[0]).toBe('Authentication is required to update users.');

    const viewer = await patch(1, { name: 'Viewer Change' }, demoTokens.viewer);
    expect(viewer.statusCode).toBe(403);
    expect(viewer.json()).toEqual({
      message: 'You may not update users.',
      errors: { access: ['You may not update users.'] },
    });

    // A viewer token whose role was edited: its signature no longer matches.
    const [header, , signature] = demoTokens.viewer.split('.');
    const promoted = Buffer.from(JSON.stringify({ role: 'editor', sub: 'demo-viewer' })).toString(
      'base64url',
    );
    expectInvalid(await patch(1, { name: 'Forged Change' }, `${header}.${promoted}.${signature}`));
    expect(await stored(1)).toBe(before);

    const editor = await patch(1, { name: 'Edited By Editor' }, demoTokens.editor);
    expect(editor.statusCode, editor.body).toBe(200);
    expect(editor.json()).toMatchObject({ id: 1, name: 'Edited By Editor' });
    expect(await stored(1)).toBe('Edited By Editor');
    // The same for posts.
    expect((await svc.inject({ method: 'PATCH', url: '/api/posts/1', payload: '{}' })).statusCode).toBe(401);
  });

  it('serves the schema document read-only to anonymous and viewer, full to the editor', async () => {
    const url = '/api/v1/users/schema';
    for (const headers of [undefined, { authorization: `Bearer ${demoTokens.viewer}` }]) {
      const res = await svc.get(url, headers);
      expect(res.status).toBe(200);
      expect(res.body.form.readOnly).toBe(true);
      expect(res.body.form.inputs).toEqual([]);
      // Still a list's description.
      expect(res.body.table.columns.length).toBeGreaterThan(0);
    }
    const editor = await svc.get(url, { authorization: `Bearer ${demoTokens.editor}` });
    expect(editor.status).toBe(200);
    expect(editor.body.form.readOnly).toBe(false);
    expect(editor.body.form.inputs.map((input: { name: string }) => input.name)).toEqual([
      'name',
      'email',
      'status',
      'score',
      'is_admin',
      'birthday',
      'balance',
      'password',
    ]);
    // A bad token is not downgraded to anonymous: 401.
    expectInvalid(await svc.inject({ url, headers: { authorization: `Bearer ${demoTokens.editor}x` } }));
  });
});

describe('CORS settings from the environment', () => {
  it('corsOptionsFrom: off when unset, a list of origins, or *', () => {
    expect(corsOptionsFrom({})).toBeUndefined();
    expect(corsOptionsFrom({ CORS_ORIGINS: '' })).toBeUndefined();
    expect(corsOptionsFrom({ CORS_ORIGINS: '  ' })).toBeUndefined();
    expect(corsOptionsFrom({ CORS_ORIGINS: '', CORS_CREDENTIALS: 'true' })).toBeUndefined();
    expect(corsOptionsFrom({ CORS_ORIGINS: 'https://app.example.com' })).toEqual({
      origin: ['https://app.example.com'],
      credentials: false,
    });
    expect(
      corsOptionsFrom({
        CORS_ORIGINS: ' https://app.example.com/ , http://localhost:5173',
        CORS_CREDENTIALS: 'true',
      }),
    ).toEqual({
      origin: ['https://app.example.com', 'http://localhost:5173'],
      credentials: true,
    });
    expect(corsOptionsFrom({ CORS_ORIGINS: '*' })).toEqual({
      origin: '*',
    });
    expect(corsOptionsFrom({ CORS_ORIGINS: '*', CORS_CREDENTIALS: 'false' })).toEqual({
      origin: '*',
    });
  });

  it('corsOptionsFrom refuses * with credentials, entries that are not origins, and CORS_CREDENTIALS=maybe', () => {
    expect(() => corsOptionsFrom({ CORS_ORIGINS: '*', CORS_CREDENTIALS: 'true' })).toThrow(
      /cannot be combined/,
    );
    for (const entry of [
      'app.example.com',
      'https://app.example.com/path',
      'ftp://app.example.com',
      'https://a.example.com,,https://b.example.com',
      'https:// spaced.example.com',
    ])
      expect(() => corsOptionsFrom({ CORS_ORIGINS: entry }), entry).toThrow(/must be origins/);
    for (const value of ['maybe', 'TRUE', '1', 'yes'])
      expect(() =>
        corsOptionsFrom({ CORS_ORIGINS: 'https://app.example.com', CORS_CREDENTIALS: value }),
      ).toThrow(/CORS_CREDENTIALS must be true or false/);
    // Set but unusable stops the start-up even without CORS_ORIGINS.
    expect(() => corsOptionsFrom({ CORS_CREDENTIALS: 'maybe' })).toThrow(/CORS_CREDENTIALS/);
  });

  it('connectOptionsFrom reads DATABASE_POOL_SIZE', () => {
    expect(connectOptionsFrom({})).toEqual({});
    expect(connectOptionsFrom({ DATABASE_POOL_SIZE: '25' })).toEqual({ poolSize: 25 });
    for (const value of ['0', '-1', 'ten', '1.5', '10000'])
      expect(() => connectOptionsFrom({ DATABASE_POOL_SIZE: value }), value).toThrow(/DATABASE_POOL_SIZE/);
  });
});

const APP = 'https://app.example.com';
const preflight = {
  origin: APP,
  'access-control-request-method': 'PATCH',
  'access-control-request-headers': 'authorization,content-type',
};

/** The demo schema and fixture in a fresh SQLite file. */
async function fixtureDatabase(name: string): Promise<Connection> {
  const conn = await freshDatabase('sqlite', name);
  await createSchema(conn);
  await insertFixture(conn);
  return conn;
}

const demoServiceConfig = (): ServiceConfig =>
  ({ resources, endpoints: demoConfig.endpoints, context: demoConfig.context }) as ServiceConfig;

describe('CORS through the standalone server', () => {
  let conn: Connection;
  let withCors: FastifyInstance;
  let without: FastifyInstance;
  beforeAll(async () => {
    conn = await fixtureDatabase('cors_standalone');
    const cors = corsOptionsFrom({ CORS_ORIGINS: APP, CORS_CREDENTIALS: 'true' });
    expect(cors).toBeDefined();
    withCors = await buildService({ config: demoServiceConfig(), connection: conn, ...(cors && { cors }) });
    without = await buildService({ config: demoServiceConfig(), connection: conn });
  });
  afterAll(async () => {
    await withCors?.close();
    await without?.close();
    await conn?.db.destroy();
  });

  it('answers a preflight from an allowed origin with 204 and what it allows', async () => {
    const res = await withCors.inject({ method: 'OPTIONS', url: '/api/users/1', headers: preflight });
    expect(res.statusCode).toBe(204);
    expect(res.headers['access-control-allow-origin']).toBe(APP);
    expect(res.headers['access-control-allow-credentials']).toBe('true');
    expect(String(res.headers['access-control-allow-methods']).split(/,\s*/)).toEqual([
      'GET',
      'HEAD',
      'POST',
      'PATCH',
      'DELETE',
    ]);
    expect(String(res.headers['access-control-allow-headers']).toLowerCase()).toBe(
      'authorization,content-type',
    );
    expect(String(res.headers.vary)).toMatch(/origin/i);
    const list = await withCors.inject({ method: 'OPTIONS', url: '/api/users', headers: preflight });
    expect(list.statusCode).toBe(204);
    expect(list.headers['access-control-allow-origin']).toBe(APP);
  });

  it('marks responses to the allowed origin, errors included, and no other', async () => {
    const ok = await withCors.inject({ url: '/api/users?per_page=1', headers: { origin: APP } });
    expect(ok.statusCode).toBe(200);
    expect(ok.headers['access-control-allow-origin']).toBe(APP);
    expect(ok.headers['access-control-allow-credentials']).toBe('true');
    // A page's script reads a record's ETag (for If-Match), a created record's Location, and the name
    // an export is saved under.
    expect(String(ok.headers['access-control-expose-headers']).split(/,\s*/)).toEqual([
      'ETag',
      'Location',
      'Content-Disposition',
    ]);
    expect(ok.headers.etag).toBeDefined();
    // The browser can read the refusals too: a 401 for a bad token, a 403 for the viewer, a 422.
    const bad = await withCors.inject({
      url: '/api/users',
      headers: { origin: APP, authorization: 'Bearer not.a.token' },
    });
    expectInvalid(bad);
    expect(bad.headers['access-control-allow-origin']).toBe(APP);
    const viewer = await withCors.inject({
      method: 'PATCH',
      url: '/api/users/1',
      headers: {
        origin: APP,
        authorization: `Bearer ${demoTokens.viewer}`,
        'content-type': 'application/json',
      },
      payload: '{"name":"x"}',
    });
    expect(viewer.statusCode).toBe(403);
    expect(viewer.headers['access-control-allow-origin']).toBe(APP);
    const invalid = await withCors.inject({ url: '/api/users?filter[nope]=1', headers: { origin: APP } });
    expect(invalid.statusCode).toBe(422);
    expect(invalid.headers['access-control-allow-origin']).toBe(APP);

    const evil = await withCors.inject({
      url: '/api/users?per_page=1',
      headers: { origin: 'https://evil.example' },
    });
    expect(evil.statusCode).toBe(200);
    // (@fastify/cors still sends allow-credentials; without allow-origin the browser reads nothing.)
    expect(evil.headers['access-control-allow-origin']).toBeUndefined();
    const evilPreflight = await withCors.inject({
      method: 'OPTIONS',
      url: '/api/users/1',
      headers: { ...preflight, origin: 'https://evil.example' },
    });
    expect(evilPreflight.headers['access-control-allow-origin']).toBeUndefined();
    // A look-alike is not the origin.
    const lookalike = await withCors.inject({
      url: '/api/users?per_page=1',
      headers: { origin: 'https://app.example.com.evil.example' },
    });
    expect(lookalike.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('sends no CORS header at all when CORS is not configured', async () => {
    const get = await without.inject({ url: '/api/users?per_page=1', headers: { origin: APP } });
    expect(get.statusCode).toBe(200);
    const options = await without.inject({ method: 'OPTIONS', url: '/api/users/1', headers: preflight });
    // A preflight is just an OPTIONS request here: a method the path does not enable.
    expect(options.statusCode).toBe(405);
    expect(options.headers.allow).toBeDefined();
    for (const res of [get, options])
      expect(Object.keys(res.headers).filter((name) => name.startsWith('access-control-'))).toEqual([]);
  });

  it('with CORS_ORIGINS=*, allows every origin without credentials', async () => {
    const cors = corsOptionsFrom({ CORS_ORIGINS: '*' });
    const app = await buildService({ config: demoServiceConfig(), connection: conn, ...(cors && { cors }) });
    try {
      const res = await app.inject({
        url: '/api/users?per_page=1',
        headers: { origin: 'https://any.example' },
      });
      expect(res.headers['access-control-allow-origin']).toBe('*');
      expect(res.headers['access-control-allow-credentials']).toBeUndefined();
    } finally {
      await app.close();
    }
  });
});

describe('CORS through the Fastify plugin in a host application', () => {
  let conn: Connection;
  let app: FastifyInstance;
  beforeAll(async () => {
    conn = await fixtureDatabase('cors_plugin');
    app = Fastify();
    app.get('/host/health', async () => ({ ok: true }));
    await app.register(resourceQueryPlugin, {
      config: demoServiceConfig(),
      connection: conn,
      prefix: '/api',
      cors: { origin: [APP], credentials: true, methods: ['GET', 'HEAD', 'PATCH'] },
    });
    await app.ready();
  });
  afterAll(async () => {
    await app?.close();
    await conn?.db.destroy();
  });

  it('answers preflights on the service’s routes', async () => {
    for (const url of ['/api/users/1', '/api/users', '/api/v1/users/schema']) {
      const res = await app.inject({ method: 'OPTIONS', url, headers: preflight });
      expect(res.statusCode, url).toBe(204);
      expect(res.headers['access-control-allow-origin'], url).toBe(APP);
      expect(res.headers['access-control-allow-credentials'], url).toBe('true');
      expect(String(res.headers['access-control-allow-methods'])).toContain('PATCH');
    }
    const patch = await app.inject({
      method: 'PATCH',
      url: '/api/users/2',
      headers: {
        origin: APP,
        authorization: `Bearer ${demoTokens.editor}`,
        'content-type': 'application/json',
      },
      payload: '{"name":"Cross Origin"}',
    });
    expect(patch.statusCode, patch.body).toBe(200);
    expect(patch.headers['access-control-allow-origin']).toBe(APP);
    expect(patch.json().name).toBe('Cross Origin');
  });

  it('leaves the host’s own routes outside the prefix alone', async () => {
    const get = await app.inject({ url: '/host/health', headers: { origin: APP } });
    expect(get.statusCode).toBe(200);
    expect(get.json()).toEqual({ ok: true });
    const options = await app.inject({ method: 'OPTIONS', url: '/host/health', headers: preflight });
    expect(options.statusCode).toBe(404);
    for (const res of [get, options])
      expect(Object.keys(res.headers).filter((name) => name.startsWith('access-control-'))).toEqual([]);
  });
});

/** The environment of a child process: this one's, without AUTH_JWT_* or CORS_*, plus `extra`. */
function childEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env))
    if (!name.startsWith('AUTH_JWT_') && !name.startsWith('CORS_') && name !== 'DATABASE_POOL_SIZE')
      env[name] = value;
  return { ...env, LOG_LEVEL: 'warn', ...extra };
}

interface Started {
  child: ChildProcess;
  base: string;
  output: () => string;
}

/** Starts the built CLI and waits for its "Serving … on <address>" line. */
async function startCli(out: string, config: string, env: Record<string, string>): Promise<Started> {
  const child = spawn(process.execPath, [join(out, 'src/cli/main.js'), '--config', config, '--port', '0'], {
    env: childEnv(env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let text = '';
  child.stdout?.on('data', (chunk) => {
    text += chunk;
  });
  child.stderr?.on('data', (chunk) => {
    text += chunk;
  });
  const base = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`The CLI did not start:\n${text}`)), 30_000);
    const check = () => {
      const match = /Serving \d+ endpoints on (http:\/\/\S+) /.exec(text);
      if (match) {
        clearTimeout(timer);
        resolve(match[1] as string);
      }
    };
    child.stdout?.on('data', check);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`The CLI exited (${code}):\n${text}`));
    });
  });
  return { child, base, output: () => text };
}

async function stopCli(started: Started): Promise<number | null> {
  if (started.child.exitCode !== null) return started.child.exitCode;
  const exited = once(started.child, 'exit');
  started.child.kill('SIGTERM');
  const [code] = await exited;
  return code as number | null;
}

describe('the CLI, built and started as `npm start` does', () => {
  let out: string;
  let noContext: string;
  let database: string;
  beforeAll(() => {
    out = builtPackage();
    const temp = mkdtempSync(join(tmpdir(), 'rqs-cli-'));
    database = join(temp, 'demo.db');
    // A configuration without its own context hook: the CLI gives it one from AUTH_JWT_*.
    noContext = join(temp, 'no-context.mjs');
    const demo = pathToFileURL(join(out, 'examples/demo/config.js')).href;
    writeFileSync(
      noContext,
      `import demo from '${demo}';\nconst { context: _context, ...rest } = demo;\nexport default rest;\n`,
    );
  });
  afterAll(() => {
    if (database) rmSync(join(database, '..'), { recursive: true, force: true });
  });

  it('serves the demo with its key and CORS from the environment, and stops cleanly on SIGTERM', async () => {
    const secret = 'cli-test-secret-0123456789abcdef0123456789';
    const started = await startCli(out, join(out, 'examples/demo/config.js'), {
      DATABASE_URL: `sqlite:${database}`,
      AUTH_JWT_SECRET: secret,
      CORS_ORIGINS: APP,
      CORS_CREDENTIALS: 'true',
    });
    try {
      const list = await fetch(`${started.base}/api/users?per_page=2`, { headers: { origin: APP } });
      expect(list.status).toBe(200);
      expect(list.headers.get('access-control-allow-origin')).toBe(APP);
      expect(list.headers.get('access-control-allow-credentials')).toBe('true');
      expect(((await list.json()) as { data: unknown[] }).data).toHaveLength(2);

      const options = await fetch(`${started.base}/api/users/1`, { method: 'OPTIONS', headers: preflight });
      expect(options.status).toBe(204);
      expect(options.headers.get('access-control-allow-origin')).toBe(APP);

      const update = (token: string) =>
        fetch(`${started.base}/api/users/1`, {
          method: 'PATCH',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', origin: APP },
          body: JSON.stringify({ name: 'Set Through The CLI' }),
        });
      // AUTH_JWT_SECRET replaces the published demo secret: the documented tokens stop working.
      const published = await update(demoTokens.editor);
      expect(published.status).toBe(401);
      expect(published.headers.get('www-authenticate')).toBe('Bearer error="invalid_token"');
      const mine = await hsToken({ sub: 'cli-editor', role: 'editor' }, { secret });
      const updated = await update(mine);
      expect(updated.status).toBe(200);
      expect(((await updated.json()) as { name: string }).name).toBe('Set Through The CLI');
      expect(started.output()).not.toMatch(/error/i);
    } finally {
      expect(await stopCli(started)).toBe(0);
    }
  });

  it('gives a configuration without a context hook the bearer context from AUTH_JWT_*', async () => {
    const secret = 'another-cli-secret-0123456789abcdef012345';
    const started = await startCli(out, noContext, {
      DATABASE_URL: `sqlite:${database}`,
      AUTH_JWT_SECRET: secret,
      AUTH_JWT_ISSUER: ISSUER,
    });
    try {
      const update = (authorization?: string) =>
        fetch(`${started.base}/api/users/2`, {
          method: 'PATCH',
          headers: { 'content-type': 'application/json', ...(authorization && { authorization }) },
          body: JSON.stringify({ name: 'Set Without A Hook' }),
        });
      expect((await update()).status).toBe(401);
      const noIssuer = await hsToken({ sub: 'e', role: 'editor' }, { secret });
      expect((await update(`Bearer ${noIssuer}`)).status).toBe(401);
      const token = await hsToken({ sub: 'e', role: 'editor', iss: ISSUER }, { secret });
      expect((await update(`Bearer ${token}`)).status).toBe(200);
      // No CORS_ORIGINS: no CORS.
      const list = await fetch(`${started.base}/api/users?per_page=1`, { headers: { origin: APP } });
      expect(list.headers.get('access-control-allow-origin')).toBeNull();
    } finally {
      expect(await stopCli(started)).toBe(0);
    }
  });

  it('refuses to start, naming the setting, when the environment is unusable', async () => {
    const cases: [Record<string, string>, RegExp][] = [
      [{ CORS_ORIGINS: '*', CORS_CREDENTIALS: 'true' }, /CORS_ORIGINS=\* cannot be combined/],
      [{ CORS_ORIGINS: 'app.example.com' }, /CORS_ORIGINS entries must be origins/],
      [{ CORS_CREDENTIALS: 'maybe' }, /CORS_CREDENTIALS must be true or false/],
      [{ AUTH_JWT_SECRET: 's', AUTH_JWT_JWKS_URL: 'https://idp.test/jwks' }, /exactly one of/],
      [{ AUTH_JWT_PUBLIC_KEY: 'not a key' }, /AUTH_JWT_PUBLIC_KEY is not a PEM public key/],
      [{ AUTH_JWT_JWKS_URL: 'idp.test/jwks' }, /AUTH_JWT_JWKS_URL "idp.test\/jwks" is not a URL/],
      [{ DATABASE_POOL_SIZE: 'lots' }, /DATABASE_POOL_SIZE/],
    ];
    await Promise.all(
      cases.map(async ([env, message]) => {
        const child = spawn(
          process.execPath,
          [join(out, 'src/cli/main.js'), '--config', join(out, 'examples/demo/config.js'), '--port', '0'],
          {
            env: childEnv({ DATABASE_URL: `sqlite:${database}`, ...env }),
            stdio: ['ignore', 'pipe', 'pipe'],
          },
        );
        let text = '';
        child.stdout?.on('data', (chunk) => {
          text += chunk;
        });
        child.stderr?.on('data', (chunk) => {
          text += chunk;
        });
        const [code] = await once(child, 'exit');
        expect(code, JSON.stringify(env)).toBe(1);
        expect(text, JSON.stringify(env)).toMatch(message);
        // One line naming the problem, not a stack trace.
        expect(text, JSON.stringify(env)).not.toMatch(/\n\s+at /);
      }),
    );
  });
});
