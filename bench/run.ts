/**
 * npm run bench [-- --engines pg,mariadb,sqlite --users 100000 --duration 3 --rounds 7 --max-rounds 21
 *                  --connections 10 --queries Q8,Q9 --no-strategies --no-stages --paired]
 *
 * On each engine, the service against a hand-written node:http baseline (pg, mysql2, better-sqlite3)
 * on the same data, for the queries of bench/queries.ts: first both must give the same answers (the
 * whole body), then each query is loaded A B A B (service, baseline, …) with wrk, a native load
 * generator in its own process, each load starting once the last one's statements are done
 * (bench/settle.ts), and the medians are compared (budget 0.95), req/s and the CPU time each server
 * spent per request; a row whose rounds leave its verdict to chance gets more rounds
 * (bench/verdict.ts). Then Q1–Q7 again on the endpoints whose totals are bounded or estimated, against
 * the baseline's exact count (budget 5×). With --paired (experimental), each round loads both servers
 * at once, both pinned to one CPU and wrk to the other: the host's drift strikes both in the same
 * instants, but they share that CPU's caches in turns (docs/benchmarks.md, Method).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isDeepStrictEqual, parseArgs } from 'node:util';
import { digestTag } from '../src/core/validators.js';
import { prepareEngineDataset } from './dataset.js';
import { type EngineName, engineNames, parseEngines } from './engines.js';
import {
  benchDescriptions,
  lengthAwareQueries,
  movingCursor,
  onEndpoint,
  queriesFor,
  strategyEndpoints,
} from './queries.js';
import { RUNTIME_FLAGS } from './runtime-flags.js';
import { type Settler, settler } from './settle.js';
import { measureStages } from './stages.js';
import { decided } from './verdict.js';
import { cpuMicros, ensureWrk, pin, wrk } from './wrk.js';

const { values } = parseArgs({
  options: {
    engines: { type: 'string', default: engineNames.join(',') },
    users: { type: 'string', default: '100000' },
    // Many short alternations rather than a few long ones: this machine's speed drifts by tens of per
    // cent over minutes (shared host), and alternating often puts both servers in the same drift.
    duration: { type: 'string', default: '3' },
    rounds: { type: 'string', default: '7' },
    // A row whose rounds do not yet settle its budget either way gets more, up to this many.
    'max-rounds': { type: 'string', default: '21' },
    connections: { type: 'string', default: '10' },
    /** A comma-separated subset of the queries to load (the answers check still covers all of them). */
    queries: { type: 'string' },
    'no-strategies': { type: 'boolean', default: false },
    'no-stages': { type: 'boolean', default: false },
    paired: { type: 'boolean', default: false },
  },
});
/**
 * --paired: the CPU both servers run on, and the one the load generators run on. Loaded at once on one
 * CPU, each server gets half of it (the scheduler shares it by time), so the one that spends less CPU
 * per request serves more; the drift of the host (its other tenants, this CPU's speed) strikes both in
 * the same instants. Measured on a busy 2-CPU machine, read-one on SQLite: the hand-written server
 * against itself read 0.96–1.08 per round (median 1.02) this way, 0.45–2.00 loaded in turn. Not the
 * budget's method: sharing one CPU's caches in turns may cost the larger process more, which a server
 * against itself cannot show, and PostgreSQL's cheap rows read lower paired than in turn.
 */
const SERVERS_CPU = 0;
const LOAD_CPU = 1;
const paired = values.paired;
if (paired && availableParallelism() < 2)
  throw new Error('--paired needs 2 CPUs: the servers on one, wrk on the other');
const rounds = Number(values.rounds);
const maxRounds = Math.max(rounds, Number(values['max-rounds']));
const here = dirname(fileURLToPath(import.meta.url));
const SERVICE = 3901;
/** Every query at least this share of the baseline's requests per second. */
const BUDGET = 0.95;
/** Q1–Q7 with a bounded or estimated total: at least this many times the exact-count baseline. */
const STRATEGY_BUDGET = 5;
const BASELINE = 3902;
/** On the cheap requests, the service's CPU time per request at most this many times the baseline's. */
const CPU_BUDGET = 1.05;
/** The cheap requests (a keyset page, read-one): where the service's own JavaScript weighs most. */
const cheap = new Set(['Q8', 'Q12']);

export function start(
  script: string,
  args: string[],
  env: Record<string, string>,
  ready: string,
): Promise<ChildProcess> {
  const child = spawn(process.execPath, [...RUNTIME_FLAGS, script, ...args], {
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

export const median = (xs: number[]) => {
  const sorted = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
};

export interface Sample {
  rps: number;
  p50: number;
  p99: number;
  /** The loaded server's CPU time per request, µs (user + system, from /proc), when its pid was given. */
  cpu: number;
}

/** A load: one URL, or a URL per request (`vary(n)` for the n-th request). */
export interface Load {
  path: string;
  vary?: (n: number) => string;
}

/** How many different paths a varying load cycles through. */
const VARIED = 1_000;

/** `seconds` of load with wrk; `pid` is the loaded server's process, whose CPU time is read around it. */
export async function load(
  port: number,
  { path, vary }: Load,
  seconds: number,
  pid?: number,
): Promise<Sample> {
  const paths = vary ? Array.from({ length: VARIED }, (_, n) => vary(n)) : undefined;
  const before = pid === undefined ? 0 : cpuMicros(pid);
  const result = await wrk({
    url: `http://127.0.0.1:${port}${path}`,
    seconds,
    connections: Number(values.connections),
    paths,
    cpu: paired ? LOAD_CPU : undefined,
  });
  const used = pid === undefined ? 0 : cpuMicros(pid) - before;
  return { rps: result.rps, p50: result.p50, p99: result.p99, cpu: used / result.requests };
}

/** An answer's body: a page, or one record. */
interface Answer {
  body: { data?: { id: unknown }[] };
}

async function answer(port: number, path: string): Promise<Answer> {
  const response = await fetch(`http://127.0.0.1:${port}${path}`);
  const raw = await response.text();
  if (!response.ok) throw new Error(`${path} on ${port}: ${response.status} ${raw.slice(0, 300)}`);
  // Both servers send the validator of what they answered (the service's conditional reads).
  if (response.headers.get('etag') !== digestTag(raw))
    throw new Error(`${path} on ${port}: the ETag is not the digest of the answer`);
  // The two servers' page links differ only by their port.
  const text = raw.replaceAll(`127.0.0.1:${port}/`, '127.0.0.1/');
  return { body: JSON.parse(text) as Answer['body'] };
}

/** One measured line: a load on the service against a load on the baseline. */
interface Measured {
  id: string;
  description: string;
  service: Load;
  baseline: Load;
  budget: number;
  /** The cheap requests: the service's CPU time per request at most this many times the baseline's. */
  cpuBudget?: number;
}

/** The two servers' processes, whose CPU time per request is measured. */
interface Pids {
  service: number;
  baseline: number;
}

async function measure(item: Measured, seconds: number, pids: Pids, settled: Settler): Promise<string> {
  await load(SERVICE, item.service, 1);
  await load(BASELINE, item.baseline, 1);
  const svc: Sample[] = [];
  const base: Sample[] = [];
  // Each load starts once the last one's leftovers are done (bench/settle.ts).
  const service = async () => {
    await settled.settle();
    svc.push(await load(SERVICE, item.service, seconds, pids.service));
  };
  const baseline = async () => {
    await settled.settle();
    base.push(await load(BASELINE, item.baseline, seconds, pids.baseline));
  };
  const both = async () => {
    await settled.settle();
    const [s, b] = await Promise.all([
      load(SERVICE, item.service, seconds, pids.service),
      load(BASELINE, item.baseline, seconds, pids.baseline),
    ]);
    svc.push(s);
    base.push(b);
  };
  // The median of the rounds' ratios: each compares two loads a few seconds apart, so the machine's
  // drift over the run cancels out of it.
  const ratios = () => svc.map((x, i) => x.rps / (base[i] as Sample).rps);
  const cpuRatios = () => svc.map((x, i) => x.cpu / (base[i] as Sample).cpu);
  // Past --rounds, more rounds until the median's interval is on one side of each budget (bench/verdict.ts).
  const settledVerdict = () =>
    decided(ratios(), { min: item.budget }) &&
    (item.cpuBudget === undefined || decided(cpuRatios(), { max: item.cpuBudget }));
  // A B, B A, A B…: neither server always goes first, and each round's pair ran side by side in time.
  for (let round = 0; round < maxRounds && (round < rounds || !settledVerdict()); round++) {
    if (paired) await both();
    else if (round % 2 === 0) {
      await service();
      await baseline();
    } else {
      await baseline();
      await service();
    }
  }
  const medians = (samples: Sample[]) => ({
    rps: median(samples.map((x) => x.rps)),
    p50: median(samples.map((x) => x.p50)),
    p99: median(samples.map((x) => x.p99)),
  });
  const s = medians(svc);
  const b = medians(base);
  const rpsRatios = ratios();
  const ratio = median(rpsRatios);
  const spread = `${Math.min(...rpsRatios).toFixed(2)}–${Math.max(...rpsRatios).toFixed(2)} (${rpsRatios.length})`;
  const mark = ratio >= item.budget ? '' : ' ✗';
  // CPU per request: the median of each server's rounds, and their ratio (lower is better).
  const cpuS = median(svc.map((x) => x.cpu));
  const cpuB = median(base.map((x) => x.cpu));
  const cpuRatio = median(cpuRatios());
  const cpuMark = item.cpuBudget !== undefined && cpuRatio > item.cpuBudget ? ' ✗' : '';
  return `| ${item.id} | ${item.description} | ${s.rps.toFixed(0)} | ${b.rps.toFixed(0)} | ${ratio.toFixed(2)}${mark} | ${spread} | ${cpuS.toFixed(0)} / ${cpuB.toFixed(0)} | ${cpuRatio.toFixed(2)}${cpuMark} | ${s.p50.toFixed(2)} / ${s.p99.toFixed(2)} | ${b.p50.toFixed(2)} / ${b.p99.toFixed(2)} |`;
}

/**
 * Two answers compared: the same body (envelope, links and records, every value in the same JSON), or,
 * for the count strategies' endpoints (whose totals and paths differ by design), the same records in
 * the same order. Both empty is only a warning (a small `--users` has no page 200), since an empty
 * answer proves little.
 */
async function sameAnswer(servicePath: string, baselinePath: string, whole: boolean): Promise<boolean> {
  const [a, b] = await Promise.all([answer(SERVICE, servicePath), answer(BASELINE, baselinePath)]);
  if (a.body.data?.length === 0 && b.body.data?.length === 0)
    console.warn(`both empty: ${servicePath} (too few users?)`);
  if (whole) return isDeepStrictEqual(a, b);
  return isDeepStrictEqual(a.body.data, b.body.data);
}

async function runEngine(engine: EngineName): Promise<string[]> {
  const users = Number(values.users);
  const url = await prepareEngineDataset(engine, users);
  const env = { DATABASE_URL: url, LOG_LEVEL: 'warn' };
  const service = await start(
    join(here, '../src/cli/main.js'),
    // One process, as the baseline is: the CLI's default (a worker per core) would compare two
    // processes with one. --workers 2 against 1 is bench:topology's.
    ['--config', join(here, 'bench-config.js'), '--port', String(SERVICE), '--workers', '1'],
    env,
    'Serving',
  );
  const baseline = await start(
    join(here, 'baseline.js'),
    ['--port', String(BASELINE), '--engine', engine],
    env,
    'listening',
  ).catch((error: unknown) => {
    service.kill('SIGTERM');
    throw error;
  });
  try {
    const queries = queriesFor(engine);
    const moving = movingCursor(engine);
    const strategies = !values['no-strategies'];
    let same = true;
    const check = async (label: string, servicePath: string, baselinePath = servicePath) => {
      if (await sameAnswer(servicePath, baselinePath, servicePath === baselinePath)) return;
      console.error(`${engine} ${label}: the service and the baseline disagree (${servicePath})`);
      same = false;
    };
    for (const [id, path] of Object.entries(queries)) await check(id, path);
    for (const n of [0, 1, 999]) await check('Q8m', moving(n));
    if (strategies)
      for (const endpoint of Object.values(strategyEndpoints))
        for (const id of lengthAwareQueries)
          await check(`${id} ${endpoint}`, onEndpoint(queries[id], endpoint), queries[id]);
    if (!same) throw new Error(`${engine}: results differ: not measuring`);
    console.log(`${engine}: the same answers for every query and the moving cursor (${users} users)\n`);

    /** The queries, Q8 with a new cursor on every request, and the count strategies' Q1–Q7. */
    const items: Measured[] = [
      ...Object.entries(queries).map(
        ([id, path]): Measured => ({
          id,
          description: benchDescriptions[id as keyof typeof queries],
          service: { path },
          baseline: { path },
          budget: BUDGET,
          ...(cheap.has(id) && { cpuBudget: CPU_BUDGET }),
        }),
      ),
      {
        id: 'Q8m',
        description: 'Q8 with a new cursor position on every request',
        service: { path: moving(0), vary: moving },
        baseline: { path: moving(0), vary: moving },
        budget: BUDGET,
        cpuBudget: CPU_BUDGET,
      },
    ];
    if (strategies)
      for (const [name, endpoint] of Object.entries(strategyEndpoints))
        for (const id of lengthAwareQueries)
          items.push({
            id: `${id} ${name}`,
            description: `${benchDescriptions[id]} — ${name === 'upto' ? 'exactUpTo: 1000' : 'estimated'} total, against the exact count`,
            service: { path: onEndpoint(queries[id], endpoint) },
            baseline: { path: queries[id] },
            budget: STRATEGY_BUDGET,
          });
    const chosen = values.queries?.split(',').map((id) => id.trim());
    for (const id of chosen ?? [])
      if (!items.some((item) => item.id.split(' ')[0] === id))
        throw new Error(`--queries: unknown query "${id}" (${items.map((item) => item.id).join(', ')})`);
    const measured = items.filter((item) => !chosen || chosen.includes(item.id.split(' ')[0] as string));

    const seconds = Number(values.duration);
    // Both servers run every chosen query once before anything is measured: the service has far more
    // JavaScript on its request path than the baseline, and the first query measured would otherwise
    // pay for V8 optimizing it (measured: Q1 first 0.89, after the rest 0.95–1.03).
    for (const item of measured) {
      await load(SERVICE, item.service, 1);
      await load(BASELINE, item.baseline, 1);
    }
    const rows: string[] = [];
    const pids = { service: service.pid as number, baseline: baseline.pid as number };
    if (paired) for (const pid of Object.values(pids)) pin(pid, SERVERS_CPU);
    const settled = settler(engine, url, [pids.service, pids.baseline]);
    try {
      for (const item of measured) {
        const row = await measure(item, seconds, pids, settled);
        rows.push(row);
        console.log(`${engine} ${row}`);
      }
    } finally {
      await settled.close();
    }
    return rows;
  } finally {
    service.kill('SIGTERM');
    baseline.kill('SIGTERM');
  }
}

async function main(): Promise<void> {
  ensureWrk();
  const tables: [EngineName, string[]][] = [];
  for (const engine of parseEngines(values.engines)) tables.push([engine, await runEngine(engine)]);
  for (const [engine, rows] of tables) {
    console.log(
      `\n${engine}\n\n| query | what | service req/s | baseline req/s | ratio | rounds (how many) | CPU µs/request service / baseline | CPU ratio | service p50 / p99 ms | baseline p50 / p99 ms |`,
    );
    console.log('|---|---|---|---|---|---|---|---|---|---|');
    for (const row of rows) console.log(row);
  }
  if (values['no-stages']) return;
  console.log('');
  measureStages();
}

// Run as a script, not when bench/topology.ts imports the helpers above.
if (process.argv[1] === fileURLToPath(import.meta.url))
  main().catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
