import { CompiledQuery, type Expression, Kysely, MysqlDialect, type SqlBool, sql } from 'kysely';
import { type Connection, createConnection, createPool, type Pool, type PoolConnection } from 'mysql2';
import type { Refusal } from '../../errors/refusal.js';
import type { KindColumn, Scalar } from '../../kinds/index.js';
import { type ChangeLogSql, captureOps, quotedName, triggerName } from '../change-log.js';
import {
  CANCEL_GRACE_MS,
  cancelThenClose,
  containsJson,
  currentStatementOptions,
  type DynamicDb,
  jsonPathString,
  type KindOrder,
  type Members,
  networkErrorCodes,
  type OrderOperator,
  onceWithin,
  QueryCancelled,
  ReadStops,
  type Row,
  rankedTopPerParent,
  type SqlDialect,
  type StoppableConnections,
  watchRun,
  withQuietRollback,
} from '../dialect.js';

const extract = (column: unknown, path: readonly string[]) =>
  sql`json_extract(${column}, ${jsonPathString(path)})`;
const value = (column: unknown, path: readonly string[]) =>
  sql`json_value(${column}, ${jsonPathString(path)})`;
const typeIn = (column: unknown, path: readonly string[], types: string[]) =>
  sql`json_type(${extract(column, path)}) in (${sql.join(types.map((t) => sql.lit(t)))})`;

/**
 * Containment in a JSON array: `JSON_CONTAINS(column, ?)` with the JSON text of each form of a member
 * (`"a"`; a typed member's `"1"` or `1`: `containsJson`), which compares numbers as numbers.
 * JSON_OVERLAPS would say has_any in one call, but only MariaDB 10.9 and MySQL 8.0.17 have it;
 * JSON_CONTAINS runs on every version. It holds a scalar equal to the member, and reads text that is no
 * JSON as NULL with a warning (MySQL: an error), so it is asked only of valid JSON that is an array, in
 * a CASE (which evaluates its branch only when its test holds): anything else holds nothing. No index
 * serves it.
 */
function jsonHolds(column: Expression<unknown>, every: boolean, members: Members) {
  const held = containsJson(
    members,
    every,
    (value) => sql<SqlBool>`json_contains(${column}, ${value})`,
    (json) => json,
  );
  return sql<SqlBool>`(case when json_valid(${column}) then json_type(${column}) = 'ARRAY' and ${held} else false end)`;
}

/** Server errors meaning "not available now": too many connections, access denied, no such database, gone away, shutdown. */
// 1205 (lock wait timeout) and 1213 (deadlock) too: the same request may well succeed when tried again.
const unavailableErrnos = new Set([1040, 1045, 1049, 1053, 1205, 1213, 1927, 2002, 2003, 2006, 2013]);
const constraintErrnos: Record<number, Exclude<Refusal['kind'], 'unavailable'>> = {
  1062: 'unique', // ER_DUP_ENTRY
  1451: 'foreign-key', // ER_ROW_IS_REFERENCED_2
  1452: 'foreign-key', // ER_NO_REFERENCED_ROW_2
  1048: 'not-null', // ER_BAD_NULL_ERROR
  1364: 'not-null', // ER_NO_DEFAULT_FOR_FIELD: a NOT NULL column without a default left out of an insert
  1406: 'too-long', // ER_DATA_TOO_LONG
  1264: 'out-of-range', // ER_WARN_DATA_OUT_OF_RANGE
  1690: 'out-of-range', // ER_DATA_OUT_OF_RANGE: arithmetic past BIGINT or DOUBLE (an aggregate's scaledDecimal)
  4025: 'check', // ER_CONSTRAINT_FAILED (MariaDB)
  3819: 'check', // ER_CHECK_CONSTRAINT_VIOLATED (MySQL)
  1366: 'invalid', // ER_TRUNCATED_WRONG_VALUE_FOR_FIELD
  1292: 'invalid', // ER_TRUNCATED_WRONG_VALUE
};

async function refusal(error: unknown, db: DynamicDb, table?: string): Promise<Refusal | undefined> {
  const {
    code = '',
    errno = 0,
    fatal,
    sqlMessage = '',
  } = error as {
    code?: string;
    errno?: number;
    fatal?: boolean;
    sqlMessage?: string;
  };
  if (fatal || networkErrorCodes.has(code) || code.startsWith('PROTOCOL_') || unavailableErrnos.has(errno))
    return { kind: 'unavailable' };
  const kind = constraintErrnos[errno];
  if (!kind) return undefined;
  // "Column 'name' cannot be null", "Data too long for column 'name'", "… FOREIGN KEY (`department_id`) …"
  const named =
    /column '([^']+)'/i.exec(sqlMessage)?.[1] ??
    /^Field '([^']+)'/.exec(sqlMessage)?.[1] ??
    /FOREIGN KEY \(`([^`]+)`\)/.exec(sqlMessage)?.[1];
  if (named) return { kind, columns: [named] };
  // "Duplicate entry 'x' for key 'users_email_index'" names the index only: its columns are in the catalog.
  const index = /for key '(?:[^'.]*\.)?([^']+)'/.exec(sqlMessage)?.[1];
  if (kind !== 'unique' || !index || !table) return { kind, columns: [] };
  const rows = await sql<{ column_name: string }>`select column_name from information_schema.statistics
    where table_schema = database() and table_name = ${table} and index_name = ${index} order by seq_in_index`
    .execute(db)
    .catch(() => ({ rows: [] as { column_name: string }[] }));
  return { kind, columns: rows.rows.map((row) => row.column_name) };
}

/**
 * A pooled connection unused for this long is pinged before it serves a request: a network that went
 * silent, or a server that vanished without a reset, leaves idle connections that look open, and the
 * next request would otherwise wait on one until its deadline. Connections in steady use are not
 * pinged (HikariCP's rule; the benchmark's never are).
 */
const IDLE_CHECK_MS = 1000;

/** The socket under a mysql2 connection: destroying it fails the command in flight (`end()` would wait). */
const socketOf = (connection: Connection) =>
  (connection as unknown as { stream: { destroy(): void; unref(): void } }).stream;

/**
 * A pooled connection, or a failure once `ms` pass: mysql2's pool queues a request for a connection
 * without limit. A connection that arrives after the deadline goes straight back to the pool. One idle
 * past `IDLE_CHECK_MS` is pinged first: one that fails is closed and another taken; one that does not
 * answer within `ms` is closed and the request refused (the database is not answering).
 */
function acquire(
  pool: Pool,
  ms: number,
  lastUsed: WeakMap<PoolConnection, number>,
  callback: (error: Error | null, connection?: PoolConnection) => void,
): void {
  let late = false;
  const timer = setTimeout(() => {
    late = true;
    callback(Object.assign(new Error(`No database connection within ${ms} ms.`), { code: 'ETIMEDOUT' }));
  }, ms);
  pool.getConnection((error, connection) => {
    if (late) return connection?.release();
    clearTimeout(timer);
    const since = connection && lastUsed.get(connection);
    if (error || !connection || since === undefined || Date.now() - since < IDLE_CHECK_MS)
      return callback(error, connection);
    let silent = false;
    const pingTimer = setTimeout(() => {
      silent = true;
      socketOf(connection).destroy();
    }, ms);
    connection.ping((pingError) => {
      clearTimeout(pingTimer);
      if (!pingError) return callback(null, connection);
      connection.destroy();
      if (!silent) return acquire(pool, ms, lastUsed, callback);
      const message = `The database did not answer a ping within ${ms} ms.`;
      callback(Object.assign(new Error(message), { code: 'ETIMEDOUT' }));
    });
  });
}

/**
 * `EXPLAIN EXTENDED`, one row per table: the rows the top query (`id` 1) returns, as the product of
 * its tables' `rows` × `filtered` % in the join order (MariaDB joins an EXISTS filter's materialized
 * subquery there). Not `FORMAT=JSON`: MariaDB prints conditions into it unescaped (a JSON path's
 * quotes), which is then not JSON. A query with no table (`Impossible WHERE`) returns no rows.
 */
function explainedRows(answer: readonly Row[]): number | undefined {
  let rows: number | undefined;
  for (const step of answer) {
    if (Number(step.id) !== 1) continue;
    if (step.table === null) return 0;
    const tableRows = Number(step.rows);
    if (step.rows === null || !Number.isFinite(tableRows)) return undefined;
    rows = (rows ?? 1) * ((tableRows * Number(step.filtered ?? 100)) / 100);
  }
  return rows;
}

/**
 * The connection that sends KILL QUERY: one per pool, outside it (the pool may be the thing that is
 * exhausted), opened at the first stop and kept, so a stop costs one statement rather than a
 * connection's handshake. `delivered(reached)` once the server answered (`reached` unless it refused,
 * e.g. a thread that has gone), the line failed, or `CANCEL_GRACE_MS` passed (a silent network); a
 * line that failed or went silent is closed and the next stop opens another. Its socket does not keep
 * the process alive.
 */
export class KillLine {
  private line: Connection | undefined;

  constructor(
    private readonly url: string,
    private readonly connectTimeout: number,
  ) {}

  kill(threadId: number | null, delivered: (reached: boolean) => void): void {
    if (threadId === null) {
      delivered(false);
      return;
    }
    const line = this.open();
    let answer: { fatal?: boolean } | null | undefined;
    const finish = onceWithin(CANCEL_GRACE_MS, () => {
      // No answer within the grace, or a broken line: the next stop opens another.
      if (answer === undefined || answer?.fatal) this.drop(line);
      delivered(answer === null);
    });
    line.query('KILL QUERY ?', [threadId], (error) => {
      answer = error ?? null;
      finish();
    });
  }

  end(): void {
    if (this.line) this.drop(this.line);
  }

  private open(): Connection {
    if (this.line) return this.line;
    const line = createConnection({ uri: this.url, connectTimeout: this.connectTimeout });
    // A line the server closed (its wait_timeout, a restart) is replaced at the next stop.
    line.on('error', () => this.forget(line));
    line.on('end', () => this.forget(line));
    socketOf(line).unref();
    this.line = line;
    return line;
  }

  private forget(line: Connection): void {
    if (this.line === line) this.line = undefined;
  }

  private drop(line: Connection): void {
    this.forget(line);
    socketOf(line).destroy();
  }
}

/**
 * MariaDB's answer to KILL QUERY: the statement was interrupted (ER_QUERY_INTERRUPTED), so the kill's
 * flag was taken by it. A statement stopped by the server's own `max_statement_time` answers 1969
 * instead (the service's kill may still be on its way): its connection is closed.
 */
const ER_QUERY_INTERRUPTED = 1317;

/** The pool's connections as a stop reaches them: KILL QUERY on `killer`, then the socket. */
const stoppableConnections = (killer: KillLine): StoppableConnections<PoolConnection> => ({
  cancel: (connection, delivered) => killer.kill(connection.threadId, delivered),
  close: (connection) => socketOf(connection).destroy(),
  release: (connection, keep) => (keep ? connection.release() : connection.destroy()),
  endedOnCancel: (error) => (error as { errno?: number } | undefined)?.errno === ER_QUERY_INTERRUPTED,
});

/** How the service's reads on MariaDB are stopped (`ReadStops`); one per pool. */
export const readStops = (killer: KillLine) => new ReadStops(stoppableConnections(killer));

/** MySQL's syntax error: what `INSERT … RETURNING` gets where only MariaDB has it. */
const ER_PARSE_ERROR = 1064;
/** Whether the server answered an INSERT … RETURNING (MariaDB) — until one refuses it (MySQL). */
let insertReturns = true;

const quoted = (name: string): string => quotedName(name, '`');

/** `'text'` as a literal of a statement's text. */
const literal = (text: string): string => `'${text.replaceAll('\\', '\\\\').replaceAll("'", "''")}'`;

/** A row's image in a trigger's or a statement's text: `json_object('name', <row>.name, …)`. */
const imageText = (row: string, columns: readonly string[]): string =>
  `json_object(${columns.map((column) => `${literal(column)}, ${row}.${quoted(column)}`).join(', ')})`;

/** Three triggers per table (MariaDB has no trigger for several events, nor the whole row as JSON). */
const changeLog: ChangeLogSql = {
  create: (log) => [
    sql.raw(`create table if not exists ${quoted(log)} (
  seq bigint unsigned not null auto_increment primary key,
  table_name varchar(255) not null,
  row_key varchar(1000) not null,
  op char(1) not null,
  before_image longtext,
  after_image longtext,
  recorded_at timestamp(3) not null default current_timestamp(3),
  key ${quoted(`${log}_recorded_at`)} (recorded_at)
) engine = InnoDB`),
  ],
  drop: (log) => [sql.raw(`drop table if exists ${quoted(log)}`)],
  image: (alias, columns) =>
    sql`json_object(${sql.join(columns.flatMap((column) => [sql.lit(column), sql.ref(`${alias}.${column}`)]))})`,
  bound: (image) => sql`${image}`,
  olderThan: (ms) =>
    sql<SqlBool>`recorded_at < current_timestamp(3) - interval ${Math.round(ms * 1000)} microsecond`,
  install: (log, target) =>
    captureOps.flatMap(({ op, event, before, after }) => {
      const name = quoted(triggerName(log, target.table, op));
      const row = after ?? before;
      const key = `concat_ws(',', ${target.key.map((column) => `${row}.${quoted(column)}`).join(', ')})`;
      const image = (side: string | null) => (side ? imageText(side, target.columns) : 'null');
      return [
        sql.raw(`drop trigger if exists ${name}`),
        sql.raw(
          `create trigger ${name} after ${event} on ${quoted(target.table)} for each row insert into ${quoted(log)} (table_name, row_key, op, before_image, after_image) values (${literal(target.table)}, ${key}, '${op}', ${image(before)}, ${image(after)})`,
        ),
      ];
    }),
  remove: (log, { table }) =>
    captureOps.map(({ op }) => sql.raw(`drop trigger if exists ${quoted(triggerName(log, table, op))}`)),
  // JSON_TABLE types each column as the catalog declares it (an ENUM or SET as text, which JSON_TABLE
  // takes and compares the same).
  imageRows: async (db, { table, columns }) => {
    const { rows } = await sql<{ name: string; type: string }>`select column_name as name, column_type as type
      from information_schema.columns where table_schema = database() and table_name = ${table}`.execute(db);
    const types = new Map(
      rows.map((row) => [row.name, /^(enum|set)\(/i.test(row.type) ? 'varchar(1024)' : row.type]),
    );
    const declared = columns.map(
      (column) => `${quoted(column)} ${types.get(column) ?? 'longtext'} path ${literal(`$."${column}"`)}`,
    );
    return (images) =>
      sql`json_table(${images}, '$[*]' columns (n for ordinality, ${sql.raw(declared.join(', '))}))`;
  },
  installed: async (db, log, table) => {
    const { rows } = await sql<{ found: number }>`select 1 as found from information_schema.triggers
      where trigger_schema = database() and trigger_name = ${triggerName(log, table, 'i')}`.execute(db);
    return rows.length > 0;
  },
};

export const mysql: SqlDialect = {
  name: 'mysql',
  label: 'MariaDB/MySQL',
  changeLog,
  connect(url, options) {
    const acquireTimeoutMs = options?.acquireTimeoutMs ?? 3000;
    const pool = createPool({
      uri: url,
      connectionLimit: options?.poolSize ?? 10,
      // A server that accepts TCP but never answers fails the connect instead of hanging it.
      connectTimeout: acquireTimeoutMs,
      // Dates stay text (no process time zone involved); DATETIME values are UTC by convention.
      dateStrings: true,
      timezone: 'Z',
      charset: 'utf8mb4',
      supportBigNumbers: true,
    });
    /** When each pooled connection was last handed back (absent: new, never pinged). */
    const lastUsed = new WeakMap<PoolConnection, number>();
    pool.on('release', (connection) => lastUsed.set(connection, Date.now()));
    const killer = new KillLine(url, acquireTimeoutMs);
    const connections = stoppableConnections(killer);
    /** Kills the statement `connection` runs, then closes its socket: its command fails even if no answer can come. */
    const stopStatement = cancelThenClose(connections);
    const stops = new ReadStops(connections, options?.cancelActsMs);
    pool.on('connection', (connection) => {
      // A connection that breaks while checked out (a cut network, a restart) emits 'error' again after
      // mysql2's pool has removed it; an unheard 'error' would end the process.
      connection.on('error', () => {});
      /**
       * Kysely calls `query(sql, parameters, callback)` and passes no options down: a write's
       * statements take their deadline from `withStatementOptions` here (the service's own reads
       * watch theirs in `run`, outside any such scope).
       */
      const query = connection.query.bind(connection) as (...args: unknown[]) => unknown;
      (connection as unknown as { query: (...args: unknown[]) => unknown }).query = (...args) => {
        const options = currentStatementOptions();
        const callback = args[2];
        if (!options?.timeoutMs || typeof callback !== 'function') return query(...args);
        const watch = watchRun(options, stopStatement, connection as PoolConnection);
        return query(args[0], args[1], (error: unknown, ...rest: unknown[]) => {
          watch.done();
          callback(error ? watch.explain(error) : error, ...rest);
        });
      };
    });
    /** The pool as Kysely sees it: the same bounded checkout, idle ping included. */
    const kyselyPool = {
      getConnection: (callback: (error: unknown, connection: PoolConnection) => void) =>
        acquire(pool, acquireTimeoutMs, lastUsed, (error, connection) =>
          callback(error, connection as PoolConnection),
        ),
      end: (callback: (error: unknown) => void) => {
        killer.end();
        pool.end(callback);
      },
    };
    return {
      db: new Kysely({ dialect: withQuietRollback(new MysqlDialect({ pool: kyselyPool })) }),
      // Callbacks, not async/await: the connection goes back to the pool the moment the answer is in.
      run: (statement, runOptions) =>
        new Promise((resolve, reject) => {
          if (runOptions?.departure?.left) return reject(new QueryCancelled());
          acquire(pool, acquireTimeoutMs, lastUsed, (acquireError, connection) => {
            if (acquireError || !connection) return reject(acquireError);
            // Still waiting for a connection when its client went away: nothing to run.
            if (runOptions?.departure?.left) {
              connection.release();
              return reject(new QueryCancelled());
            }
            const watch = watchRun(runOptions, stops.stop, connection);
            connection.query(statement.sql, statement.parameters as unknown[], (error, rows) => {
              // A failed connection is closed rather than handed to the next request; a stopped one
              // as `ReadStops` decides.
              if (watch.done()) stops.ended(connection, error);
              else if (error) connection.destroy();
              else connection.release();
              if (error) reject(watch.explain(error));
              else resolve(rows as Row[]);
            });
          });
        }),
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
  refusal,
  rowEstimate: { explain: (text) => `explain extended ${text}`, read: explainedRows },
  nullsSortLargest: false,
  bucketBranches: 0,
  topPerParent: rankedTopPerParent,
  rowValueKeyset: false,
  rowLocks: true,
  stopsReads: true,
  // Kysely's MySQL adapter drops RETURNING rows; the driver's insertId is the generated key.
  // MariaDB returns the row's key with RETURNING (10.5+): an AUTO_INCREMENT id and a key its
  // default makes (`DEFAULT uuid()`) alike; LAST_INSERT_ID() would know only the first. Sent as raw
  // SQL: Kysely's MySQL adapter answers an INSERT with its OK packet and drops returned rows. MySQL
  // has no INSERT … RETURNING: its parse error (which fails the statement, not the transaction) turns
  // this process to LAST_INSERT_ID().
  insertRow: async (db, table, values, primaryKey) => {
    if (insertReturns) {
      const insert = db.insertInto(table).values(values).returning(primaryKey).compile();
      try {
        const result = await db.executeQuery<Row>(CompiledQuery.raw(insert.sql, [...insert.parameters]));
        return result.rows[0]?.[primaryKey];
      } catch (error) {
        if ((error as { errno?: unknown }).errno !== ER_PARSE_ERROR) throw error;
        insertReturns = false;
      }
    }
    const inserted = await db.insertInto(table).values(values).executeTakeFirstOrThrow();
    return values[primaryKey] ?? Number(inserted.insertId);
  },
  bindBoolean: (value) => (value ? 1 : 0),
  // DATETIME(3) literal form: MariaDB does not read the trailing `Z`.
  bindDatetime: (iso) => iso.replace('T', ' ').replace('Z', ''),
  nativeDatetimeIsText: false,
  scaledUnits: scaledDecimal,
  kinds: {
    // A bigint bound as a number literal: text would be compared as a double past 2^53.
    bigint: { bind: (value) => BigInt(value as string) },
    // An ENUM sorts by its values' positions, but compares with text alphabetically ('NC-17' < 'R'):
    // a cursor's keyset compares it as one of the values on its side of the cursor's (`enumInOrder`),
    // and where the type is lost (a UNION, MIN and MAX) the position is computed (`enumOrder`).
    enum: { compare: enumInOrder, order: enumOrder },
    // A SET holds a member when FIND_IN_SET finds it (NULL in a NULL column: no match), each member its
    // own test, AND-ed for has_all, OR-ed for has_any.
    set: {
      holds: (column, every, members) =>
        sql<SqlBool>`(${sql.join(
          members.each.map((member) => sql`find_in_set(${member}, ${column}) > 0`),
          sql.raw(every ? ' and ' : ' or '),
        )})`,
    },
    json: { holds: jsonHolds },
  },
};

/** The largest whole DECIMAL: 65 digits. */
const DECIMAL_MAX = sql.raw('9'.repeat(65));

/**
 * A decimal in units of its declared scale as a DECIMAL(65, 0): exact (a signed integer stopped at
 * 2^63 units, silently). A DECIMAL column's units fit, its scale declared as its own; a DOUBLE's (or
 * a column the catalog did not name) may not, and the CAST would cap it without an error: such a
 * value fails the statement instead, by a BIGINT overflow (1690, out-of-range), written with the
 * value's own test so that it is no constant. Only there: the test costs a quarter of the sum's time.
 */
function scaledDecimal(value: Expression<unknown>, declared: KindColumn) {
  const scaled = sql`round(${value} * ${sql.lit(10 ** (declared.scale ?? 0))})`;
  const units = sql`cast(${scaled} as decimal(65, 0))`;
  if (declared.catalogType?.name.toLowerCase() === 'decimal') return units;
  const past = sql`abs(${scaled}) >= ${DECIMAL_MAX}`;
  return sql`case when ${past} then 9223372036854775807 + (${past}) else ${units} end`;
}

/**
 * The declared values of an `enum` column that is an ENUM, in its order (start-up holds them to the
 * catalog's COLUMN_TYPE, src/resource/catalog.ts). A column the catalog says is another type (text
 * declared `enum`) sorts and compares as text: undefined. Without the catalog (`introspect: false`)
 * an `enum` column is taken to be an ENUM.
 */
function enumValues({ values, catalogType }: KindColumn): readonly string[] | undefined {
  if (!values?.length || (catalogType && catalogType.name.toLowerCase() !== 'enum')) return undefined;
  return values;
}

/** Whether a value at position `at` is on `op`'s side of the value at `cursor` (`enumInOrder`). */
const enumSides: Record<OrderOperator, (at: number, cursor: number) => boolean> = {
  '<': (at, cursor) => at < cursor,
  '<=': (at, cursor) => at <= cursor,
  '>': (at, cursor) => at > cursor,
  '>=': (at, cursor) => at >= cursor,
};

/**
 * An ENUM compared in its order: `rating IN (?, ?, ?, ?, ?)`, one parameter per declared value, bound
 * to the value where it is on `op`'s side of the compared one by its declared position and to NULL
 * (which IN never matches) where not. The statement is the same for every value, and the column's
 * index reads it as ranges; `rating > 4` (by position) would follow the order too, but no index range
 * serves an ENUM's inequality, with a number or with text.
 */
function enumInOrder(
  column: Expression<unknown>,
  op: OrderOperator,
  value: (bind: (value: Scalar) => unknown) => unknown,
  declared: KindColumn,
): Expression<SqlBool> | undefined {
  const values = enumValues(declared);
  if (!values) return undefined;
  const side = enumSides[op];
  const members = values.map((member, at) =>
    value((compared) => (side(at, values.indexOf(compared as string)) ? member : null)),
  );
  return sql<SqlBool>`${column} in (${sql.join(members)})`;
}

/**
 * An ENUM's position where its type is lost: `FIELD(x, 'G', 'PG', …)`, NULL for NULL (which MIN and
 * MAX skip and ORDER BY puts first, as everywhere), and `ELT(position, 'G', 'PG', …)` the value back.
 */
function enumOrder(declared: KindColumn): KindOrder | undefined {
  const values = enumValues(declared);
  if (!values) return undefined;
  const list = sql.join(values.map((value) => sql`${value}`));
  return {
    key: (value) => sql`nullif(field(${value}, ${list}), 0)`,
    value: (key) => sql`elt(${key}, ${list})`,
  };
}
