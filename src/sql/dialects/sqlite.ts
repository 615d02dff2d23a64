import Database from 'better-sqlite3';
import {
  CompiledQuery,
  type DatabaseConnection,
  type Driver,
  type Expression,
  Kysely,
  type RawBuilder,
  type SqlBool,
  SqliteDialect,
  SqliteDriver,
  sql,
} from 'kysely';
import type { Refusal } from '../../errors/refusal.js';
import { jsonReading } from '../../kinds/index.js';
import { BoundedMap } from '../../plan/bounded-map.js';
import { type ChangeLogSql, captureOps, quotedName, sqlText, triggerName } from '../change-log.js';
import {
  insertReturning,
  jsonMembers,
  jsonPathString,
  type Members,
  type Row,
  rankedTopPerParent,
  type SqlDialect,
  type Statement,
} from '../dialect.js';
import { objectMaker } from '../object-maker.js';
import { spaceText } from '../storage.js';

const extract = (column: unknown, path: readonly string[]) =>
  sql`json_extract(${column}, ${jsonPathString(path)})`;
const typeIn = (column: unknown, path: readonly string[], types: string[]) =>
  sql`json_type(${column}, ${jsonPathString(path)}) in (${sql.join(types.map((t) => sql.lit(t)))})`;

/**
 * Containment in a JSON array: EXISTS over the array's elements (`json_each`), an element matching a
 * member as the string of its text (`type = 'text'`), or for a typed member (jsonReading) as a number
 * equal to it (integer or real) or as its boolean (`type` is `true` or `false`), each form a parameter
 * of its own (NULL where the member has no such form). has_all is one EXISTS per member, AND-ed;
 * has_any one EXISTS over them all. json_each fails on text that is no JSON and walks an object's
 * values or yields a scalar itself, so it is given the column only when it is valid JSON and an array
 * (CASE evaluates its branch only when its test holds), else NULL, which has no elements. No index
 * serves it.
 */
function jsonHolds(column: Expression<unknown>, every: boolean, members: Members): RawBuilder<SqlBool> {
  const array = sql`case when json_valid(${column}) then case when json_type(${column}) = 'array' then ${column} end end`;
  const exists = (match: RawBuilder<SqlBool>) =>
    sql<SqlBool>`exists (select 1 from json_each(${array}) where ${match})`;
  const asString = (i: number) => members.one(i, (member) => String(member));
  const asNumber = (i: number) =>
    members.one(i, (member) => {
      const reading = jsonReading(String(member));
      return reading?.type === 'number' && Number.isFinite(reading.number) ? reading.number : null;
    });
  const asBoolean = (i: number) =>
    members.one(i, (member) => {
      const reading = jsonReading(String(member));
      return reading?.type === 'boolean' ? reading.json : null;
    });
  const { typed } = jsonMembers(members);
  const list = (at: readonly number[], form: (i: number) => unknown) => sql.join(at.map(form));
  const matches = (all: readonly number[], some: readonly number[]) =>
    sql<SqlBool>`(type = 'text' and value in (${list(all, asString)}))${
      some.length > 0
        ? sql` or (type in ('integer', 'real') and value in (${list(some, asNumber)})) or type in (${list(some, asBoolean)})`
        : sql``
    }`;
  const all = members.classes.map((_, i) => i);
  if (!every) return exists(matches(all, typed));
  const each = all.map((i) => exists(matches([i], typed.includes(i) ? [i] : [])));
  return sql<SqlBool>`(${sql.join(each, sql.raw(' and '))})`;
}

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
  // SUM past 2^63 (an aggregate's sum of a decimal in units of its scale): a value out of what SQLite holds.
  if (code === 'SQLITE_ERROR' && message === 'integer overflow') return { kind: 'out-of-range', columns: [] };
  // A path inside a column declared json whose text is no JSON (json_extract): as PostgreSQL's cast of
  // such text refuses it, a value the database cannot compare (422), never a server error.
  if (code === 'SQLITE_ERROR' && message === 'malformed JSON') return { kind: 'invalid', columns: [] };
  const kind = constraints[code];
  if (!kind) return undefined;
  // "UNIQUE constraint failed: users.email, users.x", "NOT NULL constraint failed: users.name"
  const list = /constraint failed: (.+)$/.exec(message)?.[1] ?? '';
  const columns = /^\w+\.\w+(, \w+\.\w+)*$/.test(list)
    ? list.split(', ').map((name) => name.split('.')[1] as string)
    : [];
  return { kind, columns };
}

/**
 * Kysely's SQLite driver, counting who holds or waits for the one connection. Kysely serializes the
 * connection with a mutex (a transaction holds it across awaits); while nobody holds or waits for it,
 * a read that runs synchronously cannot land inside anyone's transaction, so it need not queue.
 */
class CountedDriver extends SqliteDriver {
  /** Holders and waiters of the connection. */
  users = 0;

  constructor(private readonly database: Database.Database) {
    super({ database });
  }
  override async acquireConnection(): Promise<DatabaseConnection> {
    this.users++;
    try {
      return await super.acquireConnection();
    } catch (error) {
      this.users--;
      throw error;
    }
  }
  /**
   * `BEGIN IMMEDIATE`, not Kysely's plain `BEGIN`: a plain one takes the write lock only at its first
   * write, and in WAL mode that upgrade fails at once ("database is locked") when another process
   * committed in between — the busy timeout is not consulted. Every transaction here writes, so taking
   * the lock at the start makes writers of several processes (`--workers`) wait their turn instead.
   */
  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin immediate'));
  }
  override releaseConnection(): Promise<void> {
    this.users--;
    return super.releaseConnection();
  }
  override async destroy(): Promise<void> {
    await super.destroy();
    // Kysely's driver closes only a database it was initialised with: reads alone never initialise it.
    if (this.database.open) this.database.close();
  }
}

class CountedSqliteDialect extends SqliteDialect {
  readonly driver: CountedDriver;
  constructor(database: Database.Database) {
    super({ database });
    this.driver = new CountedDriver(database);
  }
  override createDriver(): Driver {
    return this.driver;
  }
}

/** Statements kept prepared per connection (their SQL comes from cached plans, so the set is small). */
const MAX_PREPARED = 500;

/**
 * The service's reads, prepared once per SQL text and run in raw mode. Kysely prepares every statement
 * on every call (a fifth of a cheap list's time), and better-sqlite3 builds row objects property by
 * property from C++, which costs more than reading arrays and naming their cells here.
 */
function preparedReads(database: Database.Database): (statement: Statement) => Row[] {
  const prepared = new BoundedMap<string, { statement: Database.Statement; row: (cells: unknown) => Row }>(
    MAX_PREPARED,
  );
  return ({ sql: text, parameters }) => {
    let entry = prepared.get(text);
    if (!entry) {
      const statement = database.prepare(text);
      if (!statement.reader) {
        statement.run(parameters);
        return [];
      }
      entry = {
        statement: statement.raw(true),
        row: objectMaker(statement.columns().map((column, i) => ({ key: column.name, from: i }))),
      };
      prepared.set(text, entry);
    }
    const { statement, row } = entry;
    return (statement.all(parameters) as unknown[][]).map(row);
  };
}

const quoted = (name: string): string => quotedName(name, '"');

const literal = sqlText;

/** Three triggers per table (SQLite has no trigger for several events, nor the whole row as JSON). */
const changeLog: ChangeLogSql = {
  create: (log) => [
    // AUTOINCREMENT: a sequence number is never given twice, even after the largest rows are pruned.
    sql.raw(`create table if not exists ${quoted(log)} (
  seq integer primary key autoincrement,
  table_name text not null,
  row_key text not null,
  op text not null,
  before_image text,
  after_image text,
  recorded_at text not null default (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
)`),
    sql.raw(`create index if not exists ${quoted(`${log}_recorded_at`)} on ${quoted(log)} (recorded_at)`),
  ],
  drop: (log) => [sql.raw(`drop table if exists ${quoted(log)}`)],
  image: (alias, columns) =>
    sql`json_object(${sql.join(columns.flatMap((column) => [sql.lit(column), sql.ref(`${alias}.${column}`)]))})`,
  bound: (image) => sql`${image}`,
  olderThan: (ms) =>
    sql<SqlBool>`recorded_at < strftime('%Y-%m-%dT%H:%M:%fZ', 'now', ${`-${(ms / 1000).toFixed(3)} seconds`})`,
  install: (log, target) =>
    captureOps.flatMap(({ op, event, before, after }) => {
      const name = quoted(triggerName(log, target.table, op));
      const row = after ?? before;
      const key = target.key.map((column) => `${row}.${quoted(column)}`).join(` || ',' || `);
      const image = (side: string | null) =>
        side
          ? `json_object(${target.columns.map((column) => `${literal(column)}, ${side}.${quoted(column)}`).join(', ')})`
          : 'null';
      return [
        sql.raw(`drop trigger if exists ${name}`),
        sql.raw(
          `create trigger ${name} after ${event} on ${quoted(target.table)} for each row begin insert into ${quoted(log)} (table_name, row_key, op, before_image, after_image) values (${literal(target.table)}, ${key}, '${op}', ${image(before)}, ${image(after)}); end`,
        ),
      ];
    }),
  remove: (log, { table }) =>
    captureOps.map(({ op }) => sql.raw(`drop trigger if exists ${quoted(triggerName(log, table, op))}`)),
  // SQLite's values carry their own types: json_extract gives each back as the table holds it.
  imageRows:
    async (_db, { columns }) =>
    (images) =>
      sql`(select image.key + 1 as n, ${sql.join(
        columns.map((column) => sql`json_extract(image.value, ${`$."${column}"`}) as ${sql.id(column)}`),
      )} from json_each(${images}) as image)`,
  installed: async (db, log, table) => {
    const { rows } = await sql<{ found: number }>`select 1 as found from sqlite_master
      where type = 'trigger' and name = ${triggerName(log, table, 'i')}`.execute(db);
    return rows.length > 0;
  },
};

export const sqlite: SqlDialect = {
  name: 'sqlite',
  label: 'SQLite',
  changeLog,
  connect(url, options) {
    const database = new Database(sqliteFilename(url), { timeout: options?.busyTimeoutMs ?? 5000 });
    database.pragma('journal_mode = WAL');
    database.pragma('foreign_keys = ON');
    const dialect = new CountedSqliteDialect(database);
    const db = new Kysely({ dialect });
    const read = preparedReads(database);
    // A read never runs inside another request's open transaction: with the connection free it runs
    // now, to its end, synchronously; otherwise it takes its turn through Kysely's mutex.
    const runNow = (statement: Statement) => (dialect.driver.users ? undefined : read(statement));
    return {
      db,
      run: (statement) => {
        try {
          const rows = runNow(statement);
          if (rows) return Promise.resolve(rows);
        } catch (error) {
          return Promise.reject(error);
        }
        return db.connection().execute(async () => read(statement));
      },
      runNow,
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
  bucketBranches: 64,
  topPerParent: rankedTopPerParent,
  rowValueKeyset: false,
  // `+?` is the same value as `?`, with no affinity either, but the planner never reads it: a
  // statement whose plan read a bound `?` is prepared again at every run (docs/performance.md,
  // Prepared shapes).
  unplanned: (value) => sql`+${value}`,
  rowLocks: false,
  stopsReads: false,
  insertRow: insertReturning,
  bindBoolean: (value) => (value ? 1 : 0),
  bindDatetime: (iso) => spaceText(iso),
  nativeDatetimeIsText: true,
  // CAST to integer saturates at ±2^63 without a word: a value past it fails as SUM's overflow does
  // ('integer overflow'), by abs() of the smallest integer (written with the value's own test, so that
  // it is no constant SQLite could evaluate once for the statement, whatever the rows).
  scaledUnits: (value, { scale = 0 }) => {
    const scaled = sql`round(${value} * ${sql.lit(10 ** scale)})`;
    const past = sql`abs(${scaled}) >= 9223372036854775808.0`;
    return sql`case when ${past} then abs(-9223372036854775807 - (${past})) else cast(${scaled} as integer) end`;
  },
  // better-sqlite3 reads an integer as a double (past 2^53 rounded); as text it stays exact.
  exactWhole: (value) => sql`cast(${value} as text)`,
  kinds: {
    // better-sqlite3 reads an integer as a double (past 2^53 rounded); as text it stays exact.
    bigint: { select: (column) => sql`cast(${column} as text)` },
    integer: { select: (column, declared) => (declared.big ? sql`cast(${column} as text)` : undefined) },
    json: { holds: jsonHolds },
  },
};
