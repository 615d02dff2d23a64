import { Kysely, PostgresDialect, type RawBuilder, sql } from 'kysely';
import pg from 'pg';
import type { SqlDialect } from '../dialect.js';

// Dates and timestamps are read as text so that no value passes through the process time zone and
// microseconds survive; int8 (count(*)) is read as a number.
const TEXT_OIDS = new Set([1082, 1114, 1184]);
const INT8_OID = 20;

function typeParser(oid: number, format?: string): (value: string) => unknown {
  if (TEXT_OIDS.has(oid)) return (value) => value;
  if (oid === INT8_OID) return (value) => Number(value);
  return pg.types.getTypeParser(oid, format as 'text');
}

const jsonb = (column: unknown) => sql`(${column})::jsonb`;
// A chain of `->` (keys bound as text) rather than `#>` with a text[] path: about 10 % less time per
// row scanned (a JSON filter without an index reads every row), the same result.
const at = (column: unknown, path: readonly string[]): RawBuilder<unknown> =>
  path.reduce<RawBuilder<unknown>>((json, key) => sql`${json} -> ${key}::text`, jsonb(column));
const textAt = (column: unknown, path: readonly string[]) =>
  sql`${at(column, path.slice(0, -1))} ->> ${path[path.length - 1]}::text`;
const typeIs = (column: unknown, path: readonly string[], type: string) =>
  sql`jsonb_typeof(${at(column, path)}) = ${sql.lit(type)}`;

export const postgres: SqlDialect = {
  name: 'postgres',
  connect(url, options) {
    const pool = new pg.Pool({
      connectionString: url,
      max: options?.poolSize ?? 10,
      options: '-c TimeZone=UTC',
      types: { getTypeParser: typeParser as typeof pg.types.getTypeParser },
    });
    // An idle pooled connection that the server closes (restart, failover, a dropped database) emits
    // 'error' on the pool; without a listener that would crash the process. pg-pool discards the client
    // and the next query opens a new one, so there is nothing more to do here.
    pool.on('error', () => {});
    return {
      db: new Kysely({ dialect: new PostgresDialect({ pool }) }),
      run: async (statement) => (await pool.query(statement.sql, statement.parameters as unknown[])).rows,
    };
  },
  like: (target, pattern) => sql`${target} ilike ${pattern} escape '!'`,
  jsonLike: (target, pattern) => sql`${target} ilike ${pattern} escape '!'`,
  jsonText: (column, path) => textAt(column, path),
  jsonString: (column, path) =>
    sql`case when ${typeIs(column, path, 'string')} then ${textAt(column, path)} end`,
  jsonNumber: (column, path) =>
    sql`case when ${typeIs(column, path, 'number')} then (${textAt(column, path)})::numeric end`,
  jsonBoolean: (column, path) =>
    sql`case when ${typeIs(column, path, 'boolean')} then ${textAt(column, path)} end`,
  jsonIsNull: (column, path) => sql`${textAt(column, path)} is null`,
  nullsSortLargest: true,
  rowValueKeyset: true,
  bindBoolean: (value) => value,
  bindDatetime: (iso) => iso,
};
