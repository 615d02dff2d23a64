import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { get } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sql } from 'kysely';
import { afterAll, beforeAll } from 'vitest';
import type { Connection } from '../../src/sql/connect.js';
import { builtPackage } from './built.js';
import { dropDatabase, freshDatabase } from './databases.js';
import { databaseOf, topology, urlAt } from './topology.js';

/** The repository, where the command runs (the configuration files it loads resolve the package there). */
const repository = join(dirname(fileURLToPath(import.meta.url)), '../..');

/**
 * A configuration module of one table, `items`, without setup: the test makes the table (`createItems`).
 * `endpoint` adds to its endpoint's policy.
 */
const itemsConfig = (endpoint: Record<string, unknown> = {}): string =>
  `import { defineConfig, defineResource } from 'resource-query-service';
export default defineConfig({
  resources: [defineResource({ name: 'items', table: 'items', columns: { id: 'integer', name: 'string' } })],
  endpoints: [${JSON.stringify({ resource: 'items', allowedFilters: ['name'], ...endpoint })}],
});`;

/** The table `itemsConfig` serves, with two rows: 1 'one' and 2 'two'. */
async function createItems(conn: Connection): Promise<void> {
  await sql`create table items (id integer primary key, name varchar(50) not null)`.execute(conn.db);
  await sql`insert into items (id, name) values (1, 'one'), (2, 'two')`.execute(conn.db);
}

export interface Started {
  child: ChildProcess;
  /** Everything written to stdout and stderr so far. */
  output(): string;
}

/**
 * The built command (dist/, as test/config-loading.test.ts runs it) in the repository, or another Node
 * script in another folder (`where`: an installed package's command, an application), JSON logs at info
 * unless `env` says otherwise.
 */
export function startCommand(
  args: string[],
  env: Record<string, string>,
  where: { command?: string; cwd?: string } = {},
): Started {
  const command = where.command ?? join(builtPackage(), 'src/cli/main.js');
  const child = spawn(process.execPath, [command, ...args], {
    cwd: where.cwd ?? repository,
    env: { ...process.env, LOG_LEVEL: 'info', ...env },
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  return { child, output: () => output };
}

/**
 * Resolves when `done(output)` holds; fails after `ms` or when the command exits first. The bound only
 * tells a hang from a slow start on a busy machine.
 */
export async function waitUntil(
  started: Started,
  what: string,
  done: (output: string) => boolean,
  ms = 90_000,
): Promise<void> {
  const deadline = Date.now() + ms;
  while (!done(started.output())) {
    if (started.child.exitCode !== null || Date.now() > deadline)
      throw new Error(`no ${what} (exit ${started.child.exitCode}):\n${started.output()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** The banner's address (`Serving N endpoints on http://…`), once it is written. */
export async function servingAddress(started: Started): Promise<string> {
  const banner = /Serving \d+ endpoints on (http:\/\/\S+) \(/;
  await waitUntil(started, 'banner', (output) => banner.test(output));
  return banner.exec(started.output())?.[1] as string;
}

/** The JSON lines of the output (the log), the banner and other text left out. */
export const logLines = (output: string): Record<string, unknown>[] =>
  output
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);

/** GET on a new TCP connection each time: the cluster hands each connection to a worker in turn. */
export function getOnce(url: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    get(url, { agent: false }, (res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => {
        body += chunk.toString();
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    }).on('error', reject);
  });
}

/** The command's exit code once it ends, after `signal` when one is given (already ended: its code). */
export async function exitCode(started: Started, signal?: NodeJS.Signals): Promise<number | null> {
  const { child } = started;
  if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
  const exited = once(child, 'exit');
  if (signal) child.kill(signal);
  const [code] = await exited;
  return code as number | null;
}

/** Kills what a suite started and left running (a test that failed half-way). */
export function killLeftOver(children: readonly ChildProcess[]): void {
  for (const child of children)
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
}

export interface ItemsCommand {
  /** The test's own connection to the database. */
  conn: Connection;
  /** The database's name on the server. */
  database: string;
  /** The database's URL, without options. */
  url: string;
  /** Starts the command on `itemsConfig` (on port 0), killed after the suite if it is still running. */
  start(env: Record<string, string>): Started;
}

/**
 * For a `describe` block: a fresh PostgreSQL database `name` holding `createItems`'s table, the module
 * of `itemsConfig(endpoint)` in a folder of its own, and the commands started on them.
 */
export function useItemsCommand(name: string, endpoint: Record<string, unknown> = {}): ItemsCommand {
  const context = {} as ItemsCommand;
  const children: ChildProcess[] = [];
  let dir: string | undefined;
  beforeAll(async () => {
    const folder = mkdtempSync(join(tmpdir(), `rqs-${name}-`));
    dir = folder;
    writeFileSync(join(folder, 'rqs.config.ts'), itemsConfig(endpoint));
    context.conn = await freshDatabase('postgres', name);
    context.database = await databaseOf(context.conn);
    context.url = urlAt(topology.primaryPort, context.database);
    await createItems(context.conn);
    context.start = (env) => {
      const started = startCommand(['--config', join(folder, 'rqs.config.ts'), '--port', '0'], env);
      children.push(started.child);
      return started;
    };
  }, 120_000);
  afterAll(async () => {
    killLeftOver(children);
    await context.conn?.close();
    await dropDatabase('postgres', name);
    if (dir) rmSync(dir, { recursive: true, force: true });
  });
  return context;
}
