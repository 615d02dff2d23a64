import { mkdtempSync } from 'node:fs';
import { connect as netConnect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { endpoints as demoEndpoints } from '../examples/demo/endpoints.js';
import { resources } from '../examples/demo/resources.js';
import { createSchema } from '../examples/demo/schema.js';
import { defineEndpoint } from '../src/resource/policy.js';
import { buildService } from '../src/server/standalone.js';
import { type Connection, connect } from '../src/sql/connect.js';
import type { DialectName } from '../src/sql/dialect.js';
import { dialects } from './support/databases.js';
import { insertFixture, users } from './support/fixture.js';
import { snapshot, useService } from './support/service.js';

for (const dialect of dialects) {
  describe(`nothing a client sends is silently dropped, on ${dialect}`, () => {
    const svc = useService(dialect, 'hardening');

    it('refuses keys named __proto__, constructor or prototype, naming the parameter', async () => {
      const cases: [string, string][] = [
        ['filter[__proto__][status]=active', 'filter.__proto__.status'],
        ['filter[status][__proto__]=x', 'filter.status.__proto__'],
        ['filter[or][__proto__][0][status]=banned', 'filter.or.__proto__.0.status'],
        ['%5F%5Fproto%5F%5F[status]=x', '__proto__.status'],
        ['filter[constructor]=x', 'filter.constructor'],
        ['filter[status][prototype]=x&per_page=2', 'filter.status.prototype'],
        ['filter%5Bstatus%5D%5B__proto__%5D=x', 'filter.status.__proto__'],
      ];
      for (const [query, key] of cases) {
        const res = await svc.get(`/api/users?${query}`);
        expect(res.status, query).toBe(422);
        expect(Object.keys(res.body.errors), query).toEqual([key]);
        expect(res.body.message).toContain('cannot be the name');
      }
    });

    it('still reads such words where they are values', async () => {
      const res = await svc.get(
        '/api/users?filter[name][contains]=__proto__&filter[email][contains]=constructor',
      );
      expect(res.status).toBe(200);
      expect(res.body.data).toEqual([]);
    });
  });
}

for (const dialect of dialects) {
  describe(`page links and the Host header on ${dialect}`, () => {
    const svc = useService(dialect, 'hosts');
    const trusting = useService(dialect, 'trusted_hosts', { trustedHosts: ['api.example.com'] });

    it('builds links from a plain Host and refuses anything else with the envelope', async () => {
      const ok = await svc.inject({
        url: '/api/users?per_page=2',
        headers: { host: 'API.example.com:8080' },
      });
      expect(ok.statusCode).toBe(200);
      expect(ok.json().next_page_url).toBe('http://API.example.com:8080/api/users?per_page=2&page=2');
      // Asked twice: a refused Host is refused again (only accepted ones are remembered).
      for (const host of ['evil.example:1@x', 'a b', 'x/y', 'example.com:99999999', 'example.com.'])
        for (const _ of [1, 2]) {
          const res = await svc.inject({ url: '/api/users', headers: { host } });
          expect(res.statusCode, host).toBe(400);
          expect(Object.keys(res.json().errors), host).toEqual(['host']);
          expect(res.body).not.toContain('evil');
        }
    });

    it('with trustedHosts, answers only the hosts it lists', async () => {
      const ok = await trusting.inject({ url: '/api/users', headers: { host: 'api.example.com' } });
      expect(ok.statusCode).toBe(200);
      // A host another service accepted is still checked against this one's list, every time.
      const elsewhere = await svc.inject({ url: '/api/users', headers: { host: 'other.example.com' } });
      expect(elsewhere.statusCode).toBe(200);
      for (const _ of [1, 2]) {
        const other = await trusting.inject({ url: '/api/users', headers: { host: 'other.example.com' } });
        expect(other.statusCode).toBe(400);
        expect(other.json().errors.host[0]).toContain('other.example.com');
      }
    });
  });
}

/** An endpoint whose form writes columns with database rules: a unique email, a foreign key, lengths. */
const writable = defineEndpoint({
  resource: 'users',
  path: 'writable',
  allowedFilters: ['status'],
  access: { update: () => true },
  schema: {
    table: { columns: [{ key: 'id' }] },
    form: {
      inputs: [
        { name: 'email', label: 'email address', type: 'email' },
        { name: 'department_id', label: 'department', type: 'number' },
        { name: 'name', type: 'text', maxLength: 1000 },
        { name: 'balance', type: 'number' },
      ],
    },
  },
});

for (const dialect of dialects) {
  describe(`writes the database refuses, on ${dialect}`, () => {
    const svc = useService(dialect, 'refusals', { endpoints: [writable] });
    const patch = (id: number, body: unknown) =>
      svc.inject({ method: 'PATCH', url: `/api/writable/${id}`, payload: body as object });

    it('answers a unique value already taken with 409 keyed by the field, and changes nothing', async () => {
      const before = await snapshot(svc.conn);
      const res = await patch(2, { email: 'anna@example.com' });
      expect(res.statusCode, res.body).toBe(409);
      expect(res.json()).toEqual({
        message: 'This email address is already taken.',
        errors: { email: ['This email address is already taken.'] },
      });
      expect(await snapshot(svc.conn)).toBe(before);
    });

    it('lets exactly one of 20 parallel PATCHes take a free email; the others get 409, none a 5xx', async () => {
      const ids = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].filter((id) =>
        users.some((u) => u.id === id && !u.deleted_at),
      );
      const answers = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          patch(ids[i % ids.length] as number, { email: 'race@example.com' }),
        ),
      );
      const statuses = answers.map((answer) => answer.statusCode);
      expect(statuses.filter((status) => status >= 500)).toEqual([]);
      // The same user may set its own email twice: the winners are one user's PATCHes.
      const winners = new Set(answers.filter((a) => a.statusCode === 200).map((a) => a.json().id));
      expect(winners.size).toBe(1);
      expect(statuses.filter((status) => status === 409).length).toBeGreaterThan(0);
      expect(statuses.every((status) => status === 200 || status === 409)).toBe(true);
    });

    it('answers a foreign key to nothing with 422 keyed by the field', async () => {
      const res = await patch(1, { department_id: 999 });
      expect(res.statusCode, res.body).toBe(422);
      expect(res.json().errors).toEqual({ department_id: ['The selected department does not exist.'] });
    });

    it('answers a value longer than the column with 422, not 500', async () => {
      const res = await patch(1, { name: 'x'.repeat(300) });
      // varchar(255): PostgreSQL and MariaDB refuse it; SQLite stores any length.
      if (dialect === 'sqlite') expect(res.statusCode).toBe(200);
      else {
        expect(res.statusCode, res.body).toBe(422);
        expect(res.json().errors).toEqual({ name: ['The name field is too long for the database.'] });
      }
    });
  });

  describe(`a database that cannot be reached, on ${dialect}`, () => {
    it('answers 503 with the envelope and Retry-After, the cause in the log only', async () => {
      const logs: string[] = [];
      const conn = await unreachable(dialect);
      const app = await buildService({
        config: { resources, endpoints: [writable], introspect: false },
        connection: conn.connection,
        logger: { level: 'warn', stream: { write: (line: string) => logs.push(line) } },
      });
      try {
        const requests = [
          { method: 'PATCH' as const, url: '/api/writable/1', payload: { name: 'Locked out' } },
          // SQLite in WAL mode never blocks a read: only a write waits for the lock.
          ...(dialect === 'sqlite'
            ? []
            : ['/api/writable', '/api/writable?pagination=cursor'].map((url) => ({
                method: 'GET' as const,
                url,
              }))),
        ];
        for (const request of requests) {
          const res = await app.inject(request);
          expect(res.statusCode, res.body).toBe(503);
          expect(res.headers['retry-after']).toBe('5');
          expect(res.json()).toEqual({
            message: 'The database is unavailable; try again in a few seconds.',
            errors: { database: ['The database is unavailable; try again in a few seconds.'] },
          });
        }
        expect(logs.join('\n')).toMatch(/database refused the (request|update) \(unavailable\)/);
      } finally {
        await app.close();
        await conn.release();
      }
    });
  });
}

/**
 * A connection to a database that cannot serve it: PostgreSQL and MariaDB on a port nothing listens on;
 * SQLite with the write lock held by another connection past the busy timeout.
 */
async function unreachable(
  dialect: DialectName,
): Promise<{ connection: Connection; release: () => Promise<void> }> {
  if (dialect === 'postgres')
    return { connection: connect('postgres://postgres@127.0.0.1:9/none'), release: async () => {} };
  if (dialect === 'mysql')
    return { connection: connect('mysql://root@127.0.0.1:9/none'), release: async () => {} };
  const file = join(mkdtempSync(join(tmpdir(), 'rqs-locked-')), 'locked.db');
  const connection = connect(`sqlite:${file}`, { busyTimeoutMs: 50 });
  await createSchema(connection);
  await insertFixture(connection);
  const holder = new Database(file);
  holder.exec('begin immediate');
  holder.exec('update users set name = name where id = 1');
  return {
    connection,
    release: async () => {
      holder.exec('rollback');
      holder.close();
      await connection.db.destroy();
    },
  };
}

for (const dialect of dialects) {
  describe(`declarations the database contradicts, on ${dialect}`, () => {
    const svc = useService(dialect, 'declared');

    it('stops at start-up when a declared column (one a form writes) is missing from the table', async () => {
      const withNickname = resources.map((resource) =>
        resource.name === 'users'
          ? { ...resource, columns: { ...resource.columns, nickname: 'string' as const } }
          : resource,
      );
      const nicknameForm = defineEndpoint({
        ...writable,
        schema: {
          table: { columns: [{ key: 'id' }] },
          form: { inputs: [{ name: 'nickname', type: 'text' }] },
        },
      });
      await expect(
        buildService({
          config: { resources: withNickname, endpoints: [nicknameForm] },
          connection: svc.conn,
        }),
      ).rejects.toThrow(/column "users\.nickname" is declared, but the database's table has no such column/);
      // Without introspection the declaration is trusted: the service starts.
      const app = await buildService({
        config: { resources: withNickname, endpoints: [nicknameForm], introspect: false },
        connection: svc.conn,
      });
      await app.close();
    });
  });
}

for (const dialect of dialects) {
  describe(`form-sized bodies, on ${dialect}`, () => {
    const svc = useService(dialect, 'bodies', { endpoints: demoEndpoints });

    it('accepts a textarea at its documented 65,535 characters and refuses one more with 422, not 413', async () => {
      // Quotes and newlines take two bytes each in JSON: the body is far over the old 64 KiB limit.
      const longest = 'ab"\n'.repeat(65_535 / 5) + 'x'.repeat((65_535 % 5) + 65_535 / 5);
      expect(longest).toHaveLength(65_535);
      const ok = await svc.inject({ method: 'PATCH', url: '/api/posts/1', payload: { body: longest } });
      expect(ok.statusCode, ok.body.slice(0, 200)).toBe(200);
      expect(ok.json().body).toBe(longest);
      const over = await svc.inject({
        method: 'PATCH',
        url: '/api/posts/1',
        payload: { body: `${longest}x` },
      });
      expect(over.statusCode).toBe(422);
      expect(over.json().errors.body[0]).toContain('65535');
    });
  });
}

for (const dialect of dialects) {
  describe(`clearer answers, on ${dialect}`, () => {
    const svc = useService(dialect, 'clearer');

    it('lists, for an unknown operator, only the operators of that field’s kind', async () => {
      const res = await svc.get('/api/users?filter[score][like]=1');
      expect(res.status).toBe(422);
      const [message] = res.body.errors['filter.score'];
      expect(message).toContain('Unknown operator "like"');
      expect(message).toContain('integer column');
      expect(message).toContain('gte');
      expect(message).not.toContain('starts_with');
    });

    it('says a JSON path is too deep instead of "not authorized"', async () => {
      const res = await svc.get('/api/users?filter[settings.a.b.c.d.e.f.g.h.i]=x');
      expect(res.status).toBe(422);
      expect(res.body.errors['filter.settings.a.b.c.d.e.f.g.h.i']).toEqual([
        'The filter "settings.a.b.c.d.e.f.g.h.i" is 9 keys deep inside "settings": a path inside a JSON column is at most 8 keys deep.',
      ]);
    });

    it('reads include[], count[] and sort[] (what axios and qs send) like comma-separated lists', async () => {
      const pairs = [
        ['include[]=roles&include[]=department', 'include=roles,department'],
        ['count[]=posts&count[]=roles', 'count=posts,roles'],
        ['sort[]=-score&sort[]=name', 'sort=-score,name'],
        ['include=roles&include=profile', 'include=roles,profile'],
      ];
      for (const [asArray, asList] of pairs) {
        const a = await svc.get(`/api/users-loaded?per_page=4&${asArray}`);
        const b = await svc.get(`/api/users-loaded?per_page=4&${asList}`);
        expect(a.status, asArray).toBe(200);
        expect(a.body.data, asArray).toEqual(b.body.data);
      }
    });

    it('reads sort=+score (the + arrives as a space) as ascending', async () => {
      const plus = await svc.get('/api/users-loaded?sort=+score&per_page=100');
      const encoded = await svc.get('/api/users-loaded?sort=%2Bscore&per_page=100');
      const plain = await svc.get('/api/users-loaded?sort=score&per_page=100');
      expect(plus.status).toBe(200);
      expect(plus.body.data).toEqual(plain.body.data);
      expect(encoded.body.data).toEqual(plain.body.data);
    });
  });
}

/**
 * Sends raw bytes on one keep-alive connection and collects everything the server writes until it
 * closes the connection or `ms` pass: how the connection ended ('end' or the error's code) and the text.
 */
function rawExchange(port: number, requests: Buffer[], ms = 2000): Promise<{ text: string; ended: string }> {
  return new Promise((resolve) => {
    const socket = netConnect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    const done = (ended: string) => {
      clearTimeout(timer);
      socket.destroy();
      resolve({ text: Buffer.concat(chunks).toString('utf8'), ended });
    };
    const timer = setTimeout(() => done('open'), ms);
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('end', () => done('end'));
    socket.on('error', (error: NodeJS.ErrnoException) => done(error.code ?? 'error'));
    socket.on('connect', () => {
      for (const request of requests) socket.write(request);
    });
  });
}

for (const dialect of dialects) {
  describe(`answers made before routing, on ${dialect}`, () => {
    const svc = useService(dialect, 'prerouting');

    it('answers an over-long request line with the envelope and Connection: close, then closes cleanly', async () => {
      const address = await svc.app.listen({ port: 0, host: '127.0.0.1' });
      const port = Number(new URL(address).port);
      const long = Buffer.from(
        `GET /api/users?filter[name]=${'a'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`,
      );
      const { text, ended } = await rawExchange(port, [long]);
      expect(text).toMatch(/^HTTP\/1\.1 431 /);
      expect(text.toLowerCase()).toContain('connection: close');
      const body = JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4));
      expect(body).toEqual({
        message: 'The request line or headers are too long.',
        errors: { request: ['The request line or headers are too long.'] },
      });
      expect(ended).toBe('end');

      const garbage = await rawExchange(port, [Buffer.from('BREW /pot HTCPCP/1.0\r\n\r\n')]);
      expect(garbage.text).toMatch(/^HTTP\/1\.1 400 /);
      expect(
        JSON.parse(garbage.text.slice(garbage.text.indexOf('\r\n\r\n') + 4)).errors.request,
      ).toHaveLength(1);

      // Raw bytes that are not ASCII in the request target, and an escape that does not decode.
      for (const target of [Buffer.from('/api/users?filter[name]=é', 'utf8'), Buffer.from('/api/%E0%A4%A')]) {
        const request = Buffer.concat([
          Buffer.from('GET '),
          target,
          Buffer.from(' HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'),
        ]);
        const { text: answer } = await rawExchange(port, [request]);
        const status = Number(answer.slice(9, 12));
        expect(status === 200 || (status >= 400 && status < 500), answer.slice(0, 80)).toBe(true);
        const json = JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4));
        if (status !== 200) expect(typeof json.message).toBe('string');
      }
    });
  });
}

for (const dialect of dialects) {
  describe(`declared decimal precision and scale, on ${dialect}`, () => {
    const svc = useService(dialect, 'decimals', { endpoints: [writable] });
    const patch = (body: unknown) =>
      svc.inject({ method: 'PATCH', url: '/api/writable/1', payload: body as object });

    it('refuses values outside numeric(12, 2) with 422 naming the field, the same on every engine', async () => {
      const before = await snapshot(svc.conn);
      const cases: [number, string][] = [
        [1e14, 'The balance field must be between -9999999999.99 and 9999999999.99.'],
        [-1e10, 'The balance field must be between -9999999999.99 and 9999999999.99.'],
        [0.001, 'The balance field must have at most 2 decimal places.'],
        [12.345, 'The balance field must have at most 2 decimal places.'],
      ];
      for (const [balance, message] of cases) {
        const res = await patch({ balance });
        expect(res.statusCode, String(balance)).toBe(422);
        expect(res.json().errors).toEqual({ balance: [message] });
      }
      expect(await snapshot(svc.conn)).toBe(before);
    });

    it('stores values inside it exactly', async () => {
      for (const balance of [12.34, 9_999_999_999.99, -0.5, 12.3]) {
        const res = await patch({ balance });
        expect(res.statusCode, res.body).toBe(200);
        expect(res.json().balance).toBe(balance);
      }
    });
  });
}
