/**
 * all=true with allowAll('unlimited') over 1,000,000 rows: the service's peak memory (VmHWM of its
 * process) must stay under 150 MB. Uses PostgreSQL (BENCH_DATABASE_URL to change the server).
 *
 *   npm run bench:stream [-- --rows 1000000]
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import pg from 'pg';

const { values } = parseArgs({
  options: { rows: { type: 'string', default: '1000000' }, port: { type: 'string', default: '3917' } },
});
const rows = Number(values.rows);
const server = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432';
const database = 'rqs_bench_stream';
const here = dirname(fileURLToPath(import.meta.url));

async function prepare(): Promise<void> {
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
}

function memoryOf(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? 0);
  return { rss: kb('VmRSS') / 1024, peak: kb('VmHWM') / 1024 };
}

async function main(): Promise<void> {
  await prepare();
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
      env: { ...process.env, DATABASE_URL: `${server}/${database}`, LOG_LEVEL: 'warn' },
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
  const response = await fetch(`http://127.0.0.1:${values.port}/api/items?all=true`);
  let bytes = 0;
  let tail = '';
  let records = 0;
  const decoder = new TextDecoder();
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
    bytes += chunk.byteLength;
    const text = decoder.decode(chunk, { stream: true });
    records += text.split('{"id":').length - 1;
    tail = (tail + text).slice(-16);
  }
  const seconds = (performance.now() - started) / 1000;
  const after = memoryOf(pid);
  child.kill('SIGTERM');
  const ok = response.status === 200 && tail.endsWith(']') && records === rows;
  console.log(
    `all=true over ${rows} rows: status ${response.status}, ${records} records, ${(bytes / 1e6).toFixed(1)} MB in ${seconds.toFixed(1)} s`,
  );
  console.log(
    `service memory: idle RSS ${idle.rss.toFixed(1)} MB; peak RSS (VmHWM) ${after.peak.toFixed(1)} MB (budget 150 MB)`,
  );
  if (!ok || after.peak >= 150) {
    console.error(ok ? 'FAIL: peak memory over budget' : 'FAIL: incomplete response');
    process.exitCode = 1;
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
