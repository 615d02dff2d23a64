/**
 * all=true with allowAll('unlimited') over 1,000,000 rows, then the same rows exported as CSV
 * (`format=csv`): the service's peak memory (VmHWM of its process, a fresh process for each) must stay
 * under 150 MB for both. PostgreSQL by default (BENCH_DATABASE_URL to change the server), or a
 * SQLite file in the system's temporary directory with `--engine sqlite`.
 *
 *   npm run bench:stream [-- --rows 1000000] [-- --engine sqlite]
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import Database from 'better-sqlite3';
import pg from 'pg';

const { values } = parseArgs({
  options: {
    rows: { type: 'string', default: '1000000' },
    port: { type: 'string', default: '3917' },
    engine: { type: 'string', default: 'postgres' },
  },
});
const rows = Number(values.rows);
const server = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432';
const database = 'rqs_bench_stream';
const here = dirname(fileURLToPath(import.meta.url));
const BUDGET_MB = 150;

/** The bench table on PostgreSQL, filled once (kept between runs); its DATABASE_URL. */
async function preparePostgres(): Promise<string> {
  const admin = new pg.Client({ connectionString: `${server}/postgres` });
  await admin.connect();
  const exists = await admin.query('select 1 from pg_database where datname = $1', [database]);
  if (exists.rowCount === 0) await admin.query(`create database ${database}`);
  await admin.end();
  const client = new pg.Client({ connectionString: `${server}/${database}` });
  await client.connect();
  const count = await client
    .query('select count(*)::int as n from bench_items')
    .then((r) => r.rows[0].n as number)
    .catch(() => -1);
  if (count !== rows) {
    console.log(`filling bench_items with ${rows} rows…`);
    await client.query('drop table if exists bench_items');
    await client.query(
      'create table bench_items (id integer primary key, name varchar(64) not null, score integer not null, created_at timestamptz not null)',
    );
    await client.query(
      `insert into bench_items select i, 'item ' || i, i % 100, timestamptz '2024-01-01' + i * interval '1 second' from generate_series(1, $1) as i`,
      [rows],
    );
    await client.query('analyze bench_items');
  }
  await client.end();
  return `${server}/${database}`;
}

/** The same table in a SQLite file (kept between runs), datetimes as the SQLite dialect binds them; its DATABASE_URL. */
function prepareSqlite(): string {
  const file = join(tmpdir(), `${database}.db`);
  const db = new Database(file);
  const count = existsSync(file)
    ? (() => {
        try {
          return (db.prepare('select count(*) as n from bench_items').get() as { n: number }).n;
        } catch {
          return -1;
        }
      })()
    : -1;
  if (count !== rows) {
    console.log(`filling bench_items with ${rows} rows…`);
    db.exec('drop table if exists bench_items');
    db.exec(
      'create table bench_items (id integer primary key, name varchar(64) not null, score integer not null, created_at text not null)',
    );
    db.prepare(
      `with recursive n(i) as (select 1 union all select i + 1 from n where i < ?)
       insert into bench_items select i, 'item ' || i, i % 100,
         strftime('%Y-%m-%d %H:%M:%f', '2024-01-01', '+' || i || ' seconds') from n`,
    ).run(rows);
  }
  db.close();
  return `sqlite:${file}`;
}

function memoryOf(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? 0);
  return { rss: kb('VmRSS') / 1024, peak: kb('VmHWM') / 1024 };
}

/** What one streamed answer is checked for: how its records are counted, and how it must end. */
interface Run {
  readonly label: string;
  readonly query: string;
  /** Records in a piece of the body (pieces are cut anywhere: a marker may span two). */
  readonly count: (text: string) => number;
  readonly ends: (tail: string) => boolean;
}

const runs: Run[] = [
  {
    label: 'all=true (JSON array)',
    query: 'all=true',
    count: (text) => text.split('{"id":').length - 1,
    ends: (tail) => tail.endsWith(']'),
  },
  {
    label: 'format=csv (CSV export)',
    query: 'format=csv',
    // One CRLF per row, the header's included.
    count: (text) => text.split('\r\n').length - 1,
    ends: (tail) => tail.endsWith('\r\n'),
  },
];

/** A fresh service process (one worker), one streamed request, its peak memory. */
async function measure(url: string, run: Run): Promise<boolean> {
  const child = spawn(
    process.execPath,
    [
      join(here, '../src/cli/main.js'),
      '--config',
      join(here, 'stream-config.js'),
      '--port',
      values.port as string,
      // The peak memory of one process (the one serving the stream).
      '--workers',
      '1',
    ],
    {
      env: { ...process.env, DATABASE_URL: url, LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  await new Promise<void>((resolve, reject) => {
    child.stdout?.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('Serving')) resolve();
    });
    child.on('exit', (code) => reject(new Error(`service exited with ${code}`)));
  });
  const pid = child.pid as number;
  const idle = memoryOf(pid);
  const started = performance.now();
  const response = await fetch(`http://127.0.0.1:${values.port}/api/items?${run.query}`);
  let bytes = 0;
  let tail = '';
  let counted = 0;
  const decoder = new TextDecoder();
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
    bytes += chunk.byteLength;
    // Counted on the tail and the new text together, minus what the tail alone held: a marker cut
    // between two chunks is counted once.
    const text = decoder.decode(chunk, { stream: true });
    counted += run.count(tail + text) - run.count(tail);
    tail = (tail + text).slice(-16);
  }
  const seconds = (performance.now() - started) / 1000;
  const after = memoryOf(pid);
  // The start's listener (which treats an exit as a failure) goes first, then the wait for this one.
  child.removeAllListeners('exit');
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
  const records = run.query === 'format=csv' ? counted - 1 : counted;
  const ok = response.status === 200 && run.ends(tail) && records === rows;
  console.log(
    `${run.label} over ${rows} rows: status ${response.status}, ${records} records, ${(bytes / 1e6).toFixed(1)} MB in ${seconds.toFixed(1)} s`,
  );
  console.log(
    `  service memory: idle RSS ${idle.rss.toFixed(1)} MB; peak RSS (VmHWM) ${after.peak.toFixed(1)} MB (budget ${BUDGET_MB} MB)`,
  );
  if (!ok) console.error('  FAIL: incomplete response');
  else if (after.peak >= BUDGET_MB) console.error('  FAIL: peak memory over budget');
  return ok && after.peak < BUDGET_MB;
}

async function main(): Promise<void> {
  if (values.engine !== 'postgres' && values.engine !== 'sqlite')
    throw new Error('--engine takes postgres or sqlite');
  const url = values.engine === 'sqlite' ? prepareSqlite() : await preparePostgres();
  console.log(`engine: ${values.engine}`);
  let ok = true;
  for (const run of runs) ok = (await measure(url, run)) && ok;
  if (!ok) process.exitCode = 1;
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
