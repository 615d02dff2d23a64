import { hash } from 'node:crypto';
import { Kysely, PostgresDialect, type RawBuilder, type SqlBool, sql } from 'kysely';
import pg from 'pg';
import type { Refusal } from '../../errors/refusal.js';
import { type ChangeLogSql, quotedName, sqlText } from '../change-log.js';
import {
  CANCEL_GRACE_MS,
  cancelThenClose,
  containsJson,
  currentStatementOptions,
  type DynamicSelect,
  insertReturning,
  type Members,
  networkErrorCodes,
  onceWithin,
  QueryCancelled,
  ReadStops,
  type Row,
  type RunOptions,
  type SqlDialect,
  type Statement,
  type StoppableConnections,
  type TopPerParent,
  watchRun,
  withQuietRollback,
} from '../dialect.js';

// Dates and timestamps are read as text so that no value passes through the process time zone and
// microseconds survive; int8 (count(*)) is read as a number while it is exact, else kept as its text.
const TEXT_OIDS = new Set([1082, 1114, 1184]);
const INT8_OID = 20;

const asText = (value: string): string => value;
const int8 = (value: string): number | string => {
  const number = Number(value);
  return Number.isSafeInteger(number) ? number : value;
};

// pg asks for every column's parser on every statement: the parsers are made once.
function typeParser(oid: number, format?: string): (value: string) => unknown {
  if (TEXT_OIDS.has(oid)) return asText;
  if (oid === INT8_OID) return int8;
  return pg.types.getTypeParser(oid, format as 'text');
}

/** What the cancel request uses of pg's internal connection (the one pg's own `Client#cancel` uses). */
interface CancelConnection {
  on(event: 'error' | 'connect' | 'end', listener: () => void): void;
  connect(port: number | string, host?: string): void;
  cancel(processID: number, secretKey: number): void;
  stream: { destroy(): void };
}

/** The parts of pg's client this file reaches past its typings: its socket and its cancel keys. */
interface ClientInternals {
  connection: { stream: { destroy(): void } };
  processID: number;
  secretKey: number;
  host: string;
  port: number;
}

/**
 * The protocol's cancel request for the statement `client` is running, on a connection of its own: it
 * also passes through PgBouncer. What pg's `Client#cancel` sends, without its look at `activeQuery`
 * (deprecated in pg 8.2x). `delivered` is called once the server closed the request's connection (it
 * acted on it: `reached`), or it failed, or `CANCEL_GRACE_MS` passed (a silent network).
 */
function sendCancel(client: pg.Client, delivered: (reached: boolean) => void): void {
  const { processID, secretKey, host, port } = client as unknown as ClientInternals;
  const { connection } = new pg.Client({ host, port }) as unknown as { connection: CancelConnection };
  let reached = false;
  const finish = onceWithin(CANCEL_GRACE_MS, () => {
    connection.stream.destroy();
    delivered(reached);
  });
  connection.on('error', finish);
  connection.on('end', () => {
    reached = true;
    finish();
  });
  connection.on('connect', () => connection.cancel(processID, secretKey));
  if (host.startsWith('/')) connection.connect(`${host}/.s.PGSQL.${port}`);
  else connection.connect(port, host);
}

const closeSocket = (client: pg.Client) => (client as unknown as ClientInternals).connection.stream.destroy();

/** How a statement on a client is stopped: the protocol's cancel request, then the socket. */
const clientStops: Pick<StoppableConnections<pg.Client>, 'cancel' | 'close'> = {
  cancel: sendCancel,
  close: closeSocket,
};

/** Cancels the statement `client` runs, then closes its socket: its query fails even if no answer can come. */
const stopStatement = cancelThenClose(clientStops);

/**
 * PostgreSQL's answer to a cancel request: the statement stopped, and the backend took the request's
 * signal, so none is left to stop the connection's next statement. A statement stopped by the server's
 * own `statement_timeout` has the same code and other words (and the service's request may still be on
 * its way); so has a message in another language (`lc_messages`): both connections are closed.
 */
const stoppedOnRequest = (error: unknown) => {
  const { code, message } = (error ?? {}) as { code?: string; message?: string };
  return code === '57014' && /due to user request/.test(message ?? '');
};

/** The pool's clients as `ReadStops` stops them: the protocol's cancel request, then the socket. */
const stoppableClients: StoppableConnections<pg.PoolClient> = {
  ...clientStops,
  release: (client, keep) => client.release(keep ? undefined : true),
  endedOnCancel: stoppedOnRequest,
};

/** How the service's reads on PostgreSQL are stopped (`ReadStops`); one per pool. */
export const readStops = (actsMs?: number) => new ReadStops(stoppableClients, actsMs);

/**
 * Sends `TimeZone=UTC` as a startup parameter of its own rather than inside `options`
 * (`-c TimeZone=UTC`): PgBouncer refuses `options` (or drops it when told to ignore it), but tracks
 * TimeZone per client and sets it on whichever server connection runs that client's transaction, so
 * the setting holds under transaction pooling, where a session `SET` would leak to other clients.
 * pg only sends the parameters it knows of; `getStartupConf` is where it lists them.
 *
 * Its promise-form `query` (the one Kysely calls for writes) also holds the statement to the deadline
 * set around the write (`withStatementOptions`): Kysely passes no options down to the driver.
 */
class UtcClient extends pg.Client {
  getStartupConf(): Record<string, string> {
    const inherited = (pg.Client.prototype as unknown as { getStartupConf(): Record<string, string> })
      .getStartupConf;
    return { ...inherited.call(this), TimeZone: 'UTC' };
  }

  // biome-ignore lint/suspicious/noExplicitAny: pg's query has a dozen overloads; this passes them through.
  override query(...args: any[]): any {
    // biome-ignore lint/suspicious/noExplicitAny: as above.
    const run = () => (super.query as (...a: any[]) => any).apply(this, args);
    // The service's own reads (`run`, which submits a Query; the idle check's callback form) watch
    // their statements themselves.
    if (typeof args[args.length - 1] === 'function' || typeof args[0]?.submit === 'function') return run();
    const options = currentStatementOptions();
    if (!options?.timeoutMs) return run();
    const watch = watchRun(options, stopStatement, this);
    return (run() as Promise<unknown>).then(
      (result) => {
        watch.done();
        return result;
      },
      (error: unknown) => {
        watch.done();
        throw watch.explain(error);
      },
    );
  }
}

/**
 * A pooled connection unused for this long is checked with `select 1` before it serves a request. A
 * network that went silent, or a server that vanished without a reset, leaves idle connections that
 * look open: without the check the next request would wait on one until its deadline. Connections in
 * steady use are not checked (HikariCP's rule, and the benchmark's connections never are).
 */
const IDLE_CHECK_MS = 1000;

/**
 * pg-pool's `connect` with the idle check: a connection that fails it is closed and another taken; one
 * that does not answer within `pingMs` is closed and the request refused (the database is not answering).
 */
function checkout(
  pool: pg.Pool,
  lastUsed: WeakMap<pg.PoolClient, number>,
  pingMs: number,
  callback: (error: Error | undefined, client?: pg.PoolClient) => void,
): void {
  pool.connect((connectError, client, release) => {
    if (connectError || !client) return callback(connectError ?? new Error('No database connection.'));
    const since = lastUsed.get(client);
    if (since === undefined || Date.now() - since < IDLE_CHECK_MS) return callback(undefined, client);
    let late = false;
    const timer = setTimeout(() => {
      late = true;
      (client as unknown as ClientInternals).connection.stream.destroy();
    }, pingMs);
    // The callback form: a write's deadline (UtcClient#query) does not apply to the check.
    client.query('select 1', (error: Error | null) => {
      clearTimeout(timer);
      if (!error) return callback(undefined, client);
      release(true);
      if (late) {
        const silent = `The database did not answer a check within ${pingMs} ms.`;
        return callback(Object.assign(new Error(silent), { code: 'ETIMEDOUT' }));
      }
      checkout(pool, lastUsed, pingMs, callback);
    });
  });
}

/**
 * Reads whose best plan no value changes (`Statement.preparable`: read-one, unfiltered pages and
 * counts) go to PostgreSQL as named prepared statements: each connection parses one once, and then
 * only binds and executes it, which takes the parse (and, once PostgreSQL settles on a generic plan,
 * the planning) off every cheap request — the database's CPU on the same cores as the service's
 * (docs/benchmarks.md). A filtered read stays unnamed: a generic plan made without its values can be
 * far slower for them. A name is the digest of the text, so one name means one text in every process
 * of the service: a pooler that hands a statement to another client's server connection can only run
 * the same SQL. At most `NAMED_STATEMENTS_MAX` texts get names (the first ones met, usually a
 * service's every shape), so no connection holds more; later ones are sent unnamed.
 */
const NAMED_STATEMENTS_MAX = 256;

/**
 * SQLSTATEs of a named statement the server connection does not keep: a pooler in transaction mode
 * that hands each statement to any server connection (PgBouncer before 1.21, or without
 * `max_prepared_statements`) answers 26000 (does not exist) or 42P05 (already exists).
 */
const NOT_KEPT = new Set(['26000', '42P05']);

/** 0A000 on a statement prepared before its table changed the type of a column it reads. */
const staleStatement = (error: { code?: string; message?: string }) =>
  error.code === '0A000' && /cached plan must not change result type/.test(error.message ?? '');

/** The names of one pool's statements, and whether its connections keep them. */
class StatementNames {
  private readonly names = new Map<string, string>();
  constructor(public kept: boolean) {}

  of(text: string): string | undefined {
    if (!this.kept) return undefined;
    const known = this.names.get(text);
    if (known !== undefined || this.names.size >= NAMED_STATEMENTS_MAX) return known;
    const name = `rqs_${hash('sha1', text, 'base64url')}`;
    this.names.set(text, name);
    return name;
  }
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

/**
 * Containment in a JSON array (json, jsonb, or text holding JSON, as jsonb): `@>` with a jsonb array of
 * each form of a member (`["a"]`; a typed member's `["1"]` or `[1]`: `containsJson`), which is false on
 * an object, a scalar and NULL alike, never an error, and compares numbers as numbers (`[1.0]` holds
 * `[1]`). A GIN index on a jsonb column (or on `(column::jsonb)` for json) serves each `@>`, AND-ed and
 * OR-ed as bitmaps. `?|` would have served has_any of strings alone, but it matches an object's keys
 * and a string scalar too.
 */
const jsonHolds = (column: unknown, every: boolean, members: Members): RawBuilder<SqlBool> =>
  containsJson(
    members,
    every,
    (array) => sql<SqlBool>`${jsonb(column)} @> ${array}::jsonb`,
    (json) => `[${json}]`,
  );

/**
 * SQLSTATE → refusal. Class 08 (connection), 57P01–57P03 (shutdown, cannot connect now), 53300 (too
 * many connections), 3D000 (no such database), 28 (authentication) and the transient refusals below all
 * mean: not available now.
 */
function refusal(error: unknown): Refusal | undefined {
  const {
    code = '',
    detail = '',
    column,
    message = '',
  } = error as {
    code?: string;
    detail?: string;
    column?: string;
    message?: string;
  };
  // 40001/40P01/55P03 (serialization failure or a replica's recovery conflict, deadlock, lock not
  // available): the same request may well succeed when tried again.
  if (networkErrorCodes.has(code) || /^(08|57P0[123]|53300|3D000|28|40001|40P01|55P03)/.test(code))
    return { kind: 'unavailable' };
  // pg's own words when the server closes the connection, a connect attempt times out, or a client whose
  // connection broke is asked for more.
  if (!code && /Connection terminated|timeout exceeded when trying to connect|not queryable/i.test(message))
    return { kind: 'unavailable' };
  // `Key (email)=(…) already exists.`, `Key (department_id)=(99) is not present in table …`
  const keyColumns = /^Key \(([^)]*)\)=/.exec(detail)?.[1]?.split(', ') ?? [];
  const kinds: Record<string, Exclude<Refusal['kind'], 'unavailable'>> = {
    '23505': 'unique',
    '23503': 'foreign-key',
    '23502': 'not-null',
    '23514': 'check',
    '22001': 'too-long',
    '22003': 'out-of-range',
    '22P02': 'invalid',
    '22007': 'invalid',
    '22008': 'invalid',
  };
  const kind = kinds[code];
  if (!kind) return undefined;
  return { kind, columns: code === '23502' && column ? [column] : keyColumns };
}

/** `EXPLAIN (FORMAT JSON)`: one row whose `QUERY PLAN` pg has parsed; the top node's `Plan Rows`. */
function planRows(answer: readonly Row[]): number | undefined {
  const plan = answer[0]?.['QUERY PLAN'] as { Plan?: { 'Plan Rows'?: unknown } }[] | undefined;
  const rows = plan?.[0]?.Plan?.['Plan Rows'];
  return typeof rows === 'number' && Number.isFinite(rows) ? rows : undefined;
}

/**
 * `topPerParent` with LATERAL: for each parent key, its count (a LATERAL count(*), read once per
 * parent) and its first rows (a LATERAL sub-select with ORDER BY … LIMIT, which an index on the link
 * and the sort columns answers by reading those rows alone). The count is not a window over the
 * limited sub-select: that would read every matching row in full to keep a few.
 */
function lateralTopPerParent(parts: TopPerParent): DynamicSelect {
  const parent = sql.ref('k.__parent_key');
  const order = parts.order('r');
  const top = order
    .reduce(
      (query, term) => query.orderBy(term),
      parts
        .matching('r', parent)
        .select(parts.selection('r'))
        .select(sql`row_number() over (order by ${sql.join(order)})`.as('__rank')),
    )
    .limit(sql<number>`${parts.limit}`);
  const total = parts.matching('c', parent).select((eb) => eb.fn.countAll().as('__total'));
  return parts.db
    .selectFrom(parts.parents().as('k'))
    .innerJoinLateral(total.as('c'), (join) => join.onTrue())
    .innerJoinLateral(top.as('top'), (join) => join.onTrue())
    .selectAll('top')
    .select(['k.__parent_key', 'c.__total'])
    .orderBy('k.__parent_key')
    .orderBy('top.__rank');
}

const quoted = (name: string): string => quotedName(name, '"');

const literal = sqlText;

/**
 * One trigger function records every table's changes: `to_jsonb` takes the whole row, so the table's
 * name and key columns are its only arguments (`tg_argv`), and a column added later is in the images.
 */
const changeLog: ChangeLogSql = {
  create: (log) => [
    sql.raw(`create table if not exists ${quoted(log)} (
  seq bigint generated always as identity primary key,
  table_name text not null,
  row_key text not null,
  op char(1) not null,
  before_image jsonb,
  after_image jsonb,
  recorded_at timestamptz not null default now()
)`),
    sql.raw(`create index if not exists ${quoted(`${log}_recorded_at`)} on ${quoted(log)} (recorded_at)`),
    sql.raw(`create or replace function ${quoted(`${log}_capture`)}() returns trigger language plpgsql as $capture$
declare
  before_row jsonb := case when tg_op <> 'INSERT' then to_jsonb(old) end;
  after_row jsonb := case when tg_op <> 'DELETE' then to_jsonb(new) end;
begin
  insert into ${quoted(log)} (table_name, row_key, op, before_image, after_image)
  select tg_argv[0], string_agg(coalesce(after_row, before_row) ->> k, ',' order by n),
    lower(left(tg_op, 1)), before_row, after_row
  from unnest(tg_argv[1:]) with ordinality as key_columns(k, n);
  return null;
end
$capture$`),
  ],
  drop: (log) => [
    sql.raw(`drop table if exists ${quoted(log)}`),
    sql.raw(`drop function if exists ${quoted(`${log}_capture`)}() cascade`),
  ],
  image: (alias) => sql`to_jsonb(${sql.table(alias)})`,
  bound: (image) => sql`cast(${image} as jsonb)`,
  olderThan: (ms) => sql<SqlBool>`recorded_at < now() - make_interval(secs => ${ms / 1000})`,
  install: (log, { table, key }) => [
    sql.raw(`drop trigger if exists ${quoted(`${log}_capture`)} on ${quoted(table)}`),
    sql.raw(
      `create trigger ${quoted(`${log}_capture`)} after insert or update or delete on ${quoted(table)} for each row execute function ${quoted(`${log}_capture`)}(${[table, ...key].map(literal).join(', ')})`,
    ),
  ],
  remove: (log, { table }) => [
    sql.raw(`drop trigger if exists ${quoted(`${log}_capture`)} on ${quoted(table)}`),
  ],
  // The table's own row type fills each image: every column typed as stored.
  imageRows:
    async (_db, { table }) =>
    (images) =>
      sql`(select image.n, r.* from jsonb_array_elements(cast(${images} as jsonb)) with ordinality as image(value, n)
      cross join lateral jsonb_populate_record(null::${sql.raw(quoted(table))}, image.value) as r)`,
  installed: async (db, log, table) => {
    const { rows } = await sql<{ found: number }>`select 1 as found from pg_trigger
      where tgname = ${`${log}_capture`} and tgrelid = to_regclass(${quoted(table)})`.execute(db);
    return rows.length > 0;
  },
};

export const postgres: SqlDialect = {
  name: 'postgres',
  label: 'PostgreSQL',
  changeLog,
  connect(url, options) {
    const acquireTimeoutMs = options?.acquireTimeoutMs ?? 3000;
    const pool = new pg.Pool({
      connectionString: url,
      max: options?.poolSize ?? 10,
      // Bounds both the wait for a free pooled client and the connect of a new one (a database that
      // accepts TCP but never answers): past it, pg-pool fails the request instead of queueing it.
      connectionTimeoutMillis: acquireTimeoutMs,
      // Off in pg by default: lets the kernel notice a peer that vanished without a reset.
      keepAlive: true,
      Client: UtcClient,
      types: { getTypeParser: typeParser as typeof pg.types.getTypeParser },
    });
    const names = new StatementNames(options?.preparedStatements ?? true);
    const stops = readStops(options?.cancelActsMs);
    /** When each pooled client last finished a request (absent: new, never checked). */
    const lastUsed = new WeakMap<pg.PoolClient, number>();
    pool.on('release', (_error, client) => lastUsed.set(client, Date.now()));
    // An idle pooled connection that the server closes (restart, failover, a dropped database) emits
    // 'error' on the pool; without a listener that would crash the process. pg-pool discards the client
    // and the next query opens a new one, so there is nothing more to do here.
    pool.on('error', () => {});
    // The same for a client that is checked out when its connection ends (a cut network, a restart):
    // pg emits 'error' on the client as well as failing its query, and an unheard 'error' ends the process.
    pool.on('connect', (client) => client.on('error', () => {}));
    /** One read on a pooled connection, under `name` when it has one; sent again unnamed once if refused for it. */
    const send = (
      statement: Statement,
      runOptions: RunOptions | undefined,
      name: string | undefined,
      resolve: (rows: Row[]) => void,
      reject: (error: unknown) => void,
    ): void => {
      if (runOptions?.departure?.left) {
        reject(new QueryCancelled());
        return;
      }
      checkout(pool, lastUsed, acquireTimeoutMs, (connectError, client) => {
        if (connectError || !client) return reject(connectError);
        // Still waiting for a connection when its client went away: nothing to run.
        if (runOptions?.departure?.left) {
          client.release();
          return reject(new QueryCancelled());
        }
        const watch = watchRun(runOptions, stops.stop, client);
        const query = new pg.Query(
          statement.sql,
          statement.parameters as unknown[],
          (error: (Error & { code?: string }) | undefined, result) => {
            // A connection that failed is closed rather than handed to the next request (with it go
            // the statements it had prepared); a stopped one as `ReadStops` decides.
            const stopped = watch.done();
            if (stopped) stops.ended(client, error);
            else client.release(error ? true : undefined);
            if (!error) return resolve(result.rows);
            // A read is safe to send again. Statements the connections do not keep are not named
            // again by this pool; a stale one went with its connection.
            const notKept = NOT_KEPT.has(error.code ?? '');
            if (name && !stopped && (notKept || staleStatement(error))) {
              if (notKept) names.kept = false;
              return send(statement, runOptions, undefined, resolve, reject);
            }
            reject(watch.explain(error));
          },
        );
        // Named after it is made: given a config object, pg copies it through property descriptors,
        // about 2 µs of a page under load (docs/benchmarks.md); given the text, it copies nothing.
        if (name) (query as unknown as { name: string }).name = name;
        client.query(query);
      });
    };
    /** The pool as Kysely sees it: the same checkout, idle check included. */
    const kyselyPool = {
      connect: () =>
        new Promise<pg.PoolClient>((resolve, reject) =>
          checkout(pool, lastUsed, acquireTimeoutMs, (error, client) =>
            error || !client ? reject(error) : resolve(client),
          ),
        ),
      end: () => pool.end(),
    };
    return {
      db: new Kysely({ dialect: withQuietRollback(new PostgresDialect({ pool: kyselyPool })) }),
      // Callbacks, not async/await: the connection goes back to the pool the moment the answer is in,
      // as in pg's own `pool.query`; awaiting first cost the benchmark's fast queries ~10 %.
      run: (statement, runOptions) =>
        new Promise((resolve, reject) =>
          send(
            statement,
            runOptions,
            statement.preparable ? names.of(statement.sql) : undefined,
            resolve,
            reject,
          ),
        ),
    };
  },
  // As text: an enum, a uuid or an address has no ILIKE of its own, and char(n) padding is cut off.
  like: (target, pattern) => sql`${target}::text ilike ${pattern} escape '!'`,
  jsonLike: (target, pattern) => sql`${target} ilike ${pattern} escape '!'`,
  jsonText: (column, path) => textAt(column, path),
  jsonString: (column, path) =>
    sql`case when ${typeIs(column, path, 'string')} then ${textAt(column, path)} end`,
  jsonNumber: (column, path) =>
    sql`case when ${typeIs(column, path, 'number')} then (${textAt(column, path)})::numeric end`,
  jsonBoolean: (column, path) =>
    sql`case when ${typeIs(column, path, 'boolean')} then ${textAt(column, path)} end`,
  jsonIsNull: (column, path) => sql`${textAt(column, path)} is null`,
  refusal: async (error) => refusal(error),
  // EXPLAIN takes the statement's own bind parameters: the estimate is for this request's values.
  rowEstimate: { explain: (text) => `explain (format json) ${text}`, read: planRows },
  nullsSortLargest: true,
  bucketBranches: 0,
  topPerParent: lateralTopPerParent,
  rowValueKeyset: true,
  rowLocks: true,
  stopsReads: true,
  insertRow: insertReturning,
  bindBoolean: (value) => value,
  bindDatetime: (iso) => iso,
  nativeDatetimeIsText: false,
  // numeric: exact at any size (a bigint stopped at 2^63 units; its sum is as fast).
  scaledUnits: (value, { scale = 0 }) => sql`cast(round(${value} * ${sql.lit(10 ** scale)}) as numeric)`,
  kinds: {
    // money prints in the session's currency format (`$1,234.50`); numeric is the number.
    money: { select: (column) => sql`${column}::numeric` },
    // `@>` (contains) and `&&` (overlaps), the members bound as one array cast to the column's own
    // type (`_int4`, `_mood`: an enum's array takes no `text[]`), which a GIN index on the column
    // serves. Without the catalog (introspect: false) the parameter is left untyped: PostgreSQL then
    // gives it the column's type from the operator.
    array: {
      holds: (column, every, members, { catalogType }) => {
        const type =
          catalogType === undefined
            ? undefined
            : catalogType.schema === undefined
              ? sql.id(catalogType.name)
              : sql.id(catalogType.schema, catalogType.name);
        return sql<SqlBool>`${column} ${sql.raw(every ? '@>' : '&&')} ${type ? sql`${members.all}::${type}` : members.all}`;
      },
    },
    json: { holds: jsonHolds },
  },
};
