/**
 * Live streams' costs (docs/benchmarks.md, "Live streams"): for each engine, the write path's cost with
 * the change captured against without (PATCH through the service in-process, rounds alternated), the
 * delay from a write's answer to its event on a stream of another instance at a sustained write rate
 * (median, p99), and what open streams cost one process (memory and CPU per stream).
 *
 *   npm run bench:live -- [--engines pg,mariadb,sqlite] [--streams 1000] [--seconds 10]
 */
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import { sql } from 'kysely';
import { SseParser } from '../src/client/sse.js';
import { createService } from '../src/core/service.js';
import { liveSetupStatements } from '../src/live/setup.js';
import type { ServiceConfig } from '../src/resource/policy.js';
import { resolveResources } from '../src/resource/resolve.js';
import type { ResourceDefinition } from '../src/resource/types.js';
import { buildService } from '../src/server/standalone.js';
import { type Connection, connect } from '../src/sql/connect.js';
import { databaseUrl, type EngineName, parseEngines } from './engines.js';

const { values } = parseArgs({
  options: {
    engines: { type: 'string', default: 'pg,mariadb,sqlite' },
    streams: { type: 'string', default: '1000' },
    seconds: { type: 'string', default: '10' },
    rounds: { type: 'string', default: '5' },
  },
});
const engines = parseEngines(values.engines as string);
const streamCount = Number(values.streams);
const seconds = Number(values.seconds);
const rounds = Number(values.rounds);

const notes: ResourceDefinition = {
  name: 'notes',
  table: 'live_bench_notes',
  columns: { id: 'integer', tenant_id: 'integer', title: 'string' },
};
const endpoint = {
  resource: 'notes',
  actions: ['list' as const, 'read' as const, 'update' as const],
  access: { update: () => true },
  schema: {
    title: 'Notes',
    table: { columns: [{ key: 'id' }] },
    form: { inputs: [{ name: 'title', type: 'text' as const }] },
  },
};
const base: ServiceConfig = { resources: [notes], endpoints: [endpoint] };
// One caller opens every stream here, and each write is its own event with a bus: both limits lifted.
const live: ServiceConfig = {
  ...base,
  live: { maxStreamsPerCaller: 1_000_000, maxEventsPerSecond: 100_000 },
};

const createTable: Record<EngineName, string> = {
  sqlite:
    'create table live_bench_notes (id integer primary key, tenant_id integer not null, title text not null)',
  pg: 'create table live_bench_notes (id integer primary key, tenant_id integer not null, title text not null)',
  mariadb:
    'create table live_bench_notes (id int primary key, tenant_id int not null, title varchar(200) not null)',
};

const ROWS = 1000;

async function prepare(engine: EngineName): Promise<string> {
  const url = databaseUrl(engine, 'rqs_live_bench');
  if (engine !== 'sqlite') {
    const server = url.slice(0, url.lastIndexOf('/'));
    const admin = connect(`${server}/${engine === 'pg' ? 'postgres' : ''}`);
    await sql.raw('drop database if exists rqs_live_bench').execute(admin.db);
    await sql.raw('create database rqs_live_bench').execute(admin.db);
    await admin.close();
  }
  const connection = connect(url);
  await sql.raw('drop table if exists live_bench_notes').execute(connection.db);
  await sql.raw('drop table if exists live_changes').execute(connection.db);
  await sql.raw(createTable[engine]).execute(connection.db);
  await connection.db
    .insertInto('live_bench_notes')
    .values(
      Array.from({ length: ROWS }, (_, i) => ({ id: i + 1, tenant_id: (i % 10) + 1, title: `note ${i}` })),
    )
    .execute();
  const resolved = resolveResources([notes], undefined).values();
  for (const statement of liveSetupStatements(connection.dialect, 'live_changes', resolved, 'setup'))
    await statement.execute(connection.db);
  await connection.close();
  return url;
}

const median = (list: number[]): number => {
  const sorted = [...list].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
};
const percentile = (list: number[], p: number): number => {
  const sorted = [...list].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? Number.NaN;
};

/** PATCHes per second through the service in-process, `count` of them, one at a time. */
async function patchRate(connection: Connection, config: ServiceConfig, count: number): Promise<number> {
  const service = await createService({ config, connection });
  const started = performance.now();
  for (let i = 0; i < count; i++) {
    const id = (i % ROWS) + 1;
    const response = await service.handle({
      method: 'PATCH',
      url: `/api/notes/${id}`,
      headers: { 'content-type': 'application/json', host: 'bench' },
      body: async () => JSON.stringify({ title: `t${i}` }),
    });
    if (response?.status !== 200) throw new Error(`PATCH answered ${response?.status}`);
  }
  const rate = count / ((performance.now() - started) / 1000);
  service.close();
  return rate;
}

/** An SSE reader that calls `onChange` with each change event's ids and the time it arrived. */
async function stream(url: string, onChange: (ids: unknown[], at: number) => void): Promise<AbortController> {
  const controller = new AbortController();
  const response = await fetch(url, { signal: controller.signal });
  if (!response.ok || !response.body) throw new Error(`stream answered ${response.status}`);
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  // The client's own parser: what a page runs.
  const parser = new SseParser((event) => {
    if (event.event === 'change')
      onChange((JSON.parse(event.data) as { ids: unknown[] }).ids, performance.now());
  });
  (async () => {
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return;
        parser.push(value);
      }
    } catch {
      // aborted
    }
  })();
  return controller;
}

async function main(): Promise<void> {
  for (const engine of engines) {
    const url = await prepare(engine);
    console.log(`\n## ${engine}`);

    // The write path: capture off and on, alternated, the same PATCHes.
    const writer = connect(url);
    const off: number[] = [];
    const on: number[] = [];
    for (let round = 0; round < rounds; round++) {
      off.push(await patchRate(writer, base, 1000));
      on.push(await patchRate(writer, live, 1000));
    }
    await sql.raw('delete from live_changes').execute(writer.db);
    console.log(
      `PATCH/s capture off ${median(off).toFixed(0)}, on ${median(on).toFixed(0)} (medians of ${rounds} rounds of 1000): on/off ${(median(on) / median(off)).toFixed(3)}`,
    );

    // Delay: writes through instance A at a steady rate, one stream on instance B; without a bus (the
    // log read every pollMs), then with Redis waking B. Timed from each PATCH's sending, as its event
    // may come before its answer does.
    const instance = async (config: ServiceConfig) => {
      const connection = connect(url);
      const app = await buildService({ config, connection, directReads: true });
      await app.listen({ port: 0, host: '127.0.0.1' });
      return { app, connection, base: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}/api` };
    };
    const closeAll = (app: Awaited<ReturnType<typeof instance>>['app']) => {
      const grace = setTimeout(() => app.server.closeAllConnections(), 2000);
      return app.close().finally(() => clearTimeout(grace));
    };
    const redisUrl = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';
    for (const [label, config] of [
      ['no bus, pollMs 200', live],
      ['Redis bus', { ...live, live: { ...live.live, redisUrl } }],
    ] as const) {
      const writerInstance = await instance(config);
      const readerInstance = await instance(config);
      const sentAt = new Map<number, number>();
      const delays: number[] = [];
      const roundTrips: number[] = [];
      const watcher = await stream(`${readerInstance.base}/live?topic=resource/notes`, (ids, at) => {
        for (const id of ids) {
          const sent = sentAt.get(Number(id));
          if (sent !== undefined) {
            delays.push(at - sent);
            sentAt.delete(Number(id));
          }
        }
      });
      await new Promise((resolve) => setTimeout(resolve, 300));
      const rate = 50;
      const total = rate * seconds;
      const startedAt = performance.now();
      for (let i = 0; i < total; i++) {
        const due = startedAt + (i * 1000) / rate;
        const wait = due - performance.now();
        if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
        const id = (i % ROWS) + 1;
        const sending = performance.now();
        sentAt.set(id, sending);
        const response = await fetch(`${writerInstance.base}/notes/${id}`, {
          method: 'PATCH',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ title: `d${i}` }),
        });
        await response.text();
        roundTrips.push(performance.now() - sending);
      }
      await new Promise((resolve) => setTimeout(resolve, 1500));
      watcher.abort();
      console.log(
        `${label}: from sending a PATCH to instance A to its event on instance B, ${rate} writes/s for ${seconds} s: median ${median(delays).toFixed(1)} ms, p99 ${percentile(delays, 0.99).toFixed(1)} ms (${delays.length} of ${total} events); the PATCH's own round trip: median ${median(roundTrips).toFixed(1)} ms`,
      );
      await closeAll(writerInstance.app);
      await closeAll(readerInstance.app);
      await writerInstance.connection.close();
      await readerInstance.connection.close();
    }
    const a = await instance(live);
    const b = await instance(live);

    // Streams held by one process (B): memory and CPU per stream while A writes 10/s.
    global.gc?.();
    const rssBefore = process.memoryUsage().rss;
    const heapBefore = process.memoryUsage().heapUsed;
    const controllers: AbortController[] = [];
    let received = 0;
    for (let i = 0; i < streamCount; i++)
      controllers.push(await stream(`${b.base}/live?topic=resource/notes`, () => received++));
    const cpuBefore = process.cpuUsage();
    const wallBefore = performance.now();
    for (let i = 0; i < seconds * 10; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      await (
        await fetch(`${a.base}/notes/${(i % ROWS) + 1}`, {
          method: 'PATCH',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ title: `s${i}` }),
        })
      ).text();
    }
    const cpu = process.cpuUsage(cpuBefore);
    const wall = performance.now() - wallBefore;
    global.gc?.();
    const rssAfter = process.memoryUsage().rss;
    const heapAfter = process.memoryUsage().heapUsed;
    console.log(
      `${streamCount} streams in one process (server and readers both: an upper bound): ${((rssAfter - rssBefore) / streamCount / 1024).toFixed(1)} KiB RSS and ${((heapAfter - heapBefore) / streamCount / 1024).toFixed(1)} KiB heap per stream; CPU ${(((cpu.user + cpu.system) / 1000 / wall) * 100).toFixed(1)} % of a core at 10 writes/s, ${received} events received`,
    );
    for (const controller of controllers) controller.abort();
    await closeAll(a.app);
    await closeAll(b.app);
    await a.connection.close();
    await b.connection.close();
    await writer.close();
  }
}

await main();
