import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Connection } from '../src/sql/connect.js';
import { getOnce, killLeftOver, logLines, startCommand as start, waitUntil } from './support/command.js';
import { dropDatabase, freshDatabase } from './support/databases.js';
import { databaseOf, queryAt, topology, urlAt } from './support/topology.js';

/** A configuration whose setup counts its runs in a table: with workers it must run once. */
const configSource = `import { defineConfig, defineResource } from 'resource-query-service';
export default defineConfig({
  resources: [defineResource({ name: 'items', table: 'items', columns: { id: 'integer', name: 'string' } })],
  endpoints: [{ resource: 'items', allowedFilters: ['name'] }],
  async setup({ db }) {
    await db.schema.createTable('items').ifNotExists()
      .addColumn('id', 'integer', (column) => column.primaryKey())
      .addColumn('name', 'varchar(50)', (column) => column.notNull())
      .execute();
    await db.schema.createTable('setups').ifNotExists().addColumn('at', 'varchar(40)').execute();
    await db.insertInto('setups').values({ at: new Date().toISOString() }).execute();
    await db.deleteFrom('items').execute();
    await db.insertInto('items').values([{ id: 1, name: 'one' }, { id: 2, name: 'two' }]).execute();
  },
});`;

/** A JSON request on a new TCP connection (so the cluster spreads them over the workers). */
function sendOnce(
  method: string,
  url: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { method, agent: false, headers: { 'content-type': 'application/json', ...headers } },
      (res) => {
        let text = '';
        res.on('data', (chunk: Buffer) => {
          text += chunk.toString();
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
      },
    );
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

/** The demo's editor token (docs/demo.md; signed with the demo's published secret). */
const EDITOR =
  'eyJhbGciOiJIUzI1NiJ9.eyJyb2xlIjoiZWRpdG9yIiwic3ViIjoiZGVtby1lZGl0b3IiLCJpYXQiOjE3NjcyMjU2MDB9.HGGcQu6ZR245fu1Ogv_J5XG4Sig8cBZ9YyytYMFzUeE';

/** How many log lines say `msg`. */
const countLines = (output: string, msg: string): number =>
  logLines(output).filter((line) => line.msg === msg).length;

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

const serving = /Serving 1 endpoints on (http:\/\/\S+) \(.*, 2 workers\)/;

describe('--workers 2 (SQLite file, PostgreSQL)', () => {
  let dir: string;
  let pgConn: Connection;
  const children: ChildProcess[] = [];
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'rqs-workers-'));
    writeFileSync(join(dir, 'rqs.config.ts'), configSource);
    pgConn = await freshDatabase('postgres', 'workers');
  });
  afterAll(async () => {
    killLeftOver(children);
    await pgConn?.close();
    await dropDatabase('postgres', 'workers');
    rmSync(dir, { recursive: true, force: true });
  });

  /** Starts two workers on `databaseUrl`, checks both answer, the log, the setup, then SIGTERM. */
  async function serveAndStop(
    databaseUrl: string,
    setups: () => Promise<number>,
    env: Record<string, string> = {},
  ) {
    const started = start(['--config', join(dir, 'rqs.config.ts'), '--port', '0', '--workers', '2'], {
      DATABASE_URL: databaseUrl,
      ...env,
    });
    children.push(started.child);
    await waitUntil(started, 'banner', (output) => serving.test(output));
    const address = serving.exec(started.output())?.[1];
    // Both workers listen before the test counts who answers.
    await waitUntil(
      started,
      'two workers',
      (output) =>
        logLines(output).filter((line) => String(line.msg).startsWith('Server listening at')).length === 2,
    );
    const answers = await Promise.all(
      Array.from({ length: 12 }, () => getOnce(`${address}/api/items?filter%5Bname%5D=two`)),
    );
    for (const answer of answers) {
      expect(answer.status, answer.body).toBe(200);
      expect(JSON.parse(answer.body).data).toEqual([{ id: 2, name: 'two' }]);
    }
    expect((await getOnce(`${address}/health/ready`)).status).toBe(200);
    expect(await setups()).toBe(1);

    // One log stream: every worker's lines are JSON with its id, in the same output (the lines of the
    // last answers may arrive a moment after them).
    await waitUntil(
      started,
      'request logs',
      (output) => countLines(output, 'request completed') === 13,
      10_000,
    );
    const completed = logLines(started.output()).filter((line) => line.msg === 'request completed');
    expect(new Set(completed.map((line) => line.worker))).toEqual(new Set([1, 2]));
    const workerPids = [
      ...new Set(logLines(started.output()).flatMap((line) => (line.worker ? [Number(line.pid)] : []))),
    ];
    expect(workerPids).toHaveLength(2);
    // The banner is written once, by the primary process.
    expect(started.output().match(/Serving 1 endpoints/g)).toHaveLength(1);

    started.child.kill('SIGTERM');
    const [code] = await once(started.child, 'exit');
    expect(code).toBe(0);
    for (const pid of workerPids) expect(alive(pid)).toBe(false);
    const shutdown = logLines(started.output()).filter(
      (line) => line.msg === 'shutting down: finishing requests in flight',
    );
    expect(new Set(shutdown.map((line) => line.worker))).toEqual(new Set([1, 2]));
    return started;
  }

  it('serves one port from two processes on SQLite; SIGTERM ends them all', async () => {
    const file = join(dir, 'workers.db');
    const Database = (await import('better-sqlite3')).default;
    await serveAndStop(`sqlite:${file}`, async () => {
      const db = new Database(file, { readonly: true });
      try {
        return Number((db.prepare('select count(*) as n from setups').get() as { n: number }).n);
      } finally {
        db.close();
      }
    });
  }, 180_000);

  it('takes writers of both processes in turn on a SQLite file: concurrent PATCHes all succeed', async () => {
    const file = join(dir, 'demo-writers.db');
    const started = start(['--config', 'examples/demo/config.ts', '--port', '0', '--workers', '2'], {
      DATABASE_URL: `sqlite:${file}`,
    });
    children.push(started.child);
    await waitUntil(started, 'banner', (output) =>
      /Serving \d+ endpoints on http:\/\/\S+ \(.*, 2 workers\)/.test(output),
    );
    const address = /Serving \d+ endpoints on (http:\/\/\S+)/.exec(started.output())?.[1];
    await waitUntil(
      started,
      'two workers',
      (output) =>
        logLines(output).filter((line) => String(line.msg).startsWith('Server listening at')).length === 2,
    );
    const listed = await getOnce(`${address}/api/users?per_page=8`);
    expect(listed.status, listed.body).toBe(200);
    const ids = (JSON.parse(listed.body).data as { id: number }[]).map((user) => user.id);
    expect(ids).toHaveLength(8);
    const auth = { authorization: `Bearer ${EDITOR}` };
    const failures: string[] = [];
    // Each round, eight writers at once on eight rows: with a plain BEGIN some of them found the
    // other process's commit in between and were refused "database is locked" (503) at once.
    for (let round = 1; round <= 10; round++) {
      const answers = await Promise.all(
        ids.map((id) => sendOnce('PATCH', `${address}/api/users/${id}`, { score: round }, auth)),
      );
      for (const answer of answers)
        if (answer.status !== 200) failures.push(`${answer.status} ${answer.body}`);
    }
    expect(failures).toEqual([]);
    for (const id of ids) {
      const read = await getOnce(`${address}/api/users/${id}`);
      expect(read.status).toBe(200);
      expect(JSON.parse(read.body).score).toBe(10);
    }
    started.child.kill('SIGTERM');
    await once(started.child, 'exit');
  }, 180_000);

  it('on PostgreSQL, each worker’s pool is DATABASE_POOL_TOTAL / workers', async () => {
    const name = await databaseOf(pgConn);
    await serveAndStop(
      urlAt(topology.primaryPort, name),
      async () => {
        // Connections held now: floor(3 / 2) = 1 per worker (12 concurrent requests would have opened
        // more with a larger pool), and the idle one of this test's own connection.
        const [row] = await queryAt<{ n: number }>(
          topology.primaryPort,
          'postgres',
          'select count(*)::int as n from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()',
          [name],
        );
        expect(row?.n).toBeLessThanOrEqual(3);
        const [setups] = await queryAt<{ n: number }>(
          topology.primaryPort,
          name,
          'select count(*)::int as n from setups',
        );
        return setups?.n ?? 0;
      },
      { DATABASE_POOL_TOTAL: '3' },
    );
  }, 180_000);

  it('refuses a total smaller than the number of workers, naming the variable', async () => {
    const started = start(['--config', join(dir, 'rqs.config.ts'), '--port', '0', '--workers', '2'], {
      DATABASE_URL: `sqlite:${join(dir, 'refused.db')}`,
      DATABASE_POOL_TOTAL: '1',
    });
    children.push(started.child);
    const [code] = await once(started.child, 'exit');
    expect(code).toBe(1);
    expect(started.output()).toContain('DATABASE_POOL_TOTAL (1) must be at least the number of workers (2).');
  }, 120_000);
});
