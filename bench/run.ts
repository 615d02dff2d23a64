/**
 * npm run bench [-- --users 100000 --duration 3 --rounds 7 --connections 10 --queries Q8,Q9 --no-stages]
 *
 * The service against a hand-written node:http + pg baseline on the same PostgreSQL data, for the
 * queries of bench/queries.ts: first both must return the same ids in the same order, then each query
 * is loaded A B A B (service, baseline, …) with autocannon and the medians are compared (budget 0.95).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { prepareDataset } from './dataset.js';
import { benchDescriptions, benchQueries, movingCursor } from './queries.js';
import { measureStages } from './stages.js';

const { values } = parseArgs({
  options: {
    users: { type: 'string', default: '100000' },
    // Many short alternations rather than a few long ones: this machine's speed drifts by tens of per
    // cent over minutes (shared host), and alternating often puts both servers in the same drift.
    duration: { type: 'string', default: '3' },
    rounds: { type: 'string', default: '7' },
    connections: { type: 'string', default: '10' },
    /** A comma-separated subset of the queries to load (the id check still covers all of them). */
    queries: { type: 'string', default: [...Object.keys(benchQueries), 'Q8m'].join(',') },
    'no-stages': { type: 'boolean', default: false },
  },
});
const here = dirname(fileURLToPath(import.meta.url));
const server = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432';
const SERVICE = 3901;
/** Every query at least this share of the baseline's requests per second. */
const BUDGET = 0.95;
const BASELINE = 3902;

function start(
  script: string,
  args: string[],
  env: Record<string, string>,
  ready: string,
): Promise<ChildProcess> {
  const child = spawn(process.execPath, [script, ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    child.stdout?.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes(ready)) resolve(child);
    });
    child.on('exit', (code) => reject(new Error(`${script} exited with ${code}`)));
  });
}

const median = (xs: number[]) => {
  const sorted = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
};

interface Sample {
  rps: number;
  p50: number;
  p99: number;
}

/** A load: one URL, or a URL per request (`vary(n)` for the n-th request). */
interface Load {
  path: string;
  vary?: (n: number) => string;
}

async function load(port: number, { path, vary }: Load, seconds: number): Promise<Sample> {
  let n = 0;
  const result = await autocannon({
    url: `http://127.0.0.1:${port}${path}`,
    connections: Number(values.connections),
    duration: seconds,
    ...(vary && {
      requests: [
        {
          setupRequest: (request: autocannon.Request) => ({ ...request, path: vary(n++) }),
        },
      ],
    }),
  });
  if (result.non2xx > 0 || result.errors > 0)
    throw new Error(`${path} on ${port}: ${result.non2xx} non-2xx, ${result.errors} errors`);
  return { rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99 };
}

async function ids(port: number, path: string): Promise<unknown[]> {
  const response = await fetch(`http://127.0.0.1:${port}${path}`);
  const body = (await response.json()) as { data: { id: unknown }[] };
  return body.data.map((record) => record.id);
}

async function main(): Promise<void> {
  const users = Number(values.users);
  const url = await prepareDataset(server, 'rqs_bench', users);
  const env = { DATABASE_URL: url, LOG_LEVEL: 'warn' };
  const service = await start(
    join(here, '../src/cli/main.js'),
    ['--config', join(here, 'bench-config.js'), '--port', String(SERVICE)],
    env,
    'Serving',
  );
  const baseline = await start(join(here, 'baseline.js'), ['--port', String(BASELINE)], env, 'listening');
  try {
    let same = true;
    for (const [id, path] of Object.entries(benchQueries)) {
      const [a, b] = await Promise.all([ids(SERVICE, path), ids(BASELINE, path)]);
      if (JSON.stringify(a) !== JSON.stringify(b) || a.length === 0) {
        console.error(`${id}: the service and the baseline disagree (${a.length} vs ${b.length} records)`);
        same = false;
      }
    }
    for (const n of [0, 1, 999]) {
      const path = movingCursor(n);
      const [a, b] = await Promise.all([ids(SERVICE, path), ids(BASELINE, path)]);
      if (JSON.stringify(a) !== JSON.stringify(b) || a.length === 0) {
        console.error(`Q8m (${path}): the service and the baseline disagree`);
        same = false;
      }
    }
    if (!same) throw new Error('results differ: not measuring');
    console.log(`same ids in the same order for every query and the moving cursor (${users} users)\n`);

    /** The queries, and Q8 with a new cursor on every request. */
    const loads: [id: string, description: string, load: Load][] = [
      ...Object.entries(benchQueries).map(([id, path]): [string, string, Load] => [
        id,
        benchDescriptions[id as keyof typeof benchQueries],
        { path },
      ]),
      [
        'Q8m',
        'Q8 with a new cursor position on every request',
        { path: movingCursor(0), vary: movingCursor },
      ],
    ];

    const seconds = Number(values.duration);
    const rows: string[] = [];
    const chosen = values.queries.split(',').map((id) => id.trim());
    for (const id of chosen)
      if (!loads.some(([known]) => known === id))
        throw new Error(`--queries: unknown query "${id}" (${loads.map(([known]) => known).join(', ')})`);
    // Both servers run every chosen query once before anything is measured: the service has far more
    // JavaScript on its request path than the baseline, and the first query measured would otherwise
    // pay for V8 optimizing it (measured: Q1 first 0.89, after the rest 0.95–1.03).
    for (const [id, , path] of loads) {
      if (!chosen.includes(id)) continue;
      await load(SERVICE, path, 1);
      await load(BASELINE, path, 1);
    }
    for (const [id, description, path] of loads) {
      if (!chosen.includes(id)) continue;
      await load(SERVICE, path, 1);
      await load(BASELINE, path, 1);
      const svc: Sample[] = [];
      const base: Sample[] = [];
      // A B, B A, A B…: neither server always goes first, and each round's pair ran side by side in time.
      for (let round = 0; round < Number(values.rounds); round++) {
        if (round % 2 === 0) {
          svc.push(await load(SERVICE, path, seconds));
          base.push(await load(BASELINE, path, seconds));
        } else {
          base.push(await load(BASELINE, path, seconds));
          svc.push(await load(SERVICE, path, seconds));
        }
      }
      const s = {
        rps: median(svc.map((x) => x.rps)),
        p50: median(svc.map((x) => x.p50)),
        p99: median(svc.map((x) => x.p99)),
      };
      const b = {
        rps: median(base.map((x) => x.rps)),
        p50: median(base.map((x) => x.p50)),
        p99: median(base.map((x) => x.p99)),
      };
      // The median of the rounds' ratios: each compares two loads a few seconds apart, so the machine's
      // drift over the run cancels out of it.
      const ratios = svc.map((x, i) => x.rps / (base[i] as Sample).rps);
      const ratio = median(ratios);
      const spread = `${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)}`;
      const row = `| ${id} | ${description} | ${s.rps.toFixed(0)} | ${b.rps.toFixed(0)} | ${ratio.toFixed(2)}${ratio >= BUDGET ? '' : ' ✗'} | ${spread} | ${s.p50} / ${s.p99} | ${b.p50} / ${b.p99} |`;
      rows.push(row);
      console.log(row);
    }
    console.log(
      '\n| query | what | service req/s | baseline req/s | ratio | rounds | service p50 / p99 ms | baseline p50 / p99 ms |',
    );
    console.log('|---|---|---|---|---|---|---|---|');
    for (const row of rows) console.log(row);
  } finally {
    service.kill('SIGTERM');
    baseline.kill('SIGTERM');
  }
  if (values['no-stages']) return;
  console.log('');
  measureStages();
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
