import { get } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resources } from '../examples/demo/resources.js';
import { STREAM_BATCH } from '../src/core/list/all-records.js';
import { createService } from '../src/core/service.js';
import { defineEndpoint, defineResource, type ServiceConfig } from '../src/resource/policy.js';
import { buildService, type ServiceOptions } from '../src/server/standalone.js';
import { dialects } from './support/databases.js';
import { editorContext, testEndpoints, useService } from './support/service.js';

/**
 * The CLI's server answers the service's GET requests from Node's HTTP server, without Fastify's
 * objects (src/server/direct.ts). These tests hold it to Fastify's answers, byte for byte, and show
 * when it is and is not taken.
 */

/** The headers that say something about the answer (not the connection's own, nor the date). */
const connectionHeaders = new Set(['date', 'connection', 'keep-alive', 'transfer-encoding']);

interface Exchange {
  status: number;
  headers: Record<string, string>;
  body: string;
}

async function fetched(base: string, url: string, headers: Record<string, string> = {}): Promise<Exchange> {
  const response = await fetch(`${base}${url}`, { headers });
  const kept: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    if (!connectionHeaders.has(name)) kept[name] = value;
  });
  return { status: response.status, headers: kept, body: await response.text() };
}

/**
 * An answer read to its end or to where the server broke it off: `complete` is false when the
 * connection closed before the body's last chunk.
 */
function readToClose(
  base: string,
  url: string,
): Promise<{ status: number; body: string; complete: boolean }> {
  return new Promise((resolve, reject) => {
    get(`${base}${url}`, (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        body += chunk;
      });
      // A body broken off is an `error` on the response (ECONNRESET), which is what is expected here.
      response.on('error', () => {});
      response.on('close', () =>
        resolve({ status: response.statusCode ?? 0, body, complete: response.complete }),
      );
    }).on('error', reject);
  });
}

/** A server of `options` listening on a port, with a count of the requests Fastify's hooks saw. */
async function started(
  options: ServiceOptions,
): Promise<{ app: FastifyInstance; base: string; seen: () => number }> {
  const app = await buildService(options);
  let seen = 0;
  app.addHook('onRequest', async () => {
    seen += 1;
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  return { app, base: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`, seen: () => seen };
}

const urls = [
  '/api/users',
  '/api/users?filter[status]=active&sort=-score&per_page=5',
  '/api/users?pagination=cursor&per_page=3',
  '/api/users-loaded?include=roles.permissions,posts&count=posts&sort=name&per_page=4',
  '/api/users-loaded?all=true',
  '/api/users-unlimited?all=true',
  '/api/users-unlimited?all=true&format=csv',
  '/api/users/1',
  '/api/users/999999',
  '/api/users/not-a-key',
  '/api/users?filter[nope]=1&sort=nope',
  // Escapes in the query string are the core's to decode (a bad one is its 422), on either path.
  '/api/users?filter[name][contains]=%25&per_page=2',
  '/api/users?filter[name][contains]=%zz',
  '/api/users/1/restore',
  '/api/v1/schema',
  '/api/v1/users/schema',
  '/api/openapi.json',
  '/api/nothing-here',
  '/api/users/%zz',
  '/health/live',
];

for (const dialect of dialects) {
  describe(`direct reads on ${dialect}`, () => {
    const svc = useService(dialect, 'direct_reads');
    // Links name the public URL, not each server's own port, so that two servers' answers can be equal.
    const config = {
      resources,
      endpoints: testEndpoints,
      context: editorContext,
      publicUrl: 'https://api.example',
    } as ServiceConfig;
    let direct: Awaited<ReturnType<typeof started>>;
    let viaFastify: Awaited<ReturnType<typeof started>>;
    beforeAll(async () => {
      direct = await started({ config, connection: svc.conn, directReads: true });
      viaFastify = await started({ config, connection: svc.conn });
    });
    afterAll(async () => {
      await direct?.app.close();
      await viaFastify?.app.close();
    });

    it('answers every read as Fastify does: status, headers and body', async () => {
      for (const url of urls) {
        const [mine, theirs] = [await fetched(direct.base, url), await fetched(viaFastify.base, url)];
        expect(mine, url).toEqual(theirs);
      }
      const first = await fetched(direct.base, '/api/users/1');
      const etag = first.headers.etag as string;
      expect(etag).toMatch(/^"/);
      const unchanged = await fetched(direct.base, '/api/users/1', { 'if-none-match': etag });
      expect(unchanged).toEqual(await fetched(viaFastify.base, '/api/users/1', { 'if-none-match': etag }));
      expect(unchanged.status).toBe(304);
      expect(unchanged.body).toBe('');
      // Without a body, nothing describes one (RFC 9110 §15.4.5: the 200's validators, not its type).
      expect(unchanged.headers['content-type']).toBeUndefined();
      expect(unchanged.headers['content-length']).toBeUndefined();
    });

    it("takes the service's GET requests past Fastify, and leaves it every other request", async () => {
      const before = direct.seen();
      expect((await fetched(direct.base, '/api/users?per_page=2')).status).toBe(200);
      expect((await fetched(direct.base, '/api/users/1')).status).toBe(200);
      expect(direct.seen()).toBe(before);
      // Fastify's own paths and a path the service does not answer (an escape that does not decode
      // goes to Fastify too, whose router refuses it before any hook: compared above).
      for (const url of ['/health/live', '/api/nothing-here']) await fetched(direct.base, url);
      expect(direct.seen()).toBe(before + 2);
      const head = await fetch(`${direct.base}/api/users/1`, { method: 'HEAD' });
      expect(head.status).toBe(200);
      const post = await fetch(`${direct.base}/api/users/query`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query: 'per_page=1' }),
      });
      expect(post.status).toBe(200);
      expect(direct.seen()).toBe(before + 4);
      // The server without the option: every request through Fastify.
      const through = viaFastify.seen();
      await fetched(viaFastify.base, '/api/users/1');
      expect(viaFastify.seen()).toBe(through + 1);
    });

    it('breaks off an export that fails after its first batch, as Fastify does, logs why, and serves on', async () => {
      // A table of its own: the first batch (read before the answer starts) and 50 rows after it,
      // whose records a `response` transformer refuses, so the failure comes after the headers.
      const { db } = svc.conn;
      await sql`create table stream_faults (id integer primary key, label varchar(20) not null)`.execute(db);
      const rows = Array.from({ length: STREAM_BATCH + 50 }, (_, i) => ({
        id: i + 1,
        label: `row ${i + 1}`,
      }));
      for (let at = 0; at < rows.length; at += 250)
        await db
          .insertInto('stream_faults')
          .values(rows.slice(at, at + 250))
          .execute();
      const faults: ServiceConfig = {
        resources: [
          defineResource({
            name: 'stream_faults',
            table: 'stream_faults',
            columns: { id: 'integer', label: 'string' },
          }),
        ],
        endpoints: [
          defineEndpoint({
            resource: 'stream_faults',
            allowedSorts: ['id'],
            allowAll: 'unlimited',
            response: (record) => {
              if (Number(record.id) > STREAM_BATCH) throw new Error('the transformer refused a record');
              return record;
            },
          }),
        ],
      };
      const lines: string[] = [];
      const sink = new Writable({
        write(chunk, _encoding, done) {
          lines.push(String(chunk));
          done();
        },
      });
      for (const directReads of [true, false]) {
        const server = await started({
          config: faults,
          connection: svc.conn,
          directReads,
          logger: { level: 'warn', stream: sink },
        });
        try {
          const broken = await readToClose(server.base, '/api/stream_faults?all=true&format=csv&sort=id');
          expect(broken.status).toBe(200);
          // Not a 500 written into a body that has begun, nor a hang: the connection closes early.
          expect(broken.complete).toBe(false);
          expect(broken.body.startsWith('id,label\r\n1,row 1\r\n')).toBe(true);
          expect(broken.body).not.toContain(`${STREAM_BATCH + 1},`);
          const whole = await readToClose(server.base, '/api/stream_faults?per_page=2&sort=id');
          expect(whole).toMatchObject({ status: 200, complete: true });
          expect(JSON.parse(whole.body).data).toEqual([rows[0], rows[1]]);
        } finally {
          await server.app.close();
        }
        // Both paths log why, at warn, in the same words (Fastify's).
        const said = lines
          .splice(0)
          .map((line) => JSON.parse(line) as { level: number; msg: string; err?: { message: string } });
        expect(said, String(directReads)).toContainEqual(
          expect.objectContaining({
            level: 40,
            msg: 'response terminated with an error with headers already sent',
            err: expect.objectContaining({ message: 'the transformer refused a record' }),
          }),
        );
      }
      await sql`drop table stream_faults`.execute(db);
    });

    it('answers a record at once where the engine reads synchronously, the same answer either way', async () => {
      const service = await createService({ config, connection: svc.conn });
      const request = { method: 'GET', url: '/api/users/1', headers: {} };
      const now = service.respond(request);
      // SQLite reads on the calling thread: no promise on the way; the server engines answer later.
      expect(now instanceof Promise).toBe(dialect !== 'sqlite');
      const answer = await now;
      expect(answer?.status).toBe(200);
      expect(answer).toEqual(await service.handle(request));
      // A refusal made at once is an answer too, in the envelope, never a throw.
      expect((await service.respond({ ...request, url: '/api/users/1?sort=name' }))?.status).toBe(422);
      if (dialect !== 'sqlite') return;
      // While a write's transaction holds SQLite's one connection, the read waits its turn instead.
      let during: unknown;
      await svc.conn.db
        .transaction()
        .execute(async (trx) => {
          await sql`update users set name = 'Held' where id = 1`.execute(trx);
          during = service.respond(request);
          throw new Error('roll back');
        })
        .catch(() => undefined);
      expect(during instanceof Promise).toBe(true);
      expect(await during).toEqual(answer);
    });

    it('is not taken where Fastify adds to the answer: CORS, a request log', async () => {
      const lines: string[] = [];
      const sink = new Writable({
        write(chunk, _encoding, done) {
          lines.push(String(chunk));
          done();
        },
      });
      const withCors = await started({
        config,
        connection: svc.conn,
        directReads: true,
        cors: { origin: 'https://app.example' },
      });
      const logged = await started({
        config,
        connection: svc.conn,
        directReads: true,
        logger: { level: 'info', stream: sink },
      });
      try {
        const answer = await fetched(withCors.base, '/api/users/1', { origin: 'https://app.example' });
        expect(answer.headers['access-control-allow-origin']).toBe('https://app.example');
        expect(withCors.seen()).toBe(1);
        expect((await fetched(logged.base, '/api/users/1')).status).toBe(200);
        expect(logged.seen()).toBe(1);
        expect(lines.some((line) => line.includes('request completed'))).toBe(true);
      } finally {
        await withCors.app.close();
        await logged.app.close();
      }
    });
  });
}
