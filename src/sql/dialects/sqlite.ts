import Database from 'better-sqlite3';
import { CompiledQuery, Kysely, SqliteDialect, sql } from 'kysely';
import { insertReturning, jsonPathString, type Refusal, type Row, type SqlDialect } from '../dialect.js';
import { spaceText } from '../storage.js';

const extract = (column: unknown, path: readonly string[]) =>
  sql`json_extract(${column}, ${jsonPathString(path)})`;
const typeIn = (column: unknown, path: readonly string[], types: string[]) =>
  sql`json_type(${column}, ${jsonPathString(path)}) in (${sql.join(types.map((t) => sql.lit(t)))})`;

/** `sqlite:./file.db`, `sqlite:///abs/file.db`, `sqlite::memory:` → a path better-sqlite3 opens. */
export function sqliteFilename(url: string): string {
  const rest = url.replace(/^sqlite:/, '');
  if (rest === ':memory:' || rest === '') return ':memory:';
  return rest.startsWith('//') ? rest.slice(2) : rest;
}

/** Result codes meaning the file cannot be used now: locked past the busy timeout, unreadable, full, read-only. */
const unavailable = /^SQLITE_(BUSY|LOCKED|CANTOPEN|IOERR|FULL|READONLY|CORRUPT|NOTADB|PROTOCOL)/;
const constraints: Record<string, Exclude<Refusal['kind'], 'unavailable'>> = {
  SQLITE_CONSTRAINT_UNIQUE: 'unique',
  SQLITE_CONSTRAINT_PRIMARYKEY: 'unique',
  SQLITE_CONSTRAINT_FOREIGNKEY: 'foreign-key',
  SQLITE_CONSTRAINT_NOTNULL: 'not-null',
  SQLITE_CONSTRAINT_CHECK: 'check',
  SQLITE_TOOBIG: 'too-long',
  SQLITE_MISMATCH: 'invalid',
};

function refusal(error: unknown): Refusal | undefined {
  const { code = '', message = '' } = error as { code?: string; message?: string };
  if (unavailable.test(code)) return { kind: 'unavailable' };
  const kind = constraints[code];
  if (!kind) return undefined;
  // "UNIQUE constraint failed: users.email, users.x", "NOT NULL constraint failed: users.name"
  const list = /constraint failed: (.+)$/.exec(message)?.[1] ?? '';
  const columns = /^\w+\.\w+(, \w+\.\w+)*$/.test(list)
    ? list.split(', ').map((name) => name.split('.')[1] as string)
    : [];
  return { kind, columns };
}

export const sqlite: SqlDialect = {
  name: 'sqlite',
  connect(url, options) {
    const database = new Database(sqliteFilename(url), { timeout: options?.busyTimeoutMs ?? 5000 });
    database.pragma('journal_mode = WAL');
    database.pragma('foreign_keys = ON');
    const db = new Kysely({ dialect: new SqliteDialect({ database }) });
    return {
      db,
      // Through Kysely's executor: it serializes access to the one connection, so a read never runs
      // inside another request's open transaction.
      run: async (statement) =>
        (await db.executeQuery<Row>(CompiledQuery.raw(statement.sql, [...statement.parameters]))).rows,
    };
  },
  // SQLite's LIKE ignores case for ASCII letters only.
  like: (target, pattern) => sql`${target} like ${pattern} escape '!'`,
  jsonLike: (target, pattern) => sql`${target} like ${pattern} escape '!'`,
  jsonText: (column, path) => extract(column, path),
  jsonString: (column, path) =>
    sql`case when ${typeIn(column, path, ['text'])} then ${extract(column, path)} end`,
  jsonNumber: (column, path) =>
    sql`case when ${typeIn(column, path, ['integer', 'real'])} then ${extract(column, path)} end`,
  jsonBoolean: (column, path) =>
    sql`case when ${typeIn(column, path, ['true', 'false'])} then json_type(${column}, ${jsonPathString(path)}) end`,
  jsonIsNull: (column, path) => sql`coalesce(json_type(${column}, ${jsonPathString(path)}), 'null') = 'null'`,
  refusal: async (error) => refusal(error),
  // better-sqlite3 binds no booleans; SQLite stores them as 0/1.
  nullsSortLargest: false,
  rowValueKeyset: false,
  rowLocks: false,
  insertRow: insertReturning,
  bindBoolean: (value) => (value ? 1 : 0),
  bindDatetime: (iso) => spaceText(iso),
  nativeDatetimeIsText: true,
};
