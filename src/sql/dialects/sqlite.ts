import Database from 'better-sqlite3';
import { CompiledQuery, Kysely, SqliteDialect, sql } from 'kysely';
import { jsonPathString, type Row, type SqlDialect } from '../dialect.js';

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

export const sqlite: SqlDialect = {
  name: 'sqlite',
  connect(url) {
    const database = new Database(sqliteFilename(url));
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
  // better-sqlite3 binds no booleans; SQLite stores them as 0/1.
  nullsSortLargest: false,
  rowValueKeyset: false,
  bindBoolean: (value) => (value ? 1 : 0),
  bindDatetime: (iso) => iso,
};
