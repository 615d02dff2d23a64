import { execFileSync } from 'node:child_process';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  exitCode,
  getOnce,
  logLines,
  servingAddress,
  useItemsCommand,
  waitUntil,
} from '../support/command.js';
import { queryAt, replicaCaughtUp, topology, topologyUp, urlAt } from '../support/topology.js';

/** The process ids whose parent is `pid` (ps, as an operator would look). */
function childPids(pid: number): number[] {
  let listed = '';
  try {
    listed = execFileSync('ps', ['--ppid', String(pid), '-o', 'pid='], { encoding: 'utf8' });
  } catch {
    // ps exits 1 when it lists nothing.
  }
  return listed
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '')
    .map(Number);
}

/** Each backend's application_name and last statement on database `name` at `port`. */
const backends = (port: number, name: string) =>
  queryAt<{ application_name: string; query: string }>(
    port,
    'postgres',
    'select application_name, query from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()',
    [name],
  );

/**
 * What the command reads from the environment beyond DATABASE_URL: WORKERS (the processes serving the
 * port) and DATABASE_READ_URLS (the replicas its reads go to), through the command itself on
 * PostgreSQL and its streaming replica.
 */
describe('the command’s WORKERS and DATABASE_READ_URLS (postgres)', () => {
  const items = useItemsCommand('cli_environment');
  beforeAll(async () => {
    await topologyUp();
    // The table was made on the primary before any command starts; the replica replays it.
    await replicaCaughtUp();
  }, 120_000);

  it('WORKERS=2 (no --workers) serves the port from two child processes, each answering requests', async () => {
    const started = items.start({ DATABASE_URL: items.url, WORKERS: '2' });
    const address = await servingAddress(started);
    expect(started.output()).toMatch(/Serving 1 endpoints on \S+ \(database: .*, 2 workers\)/);
    await waitUntil(
      started,
      'two workers listening',
      (output) =>
        logLines(output).filter((line) => String(line.msg).startsWith('Server listening at')).length === 2,
    );
    const pid = started.child.pid as number;
    const workers = childPids(pid);
    expect(workers).toHaveLength(2);

    // Each request on a connection of its own: the primary process hands them to the workers in turn.
    const answers = await Promise.all(
      Array.from({ length: 8 }, () => getOnce(`${address}/api/items?filter%5Bname%5D=two`)),
    );
    for (const answer of answers) {
      expect(answer.status, answer.body).toBe(200);
      expect(JSON.parse(answer.body).data).toEqual([{ id: 2, name: 'two' }]);
    }
    const completed = () => logLines(started.output()).filter((line) => line.msg === 'request completed');
    await waitUntil(started, 'eight request logs', () => completed().length === 8, 15_000);
    // The processes that answered are the two children ps lists, and only they.
    expect(new Set(completed().map((line) => line.pid))).toEqual(new Set(workers));

    expect(await exitCode(started, 'SIGTERM')).toBe(0);
  }, 180_000);

  it('DATABASE_READ_URLS: a list is read on the replica (its pg_stat_activity), Consistency: primary on the primary', async () => {
    // Each pool names itself, so that each server's activity view tells whose statements it ran.
    const primaryName = `rqs_cli_primary_${process.pid}`;
    const replicaName = `rqs_cli_replica_${process.pid}`;
    const started = items.start({
      DATABASE_URL: `${items.url}?application_name=${primaryName}`,
      DATABASE_READ_URLS: `${urlAt(topology.replicaPort, items.database)}?application_name=${replicaName}`,
      WORKERS: '1',
    });
    const address = await servingAddress(started);
    const listed = (rows: { application_name: string; query: string }[], application: string) =>
      rows.filter((row) => row.application_name === application && /from "items"/.test(row.query));

    const list = await getOnce(`${address}/api/items?filter%5Bname%5D=two`);
    expect(list.status, list.body).toBe(200);
    expect(JSON.parse(list.body).data).toEqual([{ id: 2, name: 'two' }]);
    expect(listed(await backends(topology.replicaPort, items.database), replicaName)).not.toEqual([]);
    expect(listed(await backends(topology.primaryPort, items.database), primaryName)).toEqual([]);

    // The same list asked of the primary: now the primary's activity shows it (the check above can see it).
    const own = await fetch(`${address}/api/items?filter%5Bname%5D=one`, {
      headers: { consistency: 'primary' },
    });
    expect(own.status).toBe(200);
    expect(((await own.json()) as { data: unknown }).data).toEqual([{ id: 1, name: 'one' }]);
    expect(listed(await backends(topology.primaryPort, items.database), primaryName)).not.toEqual([]);

    // Readiness reports the replica the environment named (its user hidden, as every URL shown).
    const ready = await getOnce(`${address}/health/ready`);
    expect(ready.status).toBe(200);
    expect(JSON.parse(ready.body).replicas).toEqual([
      {
        url: `postgres://***@127.0.0.1:${topology.replicaPort}/${items.database}?application_name=${replicaName}`,
        up: true,
      },
    ]);

    expect(await exitCode(started, 'SIGTERM')).toBe(0);
  }, 180_000);
});
