import { Kysely, MysqlDialect, sql } from 'kysely';
import { createPool } from 'mysql2';
import { jsonPathString, type Row, type SqlDialect } from '../dialect.js';

const extract = (column: unknown, path: readonly string[]) =>
  sql`json_extract(${column}, ${jsonPathString(path)})`;
const value = (column: unknown, path: readonly string[]) =>
  sql`json_value(${column}, ${jsonPathString(path)})`;
const typeIn = (column: unknown, path: readonly string[], types: string[]) =>
  sql`json_type(${extract(column, path)}) in (${sql.join(types.map((t) => sql.lit(t)))})`;

export const mysql: SqlDialect = {
  name: 'mysql',
  connect(url, options) {
    const pool = createPool({
      uri: url,
      connectionLimit: options?.poolSize ?? 10,
      // Dates stay text (no process time zone involved); DATETIME values are UTC by convention.
      dateStrings: true,
      timezone: 'Z',
      charset: 'utf8mb4',
      supportBigNumbers: true,
    });
    return {
      db: new Kysely({ dialect: new MysqlDialect({ pool }) }),
      run: (statement) =>
        new Promise((resolve, reject) =>
          pool.query(statement.sql, statement.parameters as unknown[], (error, rows) =>
            error ? reject(error) : resolve(rows as Row[]),
          ),
        ),
    };
  },
  // LIKE follows the column collation (case-insensitive with the usual *_ci collations).
  like: (target, pattern) => sql`${target} like ${pattern} escape '!'`,
  // Text extracted from JSON has a binary collation; lower both sides to match the other engines.
  jsonLike: (target, pattern) => sql`lower(${target}) like lower(${pattern}) escape '!'`,
  jsonText: (column, path) => value(column, path),
  jsonString: (column, path) =>
    sql`case when ${typeIn(column, path, ['STRING'])} then ${value(column, path)} end`,
  jsonNumber: (column, path) =>
    sql`case when ${typeIn(column, path, ['INTEGER', 'DOUBLE', 'DECIMAL'])} then cast(${value(column, path)} as double) end`,
  jsonBoolean: (column, path) =>
    // json_value gives 1/0 for booleans; json_extract gives the JSON text true/false.
    sql`case when ${typeIn(column, path, ['BOOLEAN'])} then ${extract(column, path)} end`,
  jsonIsNull: (column, path) => sql`coalesce(json_type(${extract(column, path)}), 'NULL') = 'NULL'`,
  nullsSortLargest: false,
  rowValueKeyset: false,
  bindBoolean: (value) => (value ? 1 : 0),
  // DATETIME(3) literal form: MariaDB does not read the trailing `Z`.
  bindDatetime: (iso) => iso.replace('T', ' ').replace('Z', ''),
};
