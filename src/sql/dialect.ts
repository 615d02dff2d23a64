import { AsyncLocalStorage } from 'node:async_hooks';
import {
  type AliasedRawBuilder,
  type DatabaseConnection,
  type Dialect,
  type Driver,
  type Expression,
  type Kysely,
  type RawBuilder,
  type SelectQueryBuilder,
  type SqlBool,
  sql,
  type TransactionSettings,
} from 'kysely';
import type { Refusal } from '../errors/refusal.js';
import { type ColumnType, jsonReading, type KindColumn, type Scalar } from '../kinds/index.js';
import type { ChangeLogSql } from './change-log.js';
import type { ValueClass } from './slots.js';

/** Kysely over a schema known only at run time (tables come from resource definitions). */
// biome-ignore lint/suspicious/noExplicitAny: the database schema is described by resource definitions, not by types.
export type DynamicDb = Kysely<any>;

/** A SELECT over such tables. */
// biome-ignore lint/suspicious/noExplicitAny: rows of run-time tables.
export type DynamicSelect = SelectQueryBuilder<any, any, any>;

export type DialectName = 'postgres' | 'mysql' | 'sqlite';

/** SQL text with its parameters, ready to run. */
export interface Statement {
  readonly sql: string;
  readonly parameters: readonly unknown[];
  /**
   * Run often, with values that do not change which plan is best: a key, a page's limit, offset or
   * cursor, never a filter's value. The database may keep one plan for every run (PostgreSQL's named
   * statements, `ConnectOptions.preparedStatements`); for a filter's value a plan made for the value
   * is kept (docs/replicas-pgbouncer-workers.md).
   */
  readonly preparable?: boolean;
}

export type Row = Record<string, unknown>;

/** What a `Departure` tells: a statement's watch. */
export interface DepartureListener {
  departed(): void;
}

/**
 * Tells the statements of one request that its client went away. Not an `AbortSignal`: Node's
 * EventTarget machinery cost a list request several microseconds and a visible share of its garbage
 * collection (docs/benchmarks.md); this is a flag and a short list of listeners, objects rather than
 * callbacks so that watching a statement allocates no closure.
 */
export class Departure {
  private listeners: DepartureListener[] = [];
  left = false;

  leave(): void {
    if (this.left) return;
    this.left = true;
    const listeners = this.listeners;
    this.listeners = [];
    for (const listener of listeners) listener.departed();
  }

  on(listener: DepartureListener): void {
    this.listeners.push(listener);
  }

  off(listener: DepartureListener): void {
    const at = this.listeners.indexOf(listener);
    if (at !== -1) this.listeners.splice(at, 1);
  }
}

/** How long a read may run, and the departure of the client that asked for it. */
export interface RunOptions {
  readonly timeoutMs?: number;
  readonly departure?: Departure;
}

/** A read stopped by the database's own cancel mechanism because it ran past `RunOptions.timeoutMs`. */
export class QueryTimeout extends Error {
  override name = 'QueryTimeout';
  constructor(readonly ms: number) {
    super(`The query took longer than ${ms} ms.`);
  }
}

/** A read stopped because the client that asked for it went away (`RunOptions.departure`). */
export class QueryCancelled extends Error {
  override name = 'QueryCancelled';
  constructor() {
    super('The client went away; the query was cancelled.');
  }
}

/**
 * The deadline and the client's departure around one statement: `stop(target)` is called once, on
 * whichever comes first. It asks the database to stop the statement (PostgreSQL's cancel request,
 * MariaDB's KILL QUERY) and closes the connection (`cancelThenClose`), so the statement's callback
 * comes back even when the database cannot be reached to be told. `done()` ends the watch and tells
 * whether it stopped the statement: that connection is then not reused, except where a dialect knows
 * no cancel is left for it (the reads, `ReadStops`). A class with the stop's
 * target as an argument: every read makes one, and closures per read showed in profiles.
 */
class StatementWatch<T> implements DepartureListener {
  private reason: 'timeout' | 'abort' | undefined;
  private readonly timer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly options: RunOptions | undefined,
    private readonly stop: (target: T) => void,
    private readonly target: T,
  ) {
    const ms = options?.timeoutMs;
    this.timer = ms ? setTimeout(expire, ms, this) : undefined;
    options?.departure?.on(this);
  }

  fire(why: 'timeout' | 'abort'): void {
    if (this.reason) return;
    this.reason = why;
    this.stop(this.target);
  }

  departed(): void {
    this.fire('abort');
  }

  explain(error: unknown): unknown {
    if (this.reason === 'timeout') return new QueryTimeout(this.options?.timeoutMs ?? 0);
    return this.reason === 'abort' ? new QueryCancelled() : error;
  }

  done(): boolean {
    clearTimeout(this.timer);
    this.options?.departure?.off(this);
    return this.reason !== undefined;
  }
}

const expire = (watch: { fire(why: 'timeout'): void }) => watch.fire('timeout');

export function watchRun<T>(
  options: RunOptions | undefined,
  stop: (target: T) => void,
  target: T,
): { explain(error: unknown): unknown; done(): boolean } {
  return new StatementWatch(options, stop, target);
}

/**
 * How long a stopped statement's connection is kept open for the database's cancel to arrive first.
 * Closing at once could overtake the cancel: PgBouncer drops a cancel whose client has gone, and the
 * statement would run on. A database that cannot be reached never confirms, so the close comes anyway.
 */
export const CANCEL_GRACE_MS = 1000;

/**
 * How a write's statement is stopped (`watchRun`'s `stop`): `cancel` asks the database over a
 * connection of its own and calls back once the request was delivered (or failed); then, or after
 * `CANCEL_GRACE_MS` at the latest, `close` destroys the statement's own connection, which fails the
 * statement in the driver — the bound that holds when the network is silent — and rolls its
 * transaction back. The same two steps as a read's stop (`ReadStops`), without keeping the connection.
 */
export const cancelThenClose =
  <C>(connections: Pick<StoppableConnections<C>, 'cancel' | 'close'>) =>
  (connection: C): void =>
    connections.cancel(
      connection,
      onceWithin(CANCEL_GRACE_MS, () => connections.close(connection)),
    );

/**
 * How long after its cancel was delivered a read's statement may take to end on it and keep its
 * connection (`ReadStops`). A database acts on a cancel at its next interrupt check: within
 * milliseconds for most plans (PostgreSQL's benchmark EXISTS count stopped 2 ms after its deadline),
 * seconds for some. Past this the connection is closed, so a stopped request's answer waits at most
 * this much longer than it would with the connection closed at once.
 */
export const CANCEL_ACTS_MS = 100;

/** What `ReadStops` needs of a dialect's pooled connections. */
export interface StoppableConnections<C> {
  /** Asks the database, on a connection of its own, to stop the statement `connection` runs; `delivered` once. */
  cancel(connection: C, delivered: (reached: boolean) => void): void;
  /** Destroys the connection's socket: its statement fails in the driver even if no answer can come. */
  close(connection: C): void;
  /** Hands the connection back to the pool (`keep`), or closes it out of the pool. */
  release(connection: C, keep: boolean): void;
  /** Whether the statement failed because the database took this cancel (nothing is left of it). */
  endedOnCancel(error: unknown): boolean;
}

/** One stop of a read: whether its cancel was delivered, and its connection if held until then. */
interface Stopping<C> {
  delivered?: boolean;
  held?: C;
}

/**
 * How the service's reads are stopped: the database's cancel, and the connection kept when no cancel
 * can be left for its next statement — a client that goes away costs its statement, not a connection
 * (a new connection is a handshake in the service and, on PostgreSQL, a backend that plans and reads
 * with cold caches: a benchmark round that opened ten lost a quarter to a third of its requests,
 * docs/benchmarks.md). That is when the statement ended on the cancel (the database took it), or
 * finished before it and the cancel was then delivered (an idle connection ignores it: verified on
 * each engine, docs/faults-and-deadlines.md; the connection waits out of the pool until then, at most
 * `CANCEL_GRACE_MS`). The socket is closed when the cancel could not be delivered, when the statement
 * failed otherwise, or when it has not ended `actsMs` (default `CANCEL_ACTS_MS`) after the cancel was
 * delivered. `ended` takes the connection from the statement's callback and releases it; each stop is a token of its
 * own, so a late delivery never touches a connection that has since gone back to the pool. Writes do
 * not come here: a stopped write's connection is closed, which is what rolls its transaction back.
 */
export class ReadStops<C extends object> {
  private readonly stopping = new WeakMap<C, Stopping<C>>();

  constructor(
    private readonly connections: StoppableConnections<C>,
    private readonly actsMs: number = CANCEL_ACTS_MS,
  ) {}

  readonly stop = (connection: C): void => {
    const entry: Stopping<C> = {};
    this.stopping.set(connection, entry);
    const current = () => this.stopping.get(connection) === entry;
    this.connections.cancel(connection, (reached) => {
      if (!current()) return;
      entry.delivered = reached;
      if (entry.held) {
        this.stopping.delete(connection);
        return this.connections.release(entry.held, reached);
      }
      if (!reached) return this.connections.close(connection);
      setTimeout(() => current() && this.connections.close(connection), this.actsMs);
    });
  };

  /** Releases a stopped statement's connection to the pool, closed or not by how the statement ended. */
  ended(connection: C, error: unknown): void {
    const entry = this.stopping.get(connection);
    if (entry && !error && entry.delivered === undefined) {
      // Finished before the cancel was delivered: the cancel may still come. Held until it has.
      entry.held = connection;
      return;
    }
    this.stopping.delete(connection);
    const keep = this.connections.endedOnCancel(error) || (!error && entry?.delivered === true);
    this.connections.release(connection, keep);
  }
}

/**
 * `action`, run once: when the returned function is first called, or after `ms` if it is not called
 * by then (a peer that never answers). Bounds each step of stopping a statement.
 */
export function onceWithin(ms: number, action: () => void): () => void {
  let done = false;
  const run = () => {
    if (done) return;
    done = true;
    clearTimeout(timer);
    action();
  };
  const timer = setTimeout(run, ms);
  return run;
}

/**
 * The deadline of the statements a write runs through Kysely (which passes no options to the driver):
 * set around the write's transaction, read by each dialect's connection when a statement starts.
 */
const statementOptions = new AsyncLocalStorage<RunOptions>();

/** Runs `work` with `options` governing every statement it sends through Kysely. */
export function withStatementOptions<T>(options: RunOptions, work: () => Promise<T>): Promise<T> {
  return statementOptions.run(options, work);
}

/** The options set by `withStatementOptions` around the current statement, if any. */
export function currentStatementOptions(): RunOptions | undefined {
  return statementOptions.getStore();
}

/**
 * Kysely's dialect with a rollback that cannot replace the error it follows. A rollback fails only when
 * the connection is gone (a cut network, a statement stopped by its deadline): the database then
 * discards the transaction with the connection, the drivers never reuse a broken connection, and what
 * the client must hear is why the transaction failed — not "Client … is not queryable" from the
 * rollback, which Kysely would otherwise throw in its place.
 */
export function withQuietRollback(dialect: Dialect): Dialect {
  return {
    createAdapter: () => dialect.createAdapter(),
    createQueryCompiler: () => dialect.createQueryCompiler(),
    createIntrospector: (db) => dialect.createIntrospector(db),
    createDriver: () => new QuietRollbackDriver(dialect.createDriver()),
  };
}

class QuietRollbackDriver implements Driver {
  savepoint?: Driver['savepoint'];
  rollbackToSavepoint?: Driver['rollbackToSavepoint'];
  releaseSavepoint?: Driver['releaseSavepoint'];
  constructor(private readonly inner: Driver) {
    // Savepoints (controlled transactions in a configuration's `setup`) pass through as they are.
    this.savepoint = inner.savepoint?.bind(inner);
    this.rollbackToSavepoint = inner.rollbackToSavepoint?.bind(inner);
    this.releaseSavepoint = inner.releaseSavepoint?.bind(inner);
  }
  init(): Promise<void> {
    return this.inner.init();
  }
  acquireConnection(): Promise<DatabaseConnection> {
    return this.inner.acquireConnection();
  }
  beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    return this.inner.beginTransaction(connection, settings);
  }
  commitTransaction(connection: DatabaseConnection): Promise<void> {
    return this.inner.commitTransaction(connection);
  }
  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    await this.inner.rollbackTransaction(connection).catch(() => {});
  }
  releaseConnection(connection: DatabaseConnection): Promise<void> {
    return this.inner.releaseConnection(connection);
  }
  destroy(): Promise<void> {
    return this.inner.destroy();
  }
}

/** An open database: Kysely for building (and for writes), `run` for the statements of list requests. */
export interface Opened {
  db: DynamicDb;
  /**
   * Runs a read and returns its rows straight through the driver's pool: Kysely's executor adds a
   * dozen promise hops per query, a noticeable share of a list request (docs/benchmarks.md). Past
   * `timeoutMs`, or when the client departs, the database is told to stop the statement.
   */
  run(statement: Statement, options?: RunOptions): Promise<Row[]>;
  /**
   * The rows of a read at once, where the engine reads on the calling thread and nothing holds the
   * connection (SQLite's reads run to their end synchronously): a cheap request then answers without a
   * promise at each step (docs/benchmarks.md). `undefined` when the read must wait its turn — take
   * `run`. A refusal of the database is thrown. Absent where every read waits for an answer.
   */
  runNow?(statement: Statement): Row[] | undefined;
}

export interface ConnectOptions {
  /**
   * Largest number of pooled connections (PostgreSQL, MariaDB; default 10). SQLite has one connection.
   * The CLI reads it from `DATABASE_POOL_SIZE`.
   */
  poolSize?: number;
  /**
   * SQLite: how long a statement waits for a lock another connection holds before the database is
   * reported unavailable (503). Default 5000 ms.
   */
  busyTimeoutMs?: number;
  /**
   * PostgreSQL, MariaDB: how long a request waits for a pooled connection (the pool exhausted, or a
   * database that takes connections but never answers) before it is answered 503. Default 3000 ms.
   */
  acquireTimeoutMs?: number;
  /**
   * PostgreSQL, MariaDB: how long after its cancel was delivered a stopped read's statement may take to
   * end on it and keep its connection; past it the connection is closed (docs/faults-and-deadlines.md).
   * Default `CANCEL_ACTS_MS` (100 ms).
   */
  cancelActsMs?: number;
  /**
   * PostgreSQL: send the reads whose best plan no value changes (`Statement.preparable`) as named
   * prepared statements, parsed once per connection (default true).
   * Through a pooler that does not keep them (PgBouncer before 1.21 in transaction mode) the first
   * statement refused for it is sent again unnamed, and the pool names none from then on; `false` skips
   * even that. The CLI reads it from `DATABASE_PREPARED_STATEMENTS`.
   */
  preparedStatements?: boolean;
}

/**
 * Everything that differs between the databases, in one object per database. The compiler asks these
 * functions and never tests which database it is talking to.
 */
export interface SqlDialect {
  readonly name: DialectName;
  /** The engine's name in messages (`SQLite`, `PostgreSQL`, `MariaDB/MySQL`). */
  readonly label: string;
  /** Opens a connection (pool) for a `DATABASE_URL`. */
  connect(url: string, options?: ConnectOptions): Opened;
  /** The change log of live streams: its table, a row's image, the triggers that record other writers. */
  readonly changeLog: ChangeLogSql;

  /**
   * Pattern match for the textual operators: ILIKE on PostgreSQL, LIKE elsewhere. `pattern` is
   * already escaped with `likeEscapeChar` and bound as a parameter.
   */
  like(target: Expression<unknown>, pattern: unknown): RawBuilder<SqlBool>;
  /** The textual operators on text extracted from JSON (MariaDB compares those case-sensitively). */
  jsonLike(target: Expression<unknown>, pattern: unknown): RawBuilder<SqlBool>;

  /**
   * The value at `path` as text, whatever its JSON type: cheaper than `jsonString` (one path lookup, no
   * type test), and equivalent for equality with a value that is neither numeric nor true/false.
   */
  jsonText(column: Expression<unknown>, path: readonly string[]): RawBuilder<unknown>;
  /** The value at `path` when it is a JSON string, else NULL. */
  jsonString(column: Expression<unknown>, path: readonly string[]): RawBuilder<unknown>;
  /** The value at `path` as a SQL number when it is a JSON number, else NULL. */
  jsonNumber(column: Expression<unknown>, path: readonly string[]): RawBuilder<unknown>;
  /** `'true'` or `'false'` when the value at `path` is a JSON boolean, else NULL. */
  jsonBoolean(column: Expression<unknown>, path: readonly string[]): RawBuilder<unknown>;
  /** True when `path` is missing or holds JSON null. */
  jsonIsNull(column: Expression<unknown>, path: readonly string[]): RawBuilder<SqlBool>;

  /**
   * PostgreSQL sorts NULL as the largest value; MariaDB and SQLite as the smallest. The service uses
   * the latter everywhere, so on dialects where this is true a nullable column's order gets explicit
   * NULLS FIRST/LAST (a NOT NULL column's never does: that form no ordinary index serves).
   */
  readonly nullsSortLargest: boolean;
  /**
   * An aggregate grouped by date buckets alone, over at most this many buckets, reads each bucket's
   * range in a UNION ALL branch of its own rather than numbering every row with a CASE and grouping
   * (`ListCompiler.bucketedQuery`); 0 where the CASE is the faster (measured, docs/benchmarks.md).
   */
  readonly bucketBranches: number;
  /**
   * Keyset conditions over NOT NULL columns of one direction as one row-value comparison,
   * `(created_at, id) < ($1, $2)`: PostgreSQL turns it into an index range. MariaDB reads the whole
   * index for it, so elsewhere the condition is expanded with a leading range term (FIELD-NOTES).
   */
  readonly rowValueKeyset: boolean;
  /**
   * A bound value written so that the planner does not read it: for the values the service decides
   * itself (a page's LIMIT and OFFSET, a cursor's sort values, the parents' keys of an include), whose
   * plan is the same whatever they are. SQLite's planner reads the value bound to a bare `?` where it
   * could choose by it, and then prepares the statement again each time a value is bound to it: at
   * every run (docs/performance.md, Prepared shapes). Without it, the value as it is. Filter values stay
   * readable: their plan may rightly depend on them.
   */
  readonly unplanned?: (value: unknown) => Expression<unknown>;
  /**
   * `SELECT … FOR UPDATE` locks the row read until the transaction ends (PostgreSQL, MariaDB). SQLite
   * has no such clause and needs none: its writes are serialized by the database's one writer.
   */
  readonly rowLocks: boolean;
  /**
   * A read in progress can be stopped (a cancel request, KILL QUERY), so the client's departure is
   * watched. SQLite's reads run synchronously to their end: there, nothing watches for it.
   */
  readonly stopsReads: boolean;
  /** Inserts one row and gives its primary key (RETURNING where the engine's driver returns it). */
  insertRow(
    db: DynamicDb,
    table: string,
    values: Record<string, unknown>,
    primaryKey: string,
  ): Promise<unknown>;

  /**
   * The meaning of an error the driver threw, or undefined for one that is not a refusal of the
   * database (a fault of the service). `db` serves look-ups the error message leaves out (MariaDB names
   * a unique index, not its columns); `table` is the table written, when there is one.
   */
  refusal(error: unknown, db: DynamicDb, table?: string): Promise<Refusal | undefined>;

  /**
   * The planner's estimate of how many rows a statement returns, where the engine has one: `explain`
   * wraps the statement's SQL in the engine's EXPLAIN (its parameters stay bound, unchanged), `read`
   * takes the estimate from EXPLAIN's answer (undefined when it cannot). Absent (SQLite, whose EXPLAIN
   * gives no row counts): totals are always counted exactly (docs/count-strategies.md).
   */
  readonly rowEstimate?: RowEstimate;

  /**
   * Each parent's first `limit` related rows, and how many match, in one statement (a constrained
   * include, src/sql/related.ts): PostgreSQL joins the parents' keys to a LATERAL sub-select with
   * ORDER BY … LIMIT; the others rank the matching rows' keys with window functions and read only
   * the survivors' rows (`rankedTopPerParent`).
   */
  topPerParent(parts: TopPerParent): DynamicSelect;

  /** Parameter forms of typed values, as each database stores them. */
  bindBoolean(value: boolean): unknown;
  /** `iso` is a UTC instant as `YYYY-MM-DDTHH:MM:SS.sssZ`. */
  bindDatetime(iso: string): string;
  /**
   * The engine has no datetime type: a `native` datetime column holds `YYYY-MM-DD HH:MM:SS[.ffffff]`
   * text (SQLite's `CURRENT_TIMESTAMP` form), compared as ranges (src/sql/datetime-storage.ts).
   */
  readonly nativeDatetimeIsText: boolean;
  /** What this engine does differently for a column kind (src/kinds/ holds what every engine shares). */
  readonly kinds: Partial<Record<ColumnType, KindSql>>;
  /**
   * A decimal as a whole number of units of its declared scale (`round(x * 100)`): what an exact sum
   * adds up, since SQLite holds decimals as doubles and the engines' own decimal sums and averages
   * round differently. Exact where the engine's arithmetic is (PostgreSQL's numeric, MariaDB's DECIMAL
   * to 65 digits); where it is not (SQLite's 64-bit integers, MariaDB's DECIMAL past 65 digits) a value
   * past it fails the statement with a refusal `out-of-range`, as SQLite's SUM does past 2^63: never a
   * capped figure.
   */
  scaledUnits(value: Expression<unknown>, declared: KindColumn): RawBuilder<unknown>;
  /**
   * A whole number the statement computes (a sum), selected so that the driver reads it exactly;
   * absent where it already does (a numeric or a DECIMAL read as text, a bigint as a number only
   * while it is exact).
   */
  exactWhole?(value: Expression<unknown>): RawBuilder<unknown>;
}

/** A kind's order as an engine must be told it (`KindSql.order`). */
export interface KindOrder {
  key(value: Expression<unknown>): RawBuilder<unknown>;
  value(key: Expression<unknown>): RawBuilder<unknown>;
}

/** The order comparisons of a keyset condition (`KindSql.compare`). */
export type OrderOperator = '<' | '<=' | '>' | '>=';

/** One engine's difference for one column kind. */
export interface KindSql {
  /** A coerced value (a filter's, a record key, a written value) → the parameter bound for it. */
  readonly bind?: (value: Scalar) => unknown;
  /**
   * The column compared in order with a bound value (a cursor's keyset condition), where the engine's
   * own `<`/`>` with that value would not follow its ORDER BY of the column: MariaDB sorts an ENUM by
   * its values' declared positions but compares it with text alphabetically. `value(bind)` is the
   * compared value as one more parameter, turned by `bind`; `declared` the column's declaration.
   * Undefined (or absent): the plain `column op value`.
   */
  readonly compare?: (
    column: Expression<unknown>,
    op: OrderOperator,
    value: (bind: (value: Scalar) => unknown) => unknown,
    declared: KindColumn,
  ) => Expression<SqlBool> | undefined;
  /**
   * The kind's order where the engine loses it away from the column: MariaDB types a UNION's ENUM
   * column as text (a branched keyset page orders its union by it) and takes an ENUM's MIN and MAX
   * alphabetically where no index gives them. `key(value)` sorts in the kind's order, `value(key)` is
   * the value again (of MIN or MAX of keys). Undefined (or absent): the engine's order of the value.
   */
  readonly order?: (declared: KindColumn) => KindOrder | undefined;
  /**
   * The column as selected, when the engine's own output is not what the kind reads (undefined: as
   * it is). `declared` is the column's declaration (`big`, …).
   */
  readonly select?: (column: RawBuilder<unknown>, declared: KindColumn) => RawBuilder<unknown> | undefined;
  /**
   * Containment on a collection column (`has_all`, `has_any`): whether `column` holds every one of the
   * members (`every`) or at least one of them; NULL holds nothing. Absent where the engine has no such
   * column: PostgreSQL has arrays, MariaDB SETs, and every engine JSON arrays (a JSON column holding
   * anything but an array holds nothing, and never fails the statement). A column of a collection kind
   * declared on an engine whose dialect has no `holds` for it is refused at start-up (`unheldColumns`,
   * src/sql/operators.ts).
   */
  readonly holds?: (
    column: Expression<unknown>,
    every: boolean,
    members: Members,
    declared: Pick<KindColumn, 'catalogType'>,
  ) => RawBuilder<SqlBool>;
}

/** A containment filter's members as parameters: one each, or all of them as one array. */
export interface Members {
  /** Each member as its own parameter, bound as the kind binds a value. */
  readonly each: readonly unknown[];
  /** All of them as one parameter: the list of their bound values. */
  readonly all: unknown;
  /**
   * Each member's value class (src/sql/slots.ts): what a statement may be shaped by, never a member's
   * value. A JSON array's member is `text` when it also reads as a number or true/false (`jsonReading`,
   * src/kinds/json.ts), `plain-text` when it is only a string (`jsonMembers`).
   */
  readonly classes: readonly ValueClass[];
  /** Member `i` as one more parameter, turned by `bind` (a JSON text of it, its number…). */
  one(i: number, bind: (member: Scalar) => unknown): unknown;
  /** The members at positions `at` as one parameter, turned by `bind` from their list. */
  some(at: readonly number[], bind: (members: Scalar[]) => unknown): unknown;
}

/**
 * A JSON array filter's members by what they match (`jsonReading`): `plain`, the positions of those that
 * match only a JSON string; `typed`, of those that also match a number or a boolean.
 */
export function jsonMembers(members: Members): { plain: number[]; typed: number[] } {
  const plain: number[] = [];
  const typed: number[] = [];
  for (const [i, cls] of members.classes.entries()) (cls === 'plain-text' ? plain : typed).push(i);
  return { plain, typed };
}

/**
 * Containment in a JSON array where the engine tests whether a document contains a JSON value
 * (PostgreSQL's `@>`, MariaDB's JSON_CONTAINS): `contains(parameter)` is that test, with the JSON text
 * `wrap` makes of one value (`["a"]` for `@>`, `"a"` itself for JSON_CONTAINS) bound as the parameter.
 * A member's forms are the JSON string of its text and, for a typed member, the value it reads as
 * (`jsonReading`: `1`, `true`). has_all is one test of every plain member's string at once (a JSON
 * array: each of its elements in the document's), AND-ed with each typed member's two forms OR-ed;
 * has_any the OR of every form.
 */
export function containsJson(
  members: Members,
  every: boolean,
  contains: (parameter: unknown) => RawBuilder<SqlBool>,
  wrap: (json: string) => string,
): RawBuilder<SqlBool> {
  const form = (i: number, json: (text: string) => string) =>
    contains(members.one(i, (member) => wrap(json(String(member)))));
  const asString = (i: number) => form(i, (text) => JSON.stringify(text));
  const asRead = (i: number) => form(i, (text) => jsonReading(text)?.json ?? JSON.stringify(text));
  const eitherForm = (i: number) => sql<SqlBool>`(${asString(i)} or ${asRead(i)})`;
  const { plain, typed } = jsonMembers(members);
  const terms = every
    ? [
        ...(plain.length > 0
          ? [contains(members.some(plain, (texts) => JSON.stringify(texts.map(String))))]
          : []),
        ...typed.map(eitherForm),
      ]
    : [...plain.map(asString), ...typed.map(eitherForm)];
  return sql<SqlBool>`(${sql.join(terms, sql.raw(every ? ' and ' : ' or '))})`;
}

/**
 * What a read of each parent's first related rows is made of; the dialect arranges the parts. Its rows
 * carry the selected columns, `__parent_key` and `__total` (the parent's matching rows before the
 * limit), each parent's rows together and in order.
 */
export interface TopPerParent {
  readonly db: DynamicDb;
  /** The related table and its key columns (a ranked read joins back on them). */
  readonly table: string;
  readonly keyColumns: readonly string[];
  /** At most this many rows per parent: a bound parameter. */
  readonly limit: unknown;
  /**
   * FROM the related table as `alias` (through the pivot, as `<alias>_p`) WHERE it matches: its scope,
   * soft deletes, the include's filter, and its link among the parents' keys, or equal to `parent`.
   */
  matching(alias: string, parent?: Expression<unknown>): DynamicSelect;
  /** The column under a `matching` alias that holds the parent's key. */
  link(alias: string): string;
  /** The ORDER BY terms under `alias` (NULL placed as everywhere; the key last: a total order). */
  order(alias: string): RawBuilder<unknown>[];
  /** The columns answered, under `alias`. */
  selection(alias: string): AliasedRawBuilder<unknown, string>[];
  /** The parents' distinct keys, as rows of `__parent_key`, read from the parents' own table. */
  parents(): DynamicSelect;
}

/**
 * `topPerParent` where there is no LATERAL (SQLite, MariaDB): the matching rows' keys only are ranked
 * per parent (`ROW_NUMBER()` and `COUNT(*)` over the link), and the full rows are read for the ranks
 * within the limit alone — never every related row to keep a few.
 */
export function rankedTopPerParent(parts: TopPerParent): DynamicSelect {
  const link = sql.ref(parts.link('k'));
  const order = sql.join(parts.order('k'));
  const ranked = parts
    .matching('k')
    .select([
      link.as('__parent_key'),
      ...parts.keyColumns.map((column, i) => sql.ref(`k.${column}`).as(`__key${i}`)),
      sql`row_number() over (partition by ${link} order by ${order})`.as('__rank'),
      sql`count(*) over (partition by ${link})`.as('__total'),
    ]);
  return parts.db
    .selectFrom(ranked.as('ranked'))
    .innerJoin(`${parts.table} as r`, (join) =>
      parts.keyColumns.reduce((on, column, i) => on.onRef(`r.${column}`, '=', `ranked.__key${i}`), join),
    )
    .select(parts.selection('r'))
    .select(['ranked.__parent_key', 'ranked.__total'])
    .where('ranked.__rank', '<=', parts.limit)
    .orderBy('ranked.__parent_key')
    .orderBy('ranked.__rank');
}

/** See `SqlDialect.rowEstimate`. */
export interface RowEstimate {
  explain(sql: string): string;
  read(answer: readonly Row[]): number | undefined;
}

/** Network failures of the drivers: the database cannot be reached (or went away mid-query). */
export const networkErrorCodes = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'ENOTFOUND',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EPIPE',
  'EAI_AGAIN',
]);

/** Not a backslash: inside a MariaDB string literal a backslash is itself an escape. */
export const likeEscapeChar = '!';

/** Escapes the LIKE wildcards (and the escape character) in a client's value. */
export function escapeLike(value: string): string {
  return value.replace(/[!%_]/g, (c) => `!${c}`);
}

/** `$."a"."b"`: the JSONPath of MariaDB and SQLite. Keys are restricted to word characters upstream. */
export function jsonPathString(path: readonly string[]): string {
  return `$${path.map((key) => `."${key}"`).join('')}`;
}

/**
 * `insertRow` for engines whose driver returns RETURNING rows (PostgreSQL, SQLite). Kysely writes
 * `() values ()` for an empty row, which both refuse: that one is `DEFAULT VALUES`.
 */
export async function insertReturning(
  db: DynamicDb,
  table: string,
  values: Record<string, unknown>,
  primaryKey: string,
): Promise<unknown> {
  if (Object.keys(values).length > 0)
    return (await db.insertInto(table).values(values).returning(primaryKey).executeTakeFirstOrThrow())[
      primaryKey
    ];
  const inserted = await sql<
    Record<string, unknown>
  >`insert into ${sql.table(table)} default values returning ${sql.ref(primaryKey)}`.execute(db);
  return inserted.rows[0]?.[primaryKey];
}

/** A value the planner is not to read, in the dialect's way (`SqlDialect.unplanned`). */
export function unplannedValue<T>(dialect: SqlDialect, value: T): T | Expression<T> {
  return dialect.unplanned ? (dialect.unplanned(value) as Expression<T>) : value;
}

/** Values the planner is not to read; the same array where the dialect writes them as they are. */
export function unplannedValues<T>(
  dialect: SqlDialect,
  values: readonly T[],
): readonly (T | Expression<T>)[] {
  const { unplanned } = dialect;
  return unplanned ? values.map((value) => unplanned(value) as Expression<T>) : values;
}
