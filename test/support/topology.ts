import { execFile } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import pg from 'pg';
import { defineEndpoint } from '../../src/resource/policy.js';
import type { Connection } from '../../src/sql/connect.js';
import type { Host } from './hosts.js';

/**
 * The streaming replica and the PgBouncer that .ci/replica-and-pgbouncer.sh runs beside the machine's
 * PostgreSQL (ports overridable as in the script).
 */
export const topology = {
  primaryPort: Number(process.env.RQS_PRIMARY_PORT ?? 5432),
  replicaPort: Number(process.env.RQS_REPLICA_PORT ?? 5433),
  pgbouncerPort: Number(process.env.RQS_PGBOUNCER_PORT ?? 6432),
};

const run = promisify(execFile);

const script = join(dirname(fileURLToPath(import.meta.url)), '../../.ci/replica-and-pgbouncer.sh');

/** `select 1` on a port of 127.0.0.1 as postgres, or false. */
async function answers(port: number, database = 'postgres'): Promise<boolean> {
  const client = new pg.Client({
    host: '127.0.0.1',
    port,
    user: 'postgres',
    database,
    connectionTimeoutMillis: 2000,
  });
  client.on('error', () => {});
  try {
    await client.connect();
    await client.query('select 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => {});
  }
}

/**
 * The replica and PgBouncer up: started by the script when either does not answer (a machine where
 * .ci/run has not run). The script needs root. Called once, by the global set-up
 * (test/support/topology-setup.ts); the suites themselves only check (`topologyUp`).
 */
export async function ensureTopology(): Promise<void> {
  if ((await answers(topology.replicaPort)) && (await answers(topology.pgbouncerPort))) return;
  await run(script, [], { timeout: 180_000 });
}

/** `answers(port)`, asked again until it holds or 45 s have passed (within a hook's minute). */
async function answersWithin(port: number): Promise<boolean> {
  // One `select 1` may wait seconds on a machine whose cores are all busy (through PgBouncer, for a
  // server connection the suite before left in use): the check is whether it answers, not how fast.
  const deadline = Date.now() + 45_000;
  for (;;) {
    if (await answers(port)) return true;
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

/** Throws, naming what is down, unless the replica and PgBouncer answer: a suite checks, never rebuilds. */
export async function topologyUp(): Promise<void> {
  const [replica, pgbouncer] = await Promise.all([
    answersWithin(topology.replicaPort),
    answersWithin(topology.pgbouncerPort),
  ]);
  const down = [
    ...(replica ? [] : [`the replica on ${topology.replicaPort}`]),
    ...(pgbouncer ? [] : [`PgBouncer on ${topology.pgbouncerPort}`]),
  ];
  if (down.length > 0)
    throw new Error(
      `${down.join(' and ')} did not answer: run .ci/replica-and-pgbouncer.sh (npm test's set-up does).`,
    );
}

/** The URL of database `name` on a port of 127.0.0.1. */
export const urlAt = (port: number, name: string): string => `postgres://postgres@127.0.0.1:${port}/${name}`;

/** The name of the database a test connection is connected to. */
export async function databaseOf(conn: Connection): Promise<string> {
  const [row] = await conn.run({ sql: 'select current_database() as name', parameters: [] });
  return String(row?.name);
}

/** A query on database `name` at `port`, in a connection of its own. */
export async function queryAt<T extends pg.QueryResultRow>(
  port: number,
  name: string,
  text: string,
  values: unknown[] = [],
): Promise<T[]> {
  const client = new pg.Client({ connectionString: urlAt(port, name) });
  await client.connect();
  try {
    return (await client.query<T>(text, values)).rows;
  } finally {
    await client.end();
  }
}

/** Waits until the replica has replayed everything the primary wrote so far (rows, new databases). */
export async function replicaCaughtUp(timeoutMs = 20_000): Promise<void> {
  const [{ lsn } = { lsn: '' }] = await queryAt<{ lsn: string }>(
    topology.primaryPort,
    'postgres',
    'select pg_current_wal_lsn()::text as lsn',
  );
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const rows = await queryAt<{ done: boolean }>(
      topology.replicaPort,
      'postgres',
      'select pg_last_wal_replay_lsn() >= $1::pg_lsn as done',
      [lsn],
    ).catch(() => []);
    if (rows[0]?.done) return;
    if (Date.now() > deadline) throw new Error(`The replica did not replay ${lsn} within ${timeoutMs} ms.`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * Stops the replica (fast: its sessions are ended, as in a failover or a crash of that server). The
 * script runs beside this process's event loop, so requests a test keeps sending flow while it stops.
 */
export async function stopReplica(): Promise<void> {
  await run(script, ['stop-replica'], { timeout: 60_000 });
}

/** Starts the replica again (through the script, which also checks that it streams and catches up). */
export async function startReplica(): Promise<void> {
  await run(script, [], { timeout: 180_000 });
}

/**
 * Comments that editors may update and delete: the writes of the topology suites (the demo's fixture
 * sets ids explicitly, so these suites update and delete rather than create).
 */
export const writableComments = defineEndpoint({
  resource: 'comments',
  path: 'comments-rw',
  allowedFilters: ['body'],
  actions: ['list', 'read', 'update', 'delete'],
  access: { update: () => true, delete: () => true },
  schema: {
    table: { columns: [{ key: 'id' }, { key: 'body' }] },
    form: { inputs: [{ name: 'body', type: 'textarea', required: true }] },
  },
});

/** Reads comment `id` of `writableComments` through `host`, then sets its body with the ETag read. */
export async function rewriteComment(host: Host, id: number, body: string) {
  const before = await host.inject({ url: `/api/comments-rw/${id}` });
  const written = await host.inject({
    method: 'PATCH',
    url: `/api/comments-rw/${id}`,
    headers: { 'if-match': String(before.headers.etag) },
    payload: { body },
  });
  return { before, written };
}
