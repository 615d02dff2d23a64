/**
 * npm run bench:instructions [-- --engine sqlite|pg|mariadb --users 100000 --queries Q12,Q8 --requests 3000
 *                              --cache-sim --ll 1048576,16,64 --branch-sim --keep DIR]
 *
 * Machine instructions per request, the service against the hand-written baseline, both run under
 * valgrind's callgrind (Debian's package). An instruction count does not move with the host's speed
 * or its other tenants: the same build counted twice agrees within a few tenths of a per cent, where a
 * round of `npm run bench` moves by ten or twenty on this shared machine. It is not time — a cache
 * miss costs no instruction — so the budget stays with `npm run bench`; this is the instrument that
 * tells whether a change of a few per cent in the service's own work is real (docs/benchmarks.md).
 *
 * Both servers first serve every query of bench/queries.ts (as `npm run bench` warms them), then for
 * each measured query: requests until its code is optimized, then counting on, `--requests` requests,
 * 10 at a time, counting off. The two servers run at once: a count does not depend on the load. The
 * count covers the whole process (its JavaScript, V8's compilers and collector, the driver; on SQLite
 * the database too, on a server engine only the client's side).
 *
 * With --cache-sim, callgrind also simulates the CPU's caches and counts their misses per request:
 * first-level instruction (I1) and data (D1) misses, and last-level (LL) ones, which go to memory.
 * Where the service runs fewer instructions than the baseline and still spends more CPU time, a larger
 * working set is what is left to look at; these counts show it without the host's noise (a simulated
 * cache, one process, no other tenant: not the real machine's, but the same for both servers).
 * A virtual machine may report caches it does not have: --ll gives the last level's real size.
 * With --branch-sim, callgrind also models branch prediction and counts the mispredictions.
 *
 * With --keep DIR, the dumps stay in DIR and both servers write V8's map of their compiled code
 * (`--perf-basic-prof`), so `npm run bench:annotate` can say which functions the counts fall in.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { Agent, get } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { prepareEngineDataset } from './dataset.js';
import { type EngineName, engineNames } from './engines.js';
import { queriesFor } from './queries.js';
import { RUNTIME_FLAGS } from './runtime-flags.js';
import { ensureDebianPackage } from './wrk.js';

const { values } = parseArgs({
  options: {
    engine: { type: 'string', default: 'sqlite' },
    users: { type: 'string', default: '100000' },
    queries: { type: 'string', default: 'Q12,Q8' },
    requests: { type: 'string', default: '3000' },
    /** Requests of a query before it is counted: V8 has optimized its code by then (checked: 20,000). */
    warm: { type: 'string', default: '20000' },
    'cache-sim': { type: 'boolean', default: false },
    /** Also simulate branch prediction: mispredicted conditional and indirect branches per request. */
    'branch-sim': { type: 'boolean', default: false },
    /**
     * The last level callgrind simulates, `size,associativity,line` in bytes (its `--LL`). Without it,
     * callgrind takes what the CPU reports, which a virtual machine may invent (512 MiB, 2-way here).
     */
    ll: { type: 'string' },
    /** Keep callgrind's dumps in this folder, with V8's map of its machine code to name the JavaScript. */
    keep: { type: 'string' },
  },
});
const engine = values.engine as EngineName;
if (!engineNames.includes(engine)) throw new Error(`--engine: one of ${engineNames.join(', ')}`);
// The last level is a cache's: without the cache simulation there is none to size.
if (values.ll && !values['cache-sim']) throw new Error('--ll sizes the simulated cache: add --cache-sim');
const here = dirname(fileURLToPath(import.meta.url));
const SERVICE = 3931;
const BASELINE = 3932;

interface Counted {
  readonly name: string;
  readonly port: number;
  readonly child: ChildProcess;
  readonly out: string;
}

/** A server under callgrind, counting nothing until told to. */
function underCallgrind(
  name: string,
  port: number,
  script: string,
  args: string[],
  url: string,
  out: string,
) {
  const child = spawn(
    'valgrind',
    [
      '--tool=callgrind',
      '--instr-atstart=no',
      // V8 writes and rewrites its machine code: valgrind must see every change to translate it anew.
      '--smc-check=all-non-file',
      ...(values['cache-sim'] ? ['--cache-sim=yes'] : []),
      ...(values.ll ? [`--LL=${values.ll}`] : []),
      ...(values['branch-sim'] ? ['--branch-sim=yes'] : []),
      `--callgrind-out-file=${join(out, `${name}.%p`)}`,
      process.execPath,
      ...RUNTIME_FLAGS,
      // Callgrind names compiled JavaScript only by address; V8's map (/tmp/perf-PID.map) names it.
      ...(values.keep ? ['--perf-basic-prof'] : []),
      script,
      ...args,
    ],
    { env: { ...process.env, DATABASE_URL: url, LOG_LEVEL: 'warn' }, stdio: ['ignore', 'ignore', 'ignore'] },
  );
  return { name, port, child, out };
}

/**
 * `count` GETs of `server`'s `path`, `concurrency` at a time on kept-alive connections; every answer
 * must be 200. A connection reset while the server still runs is asked again, up to `RETRIES` times in
 * all: under valgrind on a busy machine one came now and then in the warm-up, and stopped the run. A
 * server that exited is said so.
 */
async function requests(server: Counted, path: string, count: number, concurrency = 10): Promise<void> {
  const agent = new Agent({ keepAlive: true, maxSockets: concurrency });
  let left = count;
  let retries = RETRIES;
  const once = () =>
    new Promise<void>((resolve, reject) => {
      get({ host: '127.0.0.1', port: server.port, path, agent }, (response) => {
        response.resume();
        response.on('end', () =>
          response.statusCode === 200 ? resolve() : reject(new Error(`${path}: ${response.statusCode}`)),
        );
      }).on('error', reject);
    });
  const one = (): Promise<void> =>
    once().catch((error: unknown) => {
      if (server.child.exitCode !== null)
        throw new Error(`${server.name} exited with ${server.child.exitCode} (${path})`);
      if ((error as { code?: string }).code !== 'ECONNRESET' || retries-- <= 0) throw error;
      return one();
    });
  const caller = async () => {
    while (left-- > 0) await one();
  };
  try {
    await Promise.all(Array.from({ length: concurrency }, caller));
  } finally {
    agent.destroy();
  }
}

/** Connection resets a count of requests may meet before it fails. */
const RETRIES = 10;

async function ready(server: Counted, path: string): Promise<void> {
  // Under valgrind a start takes tens of seconds: its JIT translates Node's code first.
  for (let attempt = 0; attempt < 600; attempt++) {
    if (server.child.exitCode !== null)
      throw new Error(`${server.name} exited with ${server.child.exitCode}`);
    try {
      await requests(server, path, 1, 1);
      return;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }
  throw new Error(`${server.name} did not answer`);
}

const control = (server: Counted, ...args: string[]) =>
  execFileSync('callgrind_control', [...args, String(server.child.pid)], { stdio: 'ignore' });

/**
 * The events counted since the last dump (`Ir`, the instructions, and with --cache-sim the misses:
 * `I1mr`, `D1mr`, `D1mw`, `ILmr`, `DLmr`, `DLmw`): callgrind_control -d writes them and starts again.
 */
function dumped(server: Counted): Map<string, number> {
  control(server, '-d');
  const prefix = `${server.name}.${server.child.pid}.`;
  const last = readdirSync(server.out)
    .filter((file) => file.startsWith(prefix))
    .sort((a, b) => Number(a.slice(prefix.length)) - Number(b.slice(prefix.length)))
    .at(-1);
  if (!last) throw new Error(`${server.name}: callgrind wrote no dump`);
  const text = readFileSync(join(server.out, last), 'utf8');
  const events = /^events: (.+)$/m.exec(text)?.[1]?.trim().split(/\s+/);
  const totals = /^totals: (.+)$/m.exec(text)?.[1]?.trim().split(/\s+/);
  if (!events || !totals) throw new Error(`${server.name}: no events or totals in ${last}`);
  return new Map(events.map((event, i) => [event, Number(totals[i] ?? 0)]));
}

/**
 * Per request: instructions, with --cache-sim the misses of each cache level, with --branch-sim the
 * mispredicted conditional (`Bcm`) and indirect (`Bim`) branches.
 */
function perRequest(counts: Map<string, number>, requestCount: number) {
  const of = (...events: string[]) =>
    events.reduce((sum, event) => sum + (counts.get(event) ?? 0), 0) / requestCount;
  return {
    ir: of('Ir'),
    i1: of('I1mr'),
    d1: of('D1mr', 'D1mw'),
    ll: of('ILmr', 'DLmr', 'DLmw'),
    bcm: of('Bcm'),
    bim: of('Bim'),
  };
}

async function main(): Promise<void> {
  ensureDebianPackage('valgrind', 'bench:instructions counts with its callgrind');
  const url = await prepareEngineDataset(engine, Number(values.users));
  const queries = queriesFor(engine);
  const measured = (values.queries as string).split(',').map((id) => {
    const path = queries[id as keyof typeof queries];
    if (!path) throw new Error(`--queries: no query ${id}`);
    return { id, path };
  });
  const out = values.keep ?? mkdtempSync(join(tmpdir(), 'rqs-callgrind-'));
  mkdirSync(out, { recursive: true });
  const servers = [
    underCallgrind(
      'service',
      SERVICE,
      join(here, '../src/cli/main.js'),
      ['--config', join(here, 'bench-config.js'), '--port', String(SERVICE), '--workers', '1'],
      url,
      out,
    ),
    underCallgrind(
      'baseline',
      BASELINE,
      join(here, 'baseline.js'),
      ['--port', String(BASELINE), '--engine', engine],
      url,
      out,
    ),
  ];
  try {
    // The two servers at once: an instruction count does not depend on what else the machine runs.
    await Promise.all(
      servers.map(async (server) => {
        await ready(server, queries.Q12);
        for (const path of Object.values(queries)) await requests(server, path, 300, 4);
      }),
    );
    const requestCount = Number(values.requests);
    console.log(
      `${engine}: machine instructions per request under callgrind (${requestCount} requests each, after ${values.warm})\n`,
    );
    const cache = values['cache-sim'];
    const branches = values['branch-sim'];
    console.log(
      `query | service | baseline | service/baseline${cache ? ' | I1 misses | D1 misses | LL misses' : ''}${branches ? ' | conditional mispredicted | indirect mispredicted' : ''}${cache || branches ? ' (service / baseline)' : ''}`,
    );
    console.log(`---|---:|---:|---:${cache ? '|---:|---:|---:' : ''}${branches ? '|---:|---:' : ''}`);
    for (const { id, path } of measured) {
      const [service, baseline] = (await Promise.all(
        servers.map(async (server) => {
          await requests(server, path, Number(values.warm));
          control(server, '-z');
          control(server, '-i', 'on');
          await requests(server, path, requestCount);
          control(server, '-i', 'off');
          return perRequest(dumped(server), requestCount);
        }),
      )) as [ReturnType<typeof perRequest>, ReturnType<typeof perRequest>];
      const whole = (n: number) => Math.round(n).toLocaleString('en');
      const misses = cache
        ? ` | ${whole(service.i1)} / ${whole(baseline.i1)} | ${whole(service.d1)} / ${whole(baseline.d1)} | ${whole(service.ll)} / ${whole(baseline.ll)}`
        : '';
      const mispredicted = branches
        ? ` | ${whole(service.bcm)} / ${whole(baseline.bcm)} | ${whole(service.bim)} / ${whole(baseline.bim)}`
        : '';
      console.log(
        `${id} | ${whole(service.ir)} | ${whole(baseline.ir)} | ${(service.ir / baseline.ir).toFixed(3)}${misses}${mispredicted}`,
      );
    }
  } finally {
    for (const server of servers) server.child.kill('SIGTERM');
    if (values.keep)
      console.log(
        `\ndumps kept in ${out}; JavaScript's names: ${servers.map(({ child }) => `/tmp/perf-${child.pid}.map`).join(', ')}`,
      );
    else rmSync(out, { recursive: true, force: true });
  }
}

await main();
process.exit(0);
