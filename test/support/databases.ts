import { copyFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import mysql from 'mysql2/promise';
import pg from 'pg';
import { type Connection, connect } from '../../src/sql/connect.js';
import type { ConnectOptions, DialectName } from '../../src/sql/dialect.js';

/** Real servers only: PostgreSQL and MariaDB as on the development machines and CI. */
const postgresServer = process.env.TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432';
const mysqlServer = process.env.TEST_MYSQL_URL ?? 'mysql://root@127.0.0.1:3306';

const engines: DialectName[] = ['sqlite', 'postgres', 'mysql'];

/**
 * The engines the suites loop over: all three, or those `TEST_ENGINES` names (`npm run test:fast` sets
 * `sqlite`, for the edit–test loop; CI runs all three).
 */
export const dialects: DialectName[] = selectedEngines(process.env.TEST_ENGINES);

function selectedEngines(given: string | undefined): DialectName[] {
  if (given === undefined || given.trim() === '') return engines;
  const names = given.split(',').map((name) => name.trim());
  const unknown = names.filter((name) => !(engines as string[]).includes(name));
  if (unknown.length > 0)
    throw new Error(
      `TEST_ENGINES names ${unknown.join(', ')}: it takes ${engines.join(', ')}, comma-separated.`,
    );
  return engines.filter((engine) => names.includes(engine));
}

/**
 * The server-side name for a test database: the test's name plus this process id, so files run in
 * parallel, and two runs of the suite on one machine never drop each other's databases.
 */
function databaseName(name: string): string {
  return `rqs_${name.replace(/[^a-z0-9]/gi, '_').toLowerCase()}_${process.pid}`;
}

/** The URL of the test database `name` on a server (as `freshDatabase` connects to it). */
export const databaseUrl = (dialect: 'postgres' | 'mysql', name: string): string =>
  `${dialect === 'postgres' ? postgresServer : mysqlServer}/${databaseName(name)}`;

/** Server connections open to the test database `name` (PostgreSQL, MariaDB), seen from the server. */
export async function serverConnections(dialect: DialectName, name: string): Promise<number> {
  const database = databaseName(name);
  if (dialect === 'postgres') {
    const admin = new pg.Client({ connectionString: `${postgresServer}/postgres` });
    await admin.connect();
    const result = await admin
      .query('select count(*)::int as n from pg_stat_activity where datname = $1', [database])
      .finally(() => admin.end());
    return result.rows[0].n;
  }
  const admin = await mysql.createConnection({ uri: mysqlServer });
  const [rows] = await admin
    .query('select count(*) as n from information_schema.processlist where db = ?', [database])
    .finally(() => admin.end());
  return Number((rows as { n: number }[])[0]?.n);
}

/** Drops what `freshDatabase` created on a server (SQLite's is a temporary file). */
export async function dropDatabase(dialect: DialectName, name: string): Promise<void> {
  const database = databaseName(name);
  if (dialect === 'postgres') {
    const admin = new pg.Client({ connectionString: `${postgresServer}/postgres` });
    await admin.connect();
    await admin.query(`drop database if exists ${database} with (force)`).finally(() => admin.end());
  } else if (dialect === 'mysql') {
    const admin = await mysql.createConnection({ uri: mysqlServer });
    await admin.query(`drop database if exists ${database}`).finally(() => admin.end());
  }
}

/**
 * The suites' connection options: a connect may take seconds while the whole suite loads both cores,
 * and a test that is not about the pool's wait must not fail on it ("connect ETIMEDOUT" at start-up).
 */
const suiteOptions: ConnectOptions = { acquireTimeoutMs: 20_000 };

/** A fresh, empty database of the given engine; drop it with `dropDatabase` when done. */
export async function freshDatabase(
  dialect: DialectName,
  name: string,
  given?: ConnectOptions,
): Promise<Connection> {
  const options = { ...suiteOptions, ...given };
  const database = databaseName(name);
  if (dialect === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'rqs-'));
    return connect(`sqlite:${join(dir, `${database}.db`)}`);
  }
  if (dialect === 'postgres') {
    const admin = new pg.Client({ connectionString: `${postgresServer}/postgres` });
    await admin.connect();
    try {
      await admin.query(`drop database if exists ${database} with (force)`);
      await admin.query(`create database ${database}`);
    } finally {
      await admin.end();
    }
    return connect(databaseUrl('postgres', name), options);
  }
  const admin = await mysql.createConnection({ uri: mysqlServer });
  try {
    await admin.query(`drop database if exists ${database}`);
    await admin.query(`create database ${database} character set utf8mb4 collate utf8mb4_general_ci`);
  } finally {
    await admin.end();
  }
  return connect(databaseUrl('mysql', name), options);
}

/**
 * A database of `dialect` copied from `template` (what `templateFor` names): PostgreSQL's
 * `CREATE DATABASE … TEMPLATE` (no connection may be open to the template meanwhile), or a copy of a
 * closed SQLite file. Drop it with `dropDatabase`, as a fresh one.
 */
export async function cloneDatabase(
  dialect: 'sqlite' | 'postgres',
  name: string,
  template: string,
  given?: ConnectOptions,
): Promise<Connection> {
  const database = databaseName(name);
  if (dialect === 'sqlite') {
    const file = join(mkdtempSync(join(tmpdir(), 'rqs-')), `${database}.db`);
    copyFileSync(template, file);
    return connect(`sqlite:${file}`);
  }
  const admin = new pg.Client({ connectionString: `${postgresServer}/postgres` });
  await admin.connect();
  try {
    await admin.query(`drop database if exists ${database} with (force)`);
    await admin.query(`create database ${database} template ${template}`);
  } finally {
    await admin.end();
  }
  return connect(`${postgresServer}/${database}`, { ...suiteOptions, ...given });
}

/** What a template made by `freshDatabase(dialect, name)` is copied from: its database name, or its file. */
export async function templateFor(
  dialect: 'sqlite' | 'postgres',
  name: string,
  conn: Connection,
): Promise<string> {
  if (dialect === 'postgres') return databaseName(name);
  const [main] = await conn.run({ sql: 'pragma database_list', parameters: [] });
  if (typeof main?.file !== 'string' || main.file === '')
    throw new Error('no SQLite file behind the template');
  return main.file;
}
