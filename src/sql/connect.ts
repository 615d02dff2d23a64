import type { ConnectOptions, DynamicDb, Row, RunOptions, SqlDialect, Statement } from './dialect.js';
import { mysql } from './dialects/mysql.js';
import { postgres } from './dialects/postgres.js';
import { sqlite } from './dialects/sqlite.js';

export interface Connection {
  db: DynamicDb;
  dialect: SqlDialect;
  /** Runs the reads of list requests (see `Opened.run`). */
  run(statement: Statement, options?: RunOptions): Promise<Row[]>;
}

/** The dialect for a `DATABASE_URL`: `sqlite:…`, `postgres://…` (or `postgresql://`), `mysql://…` (or `mariadb://`). */
export function dialectFor(url: string): SqlDialect {
  if (/^sqlite:/.test(url)) return sqlite;
  if (/^postgres(ql)?:\/\//.test(url)) return postgres;
  if (/^(mysql|mariadb):\/\//.test(url)) return mysql;
  throw new Error(
    `Unsupported DATABASE_URL "${url.replace(/\/\/[^@/]*@/, '//***@')}": use sqlite:, postgres:// or mysql://`,
  );
}

export function connect(url: string, options?: ConnectOptions): Connection {
  const dialect = dialectFor(url);
  const { db, run } = dialect.connect(url.replace(/^mariadb:/, 'mysql:'), options);
  return { db, dialect, run };
}
