import type { ConnectOptions, DynamicDb, Row, SqlDialect, Statement } from './dialect.js';
import { mysql } from './dialects/mysql.js';
import { postgres } from './dialects/postgres.js';
import { sqlite } from './dialects/sqlite.js';
import { type ConnectionHealth, type ReadOptions, ReadRouter, withoutCredentials } from './replicas.js';

export type { ConnectionHealth, NodeHealth, ReadOptions } from './replicas.js';
export { withoutCredentials } from './replicas.js';

export interface Connection {
  /** The primary: writes, their transactions, and start-up reads (the catalog). */
  db: DynamicDb;
  dialect: SqlDialect;
  /**
   * Runs the reads of list requests (see `Opened.run`): on a read replica when some are configured
   * (round-robin, a failing one skipped), on the primary when `options.primary` or when none is.
   */
  run(statement: Statement, options?: ReadOptions): Promise<Row[]>;
  /**
   * The rows at once where the primary reads synchronously and is free (`Opened.runNow`: SQLite), else
   * `undefined`. Absent with replicas (a replica may be any engine's) and on the engines that answer later.
   */
  runNow?(statement: Statement): Row[] | undefined;
  /** `select 1` on the primary and on every replica, each within `timeoutMs` (default 1000). */
  health(timeoutMs?: number): Promise<ConnectionHealth>;
  /** Closes the primary's pool and the replicas'. */
  close(): Promise<void>;
}

export interface ConnectionOptions extends ConnectOptions {
  /**
   * Read replicas of the primary (the CLI's `DATABASE_READ_URLS`), of the same engine. Each gets a pool
   * of `poolSize` connections.
   */
  readUrls?: readonly string[];
  /** How long a replica that failed is left out before it is tried again (default 5000 ms). */
  replicaRetryMs?: number;
}

/** The dialect for a `DATABASE_URL`: `sqlite:…`, `postgres://…` (or `postgresql://`), `mysql://…` (or `mariadb://`). */
export function dialectFor(url: string): SqlDialect {
  if (/^sqlite:/.test(url)) return sqlite;
  if (/^postgres(ql)?:\/\//.test(url)) return postgres;
  if (/^(mysql|mariadb):\/\//.test(url)) return mysql;
  throw new Error(
    `Unsupported DATABASE_URL "${withoutCredentials(url)}": use sqlite:, postgres:// or mysql://`,
  );
}

export function connect(url: string, options?: ConnectionOptions): Connection {
  const dialect = dialectFor(url);
  const open = (target: string) => dialect.connect(target.replace(/^mariadb:/, 'mysql:'), options);
  const readUrls = options?.readUrls ?? [];
  for (const readUrl of readUrls)
    if (dialectFor(readUrl) !== dialect)
      throw new Error(
        `A read replica must be the primary's engine (${dialect.name}): "${withoutCredentials(readUrl)}".`,
      );
  const primary = open(url);
  const router = new ReadRouter(
    primary,
    dialect,
    readUrls.map((readUrl) => ({ url: readUrl, opened: open(readUrl) })),
    options?.replicaRetryMs ?? 5000,
    url,
  );
  return {
    db: primary.db,
    dialect,
    // Without replicas the router would only add a call to every read.
    run: readUrls.length === 0 ? primary.run : (statement, runOptions) => router.run(statement, runOptions),
    ...(readUrls.length === 0 && primary.runNow && { runNow: primary.runNow }),
    health: (timeoutMs = 1000) => router.health(timeoutMs),
    close: async () => {
      await Promise.all([router.close(), primary.db.destroy()]);
    },
  };
}
