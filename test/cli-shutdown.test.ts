import { Agent, request } from 'node:http';
import { connect as connectTcp } from 'node:net';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { exitCode, servingAddress, useItemsCommand } from './support/command.js';
import { queryAt, topology } from './support/topology.js';

/** A GET through `agent` (keep-alive, as browsers and load balancers ask). */
function getThrough(agent: Agent, url: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    request(url, { agent }, (res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => {
        body += chunk.toString();
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      res.on('error', reject);
    })
      .on('error', reject)
      .end();
  });
}

/** Whether a new TCP connection to `address` is accepted or refused (closed at once either way). */
function connection(address: string): Promise<'accepted' | 'refused'> {
  const { hostname, port } = new URL(address);
  return new Promise((resolve, reject) => {
    const socket = connectTcp({ host: hostname, port: Number(port) });
    socket.once('connect', () => {
      socket.destroy();
      resolve('accepted');
    });
    socket.once('error', (error: NodeJS.ErrnoException) =>
      error.code === 'ECONNREFUSED' ? resolve('refused') : reject(error),
    );
  });
}

/**
 * What docs/configuration.md promises of SIGINT: the service stops accepting connections, finishes the
 * requests in flight, then closes the database pool (and the command exits 0). A request is held in
 * flight by a lock the test takes on the table, so that the signal arrives while its statement waits.
 */
describe('the command stopped by SIGINT with a request in flight (postgres)', () => {
  // A statement may wait a minute (not the default 5 s): the lock below holds it as long as the test needs.
  const items = useItemsCommand('cli_shutdown', { timeoutMs: 60_000 });

  /** How many of the service's statements on items wait for a lock now (a page reads its rows and its total). */
  const waiting = async () => {
    const [row] = await queryAt<{ n: number }>(
      topology.primaryPort,
      'postgres',
      `select count(*)::int as n from pg_stat_activity
        where datname = $1 and wait_event_type = 'Lock' and query like '%from "items"%'`,
      [items.database],
    );
    return row?.n ?? 0;
  };

  // info: Fastify answers the requests (it logs them); warn: the direct reads of Node's server do.
  it.each(['info', 'warn'])(
    'finishes the request, refuses new connections and exits 0 (LOG_LEVEL=%s)',
    async (level) => {
      const started = items.start({
        DATABASE_URL: items.url,
        WORKERS: '1',
        LOG_LEVEL: level,
      });
      const address = await servingAddress(started);
      const agent = new Agent({ keepAlive: true, maxSockets: 1 });
      const locker = new pg.Client({ connectionString: items.url });
      await locker.connect();
      try {
        await locker.query('begin');
        await locker.query('lock table items in access exclusive mode');
        let answered = false;
        const inFlight = getThrough(agent, `${address}/api/items`).finally(() => {
          answered = true;
        });
        await expect.poll(waiting).toBeGreaterThan(0);

        started.child.kill('SIGINT');
        // It stops accepting connections while the request still waits for its rows...
        await expect.poll(() => connection(address)).toBe('refused');
        expect(await waiting()).toBeGreaterThan(0);
        expect(answered).toBe(false);
        expect(started.child.exitCode).toBeNull();

        // ...and answers it in full once the rows can be read.
        await locker.query('rollback');
        const answer = await inFlight;
        expect(answer.status, answer.body).toBe(200);
        // The whole page: its rows (newest key first, the default order) and its total.
        expect(JSON.parse(answer.body)).toMatchObject({
          data: [
            { id: 2, name: 'two' },
            { id: 1, name: 'one' },
          ],
          total: 2,
        });
        // Then it ends by itself, 0: its pool closed. The client keeps its connection alive, as browsers
        // and load balancers do; the command must not wait out its keep-alive timeout (72 s) for it. The
        // bound only tells such a wait (or a hang) from a slow machine.
        const exited = await Promise.race([
          exitCode(started).then((code) => ({ code })),
          new Promise<'hung'>((resolve) => setTimeout(() => resolve('hung'), 20_000).unref()),
        ]);
        expect(exited, started.output()).toEqual({ code: 0 });
      } finally {
        agent.destroy();
        await locker.end();
      }
    },
    180_000,
  );
});
