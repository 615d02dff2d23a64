import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resources } from '../../examples/demo/resources.js';
import { createSchema } from '../../examples/demo/schema.js';
import { type Connection, connect } from '../../src/sql/connect.js';
import type { Statement } from '../../src/sql/dialect.js';
import { dropDatabase, freshDatabase } from '../support/databases.js';
import { insertFixture } from '../support/fixture.js';
import { type Host, startHost } from '../support/hosts.js';
import { editorContext, testEndpoints } from '../support/service.js';
import { recordInto } from '../support/statements.js';
import {
  databaseOf,
  queryAt,
  replicaCaughtUp,
  rewriteComment,
  startReplica,
  stopReplica,
  topology,
  topologyUp,
  urlAt,
  writableComments,
} from '../support/topology.js';

/** How long a failed replica is left out in this suite (the default is 5 s). */
const RETRY_MS = 300;

/** The service's statements on the replica: what its backends for database `name` last ran, when it started after `since`. */
async function replicaStatements(name: string, since = new Date(0)): Promise<string[]> {
  const rows = await queryAt<{ query: string }>(
    topology.replicaPort,
    'postgres',
    'select query from pg_stat_activity where datname = $1 and pid <> pg_backend_pid() and query_start > $2',
    [name, since],
  );
  return rows.map((row) => row.query);
}

/**
 * Index and sequential scans of each table of database `name` on the replica, as its statistics count
 * them (a standby keeps its own): what every statement run there leaves, not only a connection's last.
 */
async function scansOnReplica(name: string): Promise<Record<string, number>> {
  const rows = await queryAt<{ relname: string; scans: string }>(
    topology.replicaPort,
    name,
    'select relname, coalesce(seq_scan, 0) + coalesce(idx_scan, 0) as scans from pg_stat_user_tables',
  );
  return Object.fromEntries(rows.map((row) => [row.relname, Number(row.scans)]));
}

/** How many of the statements read each table (`from "t"`, `join "t"`). */
function readsByTable(sql: readonly string[]): Record<string, number> {
  const reads: Record<string, number> = {};
  for (const text of sql)
    for (const table of new Set([...text.matchAll(/(?:from|join) "(\w+)"/g)].map((match) => match[1] ?? '')))
      reads[table] = (reads[table] ?? 0) + 1;
  return reads;
}

/**
 * Reads on a real streaming replica (pg_basebackup of the machine's PostgreSQL, see
 * .ci/replica-and-pgbouncer.sh), writes on the primary. PostgreSQL only.
 */
describe('read replicas (postgres)', () => {
  let direct: Connection;
  let routed: Connection;
  let name: string;
  let host: Host;
  /** Every statement the service ran (through the routed connection), for the replica test to count. */
  const statements: Statement[] = [];

  beforeAll(async () => {
    await topologyUp();
    direct = await freshDatabase('postgres', 'replica');
    await createSchema(direct);
    await insertFixture(direct);
    name = await databaseOf(direct);
    await replicaCaughtUp();
    routed = connect(urlAt(topology.primaryPort, name), {
      readUrls: [urlAt(topology.replicaPort, name)],
      replicaRetryMs: RETRY_MS,
      poolSize: 4,
    });
    host = await startHost(
      'standalone',
      { resources, endpoints: [...testEndpoints, writableComments], context: editorContext },
      recordInto(routed, statements),
    );
  }, 120_000);
  afterAll(async () => {
    // Whatever happened in a test, the replica runs again for the next suite.
    await startReplica();
    await host?.close();
    await routed?.close();
    await direct?.close();
    await dropDatabase('postgres', 'replica');
  }, 120_000);

  it('serves lists, counts, includes and read-one from the replica: every statement, counted by table', async () => {
    const before = await scansOnReplica(name);
    statements.length = 0;
    const list = await host.inject({ url: '/api/users-loaded?include=posts&count=roles&per_page=5' });
    expect(list.statusCode, list.body).toBe(200);
    expect(list.json().data).toHaveLength(5);
    expect(list.json().total).toBeGreaterThan(5);
    const one = await host.inject({ url: '/api/users/2' });
    expect(one.statusCode, one.body).toBe(200);
    expect((await replicaStatements(name)).join('\n')).toMatch(/from "users"/);
    // The page, its total, the posts, the roles' counts and the record: each statement reads its tables
    // on the replica, so each table's scans there grow by at least the statements that read it.
    const expected = readsByTable(statements.map((statement) => statement.sql));
    expect(Object.keys(expected)).toEqual(expect.arrayContaining(['users', 'posts']));
    expect(statements.length).toBeGreaterThanOrEqual(4);
    await expect
      .poll(
        async () => {
          const after = await scansOnReplica(name);
          return Object.entries(expected).filter(
            ([table, reads]) => (after[table] ?? 0) - (before[table] ?? 0) < reads,
          );
        },
        { timeout: 30_000 },
      )
      .toEqual([]);
  });

  it('answers a write from the primary, and reads with Consistency: primary see it before the replica does', async () => {
    // The replica stops applying the primary's changes: what it answers is visibly behind.
    await queryAt(topology.replicaPort, 'postgres', 'select pg_wal_replay_pause()');
    try {
      const { before, written } = await rewriteComment(host, 1, 'Written on the primary');
      expect(before.statusCode, before.body).toBe(200);
      expect(written.statusCode, written.body).toBe(200);
      expect(written.json().body).toBe('Written on the primary');
      // A plain read is the replica's: the old text.
      const stale = await host.inject({ url: '/api/comments-rw/1' });
      expect(stale.json().body).toBe(before.json().body);
      // The client that asks for the primary reads its own write, in a list and in read-one.
      const own = await host.inject({ url: '/api/comments-rw/1', headers: { consistency: 'primary' } });
      expect(own.json().body).toBe('Written on the primary');
      const listed = await host.inject({
        url: `/api/comments-rw?filter[body]=${encodeURIComponent('Written on the primary')}`,
        headers: { consistency: 'primary' },
      });
      expect(listed.json().data.map((row: { id: number }) => row.id)).toEqual([1]);
    } finally {
      await queryAt(topology.replicaPort, 'postgres', 'select pg_wal_replay_resume()');
    }
    await replicaCaughtUp();
    expect((await host.inject({ url: '/api/comments-rw/1' })).json().body).toBe('Written on the primary');
  });

  it('falls back to the primary with no 5xx when the replica stops mid-test, and returns to it once it is back', async () => {
    const expected = (await host.inject({ url: '/api/users?sort=name&per_page=50' })).json();
    let stopping = true;
    // Requests keep coming while the replica shuts down (its sessions are ended with 57P01).
    const statuses: number[] = [];
    const answered = () => statuses.length;
    const traffic = (async () => {
      while (stopping) {
        const answers = await Promise.all(
          Array.from({ length: 4 }, () => host.inject({ url: '/api/users?sort=name&per_page=50' })),
        );
        for (const answer of answers) {
          statuses.push(answer.statusCode);
          if (answer.statusCode === 200) expect(answer.json()).toEqual(expected);
        }
      }
      return statuses;
    })();
    // The replica stops while the requests flow (the script runs beside them), and they keep flowing
    // after it is down, past the retry delay.
    const startedAt = answered();
    await stopReplica();
    const stoppedAt = answered();
    expect(stoppedAt).toBeGreaterThan(startedAt);
    await expect.poll(answered).toBeGreaterThanOrEqual(stoppedAt + 12);
    stopping = false;
    await traffic;
    expect(new Set(statuses)).toEqual(new Set([200]));
    // Past the retry delay the replica is tried again, fails, and the read is still answered.
    await new Promise((resolve) => setTimeout(resolve, RETRY_MS * 2));
    const later = await host.inject({ url: '/api/users-loaded/3?include=posts' });
    expect(later.statusCode, later.body).toBe(200);

    await startReplica();
    await replicaCaughtUp();
    await new Promise((resolve) => setTimeout(resolve, RETRY_MS * 2));
    // Statements the replica starts from now on are this read's.
    const [{ now } = { now: new Date() }] = await queryAt<{ now: Date }>(
      topology.replicaPort,
      'postgres',
      'select now()',
    );
    expect(await replicaStatements(name, now)).toEqual([]);
    expect((await host.inject({ url: '/api/users/4' })).statusCode).toBe(200);
    expect((await replicaStatements(name, now)).join('\n')).toMatch(/from "users"/);
  }, 60_000);
});
