import type { FastifyInstance } from 'fastify';
import mysql from 'mysql2/promise';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { endpoints } from '../examples/demo/endpoints.js';
import { resources } from '../examples/demo/resources.js';
import { createSchema, dropSchema, syncIdSequence } from '../examples/demo/schema.js';
import { buildService } from '../src/server/standalone.js';
import { type Connection, connect } from '../src/sql/connect.js';
import { dropDatabase, freshDatabase } from './support/databases.js';
import { insertFixture } from './support/fixture.js';
import { TcpProxy } from './support/tcp-proxy.js';

/**
 * Faults between the service and its database, through a real TCP proxy: a connection cut while a write
 * waits inside its transaction, a write held past its deadline by a row lock, and a network that goes
 * silent (a black hole) with connections already pooled. Each request must be answered — 503 with the
 * envelope and Retry-After — never 500, never held for as long as the outage lasts; nothing a refused
 * write sent may stay; the service serves again once the network is back. The outages here last until
 * the answers are in: a request that waited for the network would time the test out.
 */

const servers = ['postgres', 'mysql'] as const;
type Server = (typeof servers)[number];

const TIMEOUT_MS = 1500;
const editor = () => ({ sub: 'faults-editor', role: 'editor' });

/** A session of its own on the database, straight to the server (not through the proxy). */
interface Direct {
  query(text: string, parameters?: unknown[]): Promise<Record<string, unknown>[]>;
  close(): Promise<void>;
}

async function direct(server: Server, database: string): Promise<Direct> {
  if (server === 'postgres') {
    const client = new pg.Client({
      connectionString: `${process.env.TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432'}/${database}`,
    });
    await client.connect();
    return {
      query: async (text, parameters) => {
        let position = 0;
        return (
          await client.query(
            text.replace(/\?/g, () => `$${++position}`),
            parameters,
          )
        ).rows;
      },
      close: () => client.end(),
    };
  }
  const connection = await mysql.createConnection({
    uri: `${process.env.TEST_MYSQL_URL ?? 'mysql://root@127.0.0.1:3306'}/${database}`,
  });
  return {
    query: async (text, parameters) =>
      (await connection.query(text, parameters))[0] as Record<string, unknown>[],
    close: () => connection.end(),
  };
}

async function until(condition: () => Promise<boolean>, ms: number, every = 50): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await condition()) return true;
    await new Promise((resolve) => setTimeout(resolve, every));
  }
  return condition();
}

/** The 503 of a database that could not serve the request: envelope, Retry-After, no 500. */
function expectUnavailable(res: { statusCode: number; body: string; headers: Record<string, unknown> }) {
  expect(res.statusCode, res.body).toBe(503);
  expect(res.headers['retry-after']).toBe('5');
  const body = JSON.parse(res.body) as { message: string; errors: Record<string, string[]> };
  expect(typeof body.message).toBe('string');
  // `database` (could not be reached) or `query` (stopped at its deadline).
  expect(Object.keys(body.errors).some((key) => key === 'database' || key === 'query')).toBe(true);
}

for (const server of servers) {
  describe(`faults between the service and ${server}, through a TCP proxy`, () => {
    const name = `faults_${server}`;
    const database = `rqs_${name}_${process.pid}`;
    let setup: Connection;
    let proxy: TcpProxy;
    let connection: Connection;
    let app: FastifyInstance;
    let locker: Direct;
    /** Looks at the server from outside the locker's transaction (pg_stat_activity is a snapshot per transaction). */
    let watcher: Direct;

    beforeAll(async () => {
      setup = await freshDatabase(server, name);
      await dropSchema(setup);
      await createSchema(setup);
      await insertFixture(setup);
      for (const table of ['users', 'posts'] as const) await syncIdSequence(setup, table);
      proxy = await TcpProxy.start(server === 'postgres' ? 5432 : 3306);
      const scheme = server === 'postgres' ? 'postgres://postgres' : 'mysql://root';
      connection = connect(`${scheme}@127.0.0.1:${proxy.port}/${database}`, {
        acquireTimeoutMs: 1000,
        poolSize: 4,
      });
      app = await buildService({
        config: {
          resources,
          endpoints: endpoints.map((endpoint) => ({ ...endpoint, timeoutMs: TIMEOUT_MS })),
          context: editor,
          introspect: false,
        },
        connection,
      });
      locker = await direct(server, database);
      watcher = await direct(server, database);
    }, 120_000);

    afterAll(async () => {
      await app?.close();
      await connection?.close().catch(() => {});
      await locker?.close().catch(() => {});
      await watcher?.close().catch(() => {});
      await proxy?.close();
      await setup?.db.destroy();
      await dropDatabase(server, name);
    });

    const scoreOf = async (id: number) =>
      Number((await locker.query('select score from users where id = ?', [id]))[0]?.score);

    /**
     * Whether a statement of the service that starts with `prefix` (select, insert) waits for a row lock
     * now. Asked every 250 ms, after 250 ms: MariaDB answers innodb_trx from a cache that a read less
     * than 100 ms after the last one does not refresh.
     */
    const waitsFor = (prefix: string) => async () => {
      const rows =
        server === 'postgres'
          ? await watcher.query(
              "select count(*)::int as n from pg_stat_activity where wait_event_type = 'Lock' and datname = current_database() and query like ?",
              [`${prefix}%`],
            )
          : await watcher.query(
              "select count(*) as n from information_schema.innodb_trx where trx_state = 'LOCK WAIT' and trx_query like ?",
              [`${prefix}%`],
            );
      return Number(rows[0]?.n) > 0;
    };

    /** Holds user `id`'s row locked in a transaction of its own while `during` runs. */
    async function whileLocked<T>(id: number, during: () => Promise<T>): Promise<T> {
      await locker.query('begin');
      await locker.query('select id from users where id = ? for update', [id]);
      try {
        return await during();
      } finally {
        await locker.query('rollback');
      }
    }

    /** Waits until the service's statement waits for the lock, then cuts every proxied connection. */
    const cutWhileWaiting = async (prefix: string) => {
      await new Promise((resolve) => setTimeout(resolve, 250));
      expect(await until(waitsFor(prefix), 10_000, 250)).toBe(true);
      proxy.cut();
    };

    it('a PATCH whose connection is cut while it waits for a row lock answers 503 and changes nothing', async () => {
      const before = await scoreOf(1);
      const res = await whileLocked(1, async () => {
        const patch = app.inject({ method: 'PATCH', url: '/api/users/1', payload: { score: before + 1 } });
        const waiting = patch.then((answer) => answer);
        await cutWhileWaiting('select');
        return waiting;
      });
      expectUnavailable(res);
      expect(await scoreOf(1)).toBe(before);
      // The broken connections are gone from the pool: the next write is served.
      const again = await app.inject({
        method: 'PATCH',
        url: '/api/users/1',
        payload: { score: before + 2 },
      });
      expect(again.statusCode, again.body).toBe(200);
      expect(await scoreOf(1)).toBe(before + 2);
    }, 60_000);

    it('a create whose connection is cut while it waits for a lock answers 503 and inserts nothing', async () => {
      const title = `cut-${server}-${Date.now()}`;
      const res = await whileLocked(1, async () => {
        const create = app.inject({
          method: 'POST',
          url: '/api/posts',
          payload: { title, body: 'x', status: 'draft', user_id: 1 },
        });
        const waiting = create.then((answer) => answer);
        await cutWhileWaiting('insert');
        return waiting;
      });
      expectUnavailable(res);
      expect(await locker.query('select id from posts where title = ?', [title])).toEqual([]);
    }, 60_000);

    it('a PATCH held by a row lock past the endpoint timeout is stopped: 503 `query`, nothing written', async () => {
      const before = await scoreOf(2);
      const res = await whileLocked(2, () =>
        app.inject({ method: 'PATCH', url: '/api/users/2', payload: { score: before + 5 } }),
      );
      expectUnavailable(res);
      expect(res.json().errors.query).toEqual([
        `The query took longer than ${TIMEOUT_MS} ms and was stopped.`,
      ]);
      expect(await scoreOf(2)).toBe(before);
      // The database no longer runs it.
      await new Promise((resolve) => setTimeout(resolve, 250));
      expect(await until(async () => !(await waitsFor('select')()), 10_000, 250)).toBe(true);
    }, 60_000);

    it('a silent network answers every route 503 instead of waiting for it, then serves again', async () => {
      const requests = () => [
        app.inject({ url: '/api/users/1' }),
        app.inject({ method: 'PATCH', url: '/api/users/1', payload: { score: 42 } }),
        app.inject({ url: '/api/users?count=posts&include=department' }),
        app.inject({ url: '/api/comments?all=true' }),
        // An export's first batch is read before its answer starts: a 503, not a 200 cut short.
        app.inject({ url: '/api/comments?format=csv' }),
        app.inject({ url: '/api/comments', headers: { accept: 'application/x-ndjson' } }),
      ];
      const served = async () => (await app.inject({ url: '/api/users/1' })).statusCode === 200;
      // Connections in use a moment ago: each statement meets its deadline.
      expect(await until(served, 10_000)).toBe(true);
      proxy.silence();
      for (const res of await Promise.all(requests())) expectUnavailable(res);
      proxy.heal();
      expect(await until(served, 10_000)).toBe(true);
      // Connections idle for a while: the check before reuse finds them silent.
      await new Promise((resolve) => setTimeout(resolve, 1500));
      proxy.silence();
      for (const res of await Promise.all(requests())) expectUnavailable(res);
      proxy.heal();
      expect(await until(served, 10_000)).toBe(true);
      const patched = await app.inject({ method: 'PATCH', url: '/api/users/1', payload: { score: 43 } });
      expect(patched.statusCode, patched.body).toBe(200);
      expect(await scoreOf(1)).toBe(43);
    }, 90_000);
  });
}
