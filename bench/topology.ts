/**
 * npm run bench:topology [-- --users 100000 --duration 3 --rounds 7 --connections 10]
 *
 * Q8 (a cursor page in the middle) against the service with one process and direct access, alternating
 * A B B A…. On PostgreSQL:
 *   - `--workers 2` (budget ≥ 1.4× on a 2-core machine),
 *   - through PgBouncer in transaction mode (budget ≥ 0.9×),
 *   - reads from the streaming replica (budget ≥ 0.9×).
 * On SQLite, `--workers 2` again: there the database runs inside the service's process, so the query
 * is CPU-bound in the service alone (PostgreSQL's backends take a share of the same two cores).
 * The load generator is wrk, a native process of its own (bench/wrk.ts). The replica and PgBouncer come from .ci/replica-and-pgbouncer.sh (run first, as
 * root; idempotent).
 */
import { execFileSync } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { prepareDataset, prepareEngineDataset } from './dataset.js';
import { serverOf } from './engines.js';
import { queriesFor } from './queries.js';
import { type Load, load, median, type Sample, start } from './run.js';
import { ensureWrk } from './wrk.js';

// The options bench/run.ts reads too (its `load` takes --connections from them).
const { values } = parseArgs({
  options: {
    users: { type: 'string', default: '100000' },
    duration: { type: 'string', default: '3' },
    rounds: { type: 'string', default: '7' },
    connections: { type: 'string', default: '10' },
  },
});
const here = dirname(fileURLToPath(import.meta.url));
const repository = join(here, '..', '..');
const REPLICA_PORT = Number(process.env.RQS_REPLICA_PORT ?? 5433);
const PGBOUNCER_PORT = Number(process.env.RQS_PGBOUNCER_PORT ?? 6432);
/** A database of its own: bench/run.ts's may be in use, at another size, by another run. */
const DATABASE = 'rqs_bench_topology';

interface Variant {
  id: string;
  what: string;
  port: number;
  workers: number;
  env: Record<string, string>;
  budget: number;
}

/** `postgres://…:5432/db` with another port. */
const atPort = (url: string, port: number) => {
  const parsed = new URL(url);
  parsed.port = String(port);
  return parsed.toString();
};

/** Waits until the replica has replayed what the primary wrote (the dataset just generated). */
async function replicaCaughtUp(primaryUrl: string): Promise<void> {
  const ask = async (url: string, text: string, values: unknown[] = []) => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      return (await client.query(text, values)).rows[0] as Record<string, unknown>;
    } finally {
      await client.end();
    }
  };
  const { lsn } = await ask(primaryUrl, 'select pg_current_wal_lsn()::text as lsn');
  for (let i = 0; i < 600; i++) {
    const row = await ask(
      atPort(primaryUrl, REPLICA_PORT),
      'select pg_last_wal_replay_lsn() >= $1::pg_lsn as done',
      [lsn],
    );
    if (row.done) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error('The replica did not catch up with the primary within a minute.');
}

/** One process with direct access, and the variants measured against it on the same data. */
interface Group {
  title: string;
  url: string;
  path: string;
  reference: Variant;
  variants: Variant[];
}

/** Each variant against the group's reference, alternating; a table row per variant. */
async function measureGroup(group: Group, seconds: number, rounds: number): Promise<string[]> {
  const item: Load = { path: group.path };
  const serve = (variant: Variant) =>
    start(
      join(here, '../src/cli/main.js'),
      [
        '--config',
        join(here, 'bench-config.js'),
        '--port',
        String(variant.port),
        '--workers',
        String(variant.workers),
      ],
      { DATABASE_URL: group.url, LOG_LEVEL: 'warn', ...variant.env },
      'Serving',
    );
  const { reference } = group;
  const base = await serve(reference);
  const rows: string[] = [];
  try {
    for (const variant of group.variants) {
      const service = await serve(variant);
      try {
        await load(reference.port, item, 1);
        await load(variant.port, item, 1);
        const ref: Sample[] = [];
        const alt: Sample[] = [];
        for (let round = 0; round < rounds; round++) {
          if (round % 2 === 0) {
            ref.push(await load(reference.port, item, seconds));
            alt.push(await load(variant.port, item, seconds));
          } else {
            alt.push(await load(variant.port, item, seconds));
            ref.push(await load(reference.port, item, seconds));
          }
        }
        const ratios = alt.map((x, i) => x.rps / (ref[i] as Sample).rps);
        const ratio = median(ratios);
        const mark = ratio >= variant.budget ? '' : ' ✗';
        const row = `| ${variant.id} | ${variant.what} | ${median(alt.map((x) => x.rps)).toFixed(0)} | ${median(ref.map((x) => x.rps)).toFixed(0)} | ${ratio.toFixed(2)}${mark} (≥ ${variant.budget}) | ${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)} |`;
        rows.push(row);
        console.log(row);
      } finally {
        service.kill('SIGTERM');
      }
    }
  } finally {
    base.kill('SIGTERM');
  }
  return rows;
}

async function main(): Promise<void> {
  ensureWrk();
  execFileSync(join(repository, '.ci/replica-and-pgbouncer.sh'), { stdio: 'inherit' });
  const users = Number(values.users);
  const url = await prepareDataset(serverOf('pg'), DATABASE, users);
  await replicaCaughtUp(url);
  const seconds = Number(values.duration);
  const rounds = Number(values.rounds);
  const direct = (port: number): Variant => ({
    id: 'direct',
    what: '1 process, direct',
    port,
    workers: 1,
    env: {},
    budget: 0,
  });
  const workers2 = (port: number): Variant => ({
    id: 'workers 2',
    what: '--workers 2, direct',
    port,
    workers: 2,
    env: {},
    budget: 1.4,
  });
  const groups: Group[] = [
    {
      title: `Q8 on PostgreSQL (database ${DATABASE})`,
      url,
      path: queriesFor('pg').Q8,
      reference: direct(3921),
      variants: [
        workers2(3922),
        {
          id: 'pgbouncer',
          what: '1 process, through PgBouncer (transaction mode)',
          port: 3923,
          workers: 1,
          env: { DATABASE_URL: atPort(url, PGBOUNCER_PORT) },
          budget: 0.9,
        },
        {
          id: 'replica',
          what: '1 process, reads on the streaming replica',
          port: 3924,
          workers: 1,
          env: { DATABASE_READ_URLS: atPort(url, REPLICA_PORT) },
          budget: 0.9,
        },
      ],
    },
    {
      // bench/run.ts's SQLite file: readers in two processes share it (WAL), nothing writes meanwhile.
      title: 'Q8 on SQLite (file rqs_bench.db)',
      url: await prepareEngineDataset('sqlite', users),
      path: queriesFor('sqlite').Q8,
      reference: direct(3925),
      variants: [workers2(3926)],
    },
  ];
  const tables: string[] = [];
  for (const group of groups) {
    const rows = await measureGroup(group, seconds, rounds);
    tables.push(
      `\n${group.title}, ${users} users, ${rounds} rounds of ${seconds} s, ${values.connections} connections, ${availableParallelism()} cores\n`,
      '| variant | what | req/s | direct req/s | ratio | rounds |',
      '|---|---|---|---|---|---|',
      ...rows,
    );
  }
  for (const line of tables) console.log(line);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
