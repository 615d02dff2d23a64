import { ErrorBag } from '../errors/error-bag.js';
import { RequestError } from '../errors/request-error.js';
import { loadIncludes } from '../load/includes.js';
import { rowReader } from '../load/row-reader.js';
import { authorize } from '../plan/authorize.js';
import { BoundedMap } from '../plan/bounded-map.js';
import { checkCursorValues, decodeCursor, encodeCursor } from '../plan/cursor.js';
import { type CompiledEndpoint, defaultsFor } from '../plan/endpoint.js';
import type { CursorValue, FieldTarget, FilterNode, ListPlan, PageMode, Scalar } from '../plan/list-plan.js';
import { coerceForColumn } from '../plan/values.js';
import { decodeQueryComponent } from '../request/decode.js';
import type { FieldInput } from '../request/list-request.js';
import { parseListQuery } from '../request/parse.js';
import type { ResourceRecord } from '../resource/policy.js';
import { type ResolvedColumn, reachesScope } from '../resource/registry.js';
import {
  boundedEstimate,
  lengthAwarePage,
  type PageTotal,
  totalShownByPage,
} from '../respond/length-aware.js';
import { cursorPage, simplePage } from '../respond/simple-and-cursor.js';
import type { Connection, ReadOptions } from '../sql/connect.js';
import { Departure, type Row, type RunOptions, type Statement } from '../sql/dialect.js';
import { PreparedQueries } from '../sql/prepared.js';
import { type ClientSignal, JSON_TYPE, json, type ServiceResponse } from './exchange.js';

/** Rows fetched per query when all=true streams an unlimited result. */
const STREAM_BATCH = 1000;
/**
 * A page after a cursor has a query string no other request repeats: keeping its plan would only fill
 * the old generation of the heap (measured: the moving-cursor benchmark 0.99 → 0.90 when kept).
 */
const continuesCursor = (plan: ListPlan): boolean =>
  plan.mode.kind === 'cursor' && plan.mode.cursor !== undefined;

/** `cursor=<value>` cut out of a query string that has it once, as is (still encoded), and the rest. */
function withoutCursor(rawQuery: string): { rest: string; cursor: string } | undefined {
  const parts = rawQuery.split('&');
  const at = parts.findIndex((part) => part.startsWith('cursor='));
  if (at < 0 || parts.findIndex((part, i) => i > at && part.startsWith('cursor=')) >= 0) return undefined;
  const cursor = (parts[at] as string).slice('cursor='.length);
  parts.splice(at, 1);
  return { rest: parts.join('&'), cursor };
}

/** Plans kept per endpoint, and the longest query string whose plan is kept (bounds the memory). */
const MAX_CACHED_PLANS = 500;
const MAX_CACHED_QUERY = 1024;

/** One list request as the core hands it over. */
export interface ListCall {
  /** The query string, undecoded. */
  readonly rawQuery: string;
  /** The list's absolute URL without the query: the base of page links. */
  readonly url: string;
  readonly ctx: unknown;
  readonly signal?: ClientSignal;
  /** Read from the primary, not a replica (the client wants to see its own writes). */
  readonly primary?: boolean;
}

/** One read-one request: the record's id as the path gave it, and the query string. */
export interface OneCall {
  readonly id: string;
  readonly rawQuery: string;
  readonly ctx: unknown;
  readonly signal?: ClientSignal;
  readonly primary?: boolean;
}

/** A record read through the list's pipeline: its answer (transformed) and its stored form (for its ETag). */
export interface OneRecord {
  readonly answer: unknown;
  readonly stored: ResourceRecord;
}

/** Parameters a read-one request may carry: the rest shape lists only. */
const oneParams = new Set(['include', 'count']);
/** The end of every refusal of a list-only parameter on a read-one request: it names what is used. */
const ONE_ONLY = 'not used when reading one record (include, count and filter[trashed] are).';

/**
 * The handlers of `GET <prefix>/<endpoint>` (parse → authorize → compile → execute → load → shape) and
 * of `GET <prefix>/<endpoint>/:id`, which is the same pipeline with the primary key as the one filter.
 */
export function listHandlers(
  endpoint: CompiledEndpoint,
  connection: Connection,
): {
  list: (call: ListCall) => Promise<ServiceResponse>;
  one: (call: OneCall) => Promise<OneRecord | undefined>;
} {
  const read = rowReader(endpoint.resource);
  const queries = new PreparedQueries(connection.db, connection.dialect, endpoint.policy, endpoint.resource);
  const respond = endpoint.policy.response;
  const transform = (records: ResourceRecord[], ctx: unknown): unknown[] =>
    respond ? records.map((record) => respond(record, ctx)) : records;
  const contextual = endpoint.contextDefaults.length > 0;
  // The plan of a query string is a pure function of it and the endpoint's policy, and immutable:
  // the same URL requested again (a list's first page, a polled view) skips parse and authorize.
  // Only authorized plans are kept; a refused query is checked anew each time.
  const plans = new BoundedMap<string, ListPlan>(MAX_CACHED_PLANS);

  /** Rows → records with counts and includes, then through the transformer. */
  async function shape(plan: ListPlan, rows: Row[], ctx: unknown, options: RunOptions): Promise<unknown[]> {
    const records = rows.map((row) => {
      const record = read(row);
      for (const relation of plan.counts) {
        const name = `${relation.name}_count`;
        record[name] = Number(row[name]);
      }
      return record;
    });
    if (plan.includes.length > 0) await loadIncludes(connection, plan.includes, records, ctx, options);
    return transform(records, ctx);
  }

  const strategy = endpoint.total;
  // Without a planner estimate (SQLite) every strategy but 'none' counts exactly, and says so. So does
  // an endpoint whose rows a scope or a baseQuery narrows: the planner estimates from statistics of the
  // whole table, every tenant's rows included, and an estimate would let one tenant observe another's.
  const estimates =
    connection.dialect.rowEstimate !== undefined &&
    endpoint.policy.baseQuery === undefined &&
    !reachesScope(endpoint.resource);
  const countOf = (rows: Row[]) => Number(rows[0]?.total ?? 0);

  /**
   * A length-aware page's rows and what it says of the total, by the endpoint's `total` strategy.
   * Past 'exact', the page is read with one row more: the rows then prove whether a next page exists,
   * and the total when the page is the last, so an estimate never contradicts the rows known to exist
   * (docs/count-strategies.md).
   */
  async function countedPage(
    plan: ListPlan,
    mode: { readonly page: number; readonly perPage: number },
    ctx: unknown,
    run: (statement: Statement) => Promise<Row[]>,
  ): Promise<{ rows: Row[]; total: PageTotal }> {
    const offset = (mode.page - 1) * mode.perPage;
    if (strategy === 'exact' || (strategy !== 'none' && !estimates)) {
      const [countRows, rows] = await Promise.all([
        run(queries.count(plan, ctx)),
        run(queries.rows(plan, { limit: mode.perPage, offset }, ctx)),
      ]);
      const value = countOf(countRows);
      return { rows, total: strategy === 'exact' ? { value } : { value, isEstimate: false } };
    }
    const probe = run(queries.rows(plan, { limit: mode.perPage + 1, offset }, ctx));
    const bound = typeof strategy === 'object' ? strategy.exactUpTo : undefined;
    const [fetched, bounded] = await Promise.all([
      probe,
      bound === undefined ? undefined : run(queries.boundedCount(plan, bound + 1, ctx)).then(countOf),
    ]);
    const rows = fetched.slice(0, mode.perPage);
    if (strategy === 'none') return { rows, total: { value: null, hasMore: fetched.length > mode.perPage } };
    if (bounded !== undefined && bound !== undefined && bounded <= bound)
      return { rows, total: { value: bounded, isEstimate: false } };
    const shown = totalShownByPage(offset, mode.perPage, fetched.length);
    if (shown !== undefined) return { rows, total: { value: shown, isEstimate: false } };
    const estimate = connection.dialect.rowEstimate?.read(
      await run(queries.estimate(plan, ctx) as Statement),
    );
    // An EXPLAIN this code cannot read: a count is slower but never wrong.
    if (estimate === undefined)
      return { rows, total: { value: countOf(await run(queries.count(plan, ctx))), isEstimate: false } };
    const value = boundedEstimate(estimate, {
      offset,
      perPage: mode.perPage,
      fetched: fetched.length,
      atLeast: bounded,
    });
    return { rows, total: { value, isEstimate: true } };
  }

  const sortValues = (plan: ListPlan, row: Row): CursorValue[] =>
    plan.sort.map((term) => (row[term.column] ?? null) as CursorValue);

  const departureOf = (signal: ClientSignal | undefined): Departure => {
    const departure = new Departure();
    if (signal) {
      if (signal.aborted) departure.leave();
      else signal.addEventListener('abort', () => departure.leave(), { once: true });
    }
    return departure;
  };

  const key = endpoint.resource.columns.get(endpoint.resource.primaryKey) as ResolvedColumn;
  /** The plan of one record: `include`, `count` and `filter[trashed]` as in a list, the key as the filter. */
  // Read-one plans are cached like the list's, before the key is added (authorize uses no defaults here).
  const onePlans = new BoundedMap<string, ListPlan>(MAX_CACHED_PLANS);
  const oneQueryPlan = (rawQuery: string): ListPlan => {
    const cached = onePlans.get(rawQuery);
    if (cached) return cached;
    const errors = new ErrorBag();
    const request = parseListQuery(
      rawQuery,
      endpoint.limits,
      errors,
      (name) => `Unknown query parameter "${name}": it is ${ONE_ONLY}`,
    );
    for (const name of Object.keys(request.params))
      if (!oneParams.has(name)) errors.add(name, `The ${name} parameter is ${ONE_ONLY}`);
    for (const field of request.filter.fields)
      if (field.name !== 'trashed') errors.add(`filter.${field.name}`, `This filter is ${ONE_ONLY}`);
    if (request.filter.groups.length > 0) errors.add('filter', `Filter groups are ${ONE_ONLY}`);
    const plan = errors.isEmpty ? authorize(request, endpoint, errors, []) : undefined;
    if (!plan) throw new RequestError(422, errors.toEnvelope());
    if (rawQuery.length <= MAX_CACHED_QUERY) onePlans.set(rawQuery, plan);
    return plan;
  };
  const onePlan = (rawQuery: string, id: unknown): ListPlan => {
    const plan = oneQueryPlan(rawQuery);
    const target: FieldTarget = {
      hops: [],
      column: key.name,
      columnType: key.type,
      storage: key.storage,
    };
    const byKey: FilterNode = { kind: 'field', target, conditions: [{ op: 'eq', value: id as Scalar }] };
    return { ...plan, where: [...plan.where, byKey], mode: { kind: 'simple', page: 1, perPage: 1 } };
  };

  const one = async ({ id, rawQuery, ctx, signal, primary }: OneCall): Promise<OneRecord | undefined> => {
    const coerced = coerceForColumn(key, id);
    // Parameters are checked before the id: a wrong parameter is the client's to fix either way.
    const plan = onePlan(rawQuery, coerced.ok ? coerced.value : null);
    if (!coerced.ok) return undefined;
    const options: ReadOptions = { timeoutMs: endpoint.timeoutMs, departure: departureOf(signal), primary };
    const [row] = await connection.run(queries.rows(plan, { limit: 1 }, ctx), options);
    if (!row) return undefined;
    const stored = read(row);
    const [answer] = await shape(plan, [row], ctx, options);
    return { answer, stored };
  };

  /** The authorized plan of a query string (cached), or every problem found in it. */
  const cachedPlan = (rawQuery: string, defaults: readonly FieldInput[]): ListPlan | ErrorBag => {
    const key = contextual ? `${JSON.stringify(defaults)}\n${rawQuery}` : rawQuery;
    const cached = plans.get(key);
    if (cached) return cached;
    const errors = new ErrorBag();
    const plan = authorize(parseListQuery(rawQuery, endpoint.limits, errors), endpoint, errors, defaults);
    if (!plan) return errors;
    if (key.length <= MAX_CACHED_QUERY && !continuesCursor(plan)) plans.set(key, plan);
    return plan;
  };

  /**
   * A page after a cursor reuses the plan of its query string without the cursor (the same for every
   * page of a scroll): only the cursor is decoded and checked. Anything unusual about the cursor, or a
   * problem anywhere, takes the whole query string through parse and authorize, so the answer and its
   * errors are exactly theirs.
   */
  const planOf = (rawQuery: string, defaults: readonly FieldInput[]): ListPlan | ErrorBag => {
    // Within the length limit, with a rest short enough to be kept (so far below qs's parameter limit):
    // the whole query string would pass parse's limits exactly when its rest does.
    const cut =
      rawQuery.includes('cursor=') && rawQuery.length <= endpoint.limits.maxQueryLength
        ? withoutCursor(rawQuery)
        : undefined;
    const base = cut && cut.rest.length <= MAX_CACHED_QUERY && cachedPlan(cut.rest, defaults);
    if (
      base &&
      !(base instanceof ErrorBag) &&
      base.mode.kind === 'cursor' &&
      base.mode.cursor === undefined
    ) {
      const cursor = decodeCursor(decodeQueryComponent(cut.cursor), base.sort);
      if (typeof cursor !== 'string' && checkCursorValues(cursor, base.sort, endpoint.resource) === undefined)
        return { ...base, mode: { ...base.mode, cursor } };
    }
    return cachedPlan(rawQuery, defaults);
  };

  const list = async ({ rawQuery, url: path, ctx, signal, primary }: ListCall): Promise<ServiceResponse> => {
    // Defaults that depend on the context are part of what the plan depends on: its cache key.
    const defaults = contextual ? defaultsFor(endpoint, ctx) : endpoint.defaultFilters;
    const plan = planOf(rawQuery, defaults);
    if (plan instanceof ErrorBag) return json(422, plan.toEnvelope());
    const mode: PageMode = plan.mode;
    // A client that goes away before its answer is written stops its statements in the database.
    const options: ReadOptions = { timeoutMs: endpoint.timeoutMs, departure: departureOf(signal), primary };
    const run = (statement: Statement) => connection.run(statement, options);
    const ok = (body: unknown) => json(200, body);

    switch (mode.kind) {
      case 'length-aware': {
        const { rows, total } = await countedPage(plan, mode, ctx, run);
        return ok(lengthAwarePage(await shape(plan, rows, ctx, options), { ...mode, total, path, rawQuery }));
      }
      case 'simple': {
        // One row more than the page tells whether a next page exists, without counting.
        const rows = await run(
          queries.rows(plan, { limit: mode.perPage + 1, offset: (mode.page - 1) * mode.perPage }, ctx),
        );
        const hasMore = rows.length > mode.perPage;
        return ok(
          simplePage(await shape(plan, rows.slice(0, mode.perPage), ctx, options), {
            ...mode,
            hasMore,
            path,
            rawQuery,
          }),
        );
      }
      case 'cursor': {
        const backwards = mode.cursor?.direction === 'prev';
        const fetched = await run(
          queries.rows(
            plan,
            { limit: mode.perPage + 1, after: mode.cursor?.values, reverse: backwards },
            ctx,
          ),
        );
        const hasMore = fetched.length > mode.perPage;
        const rows = fetched.slice(0, mode.perPage);
        if (backwards) rows.reverse();
        const first = rows[0];
        const last = rows[rows.length - 1];
        const cursorTo = (direction: 'next' | 'prev', row: Row | undefined) =>
          row ? encodeCursor(plan.sort, { direction, values: sortValues(plan, row) }) : null;
        // Going forwards there is a previous page once a cursor was followed, and a next one when the
        // extra row came back; going backwards, the reverse.
        const next = backwards || hasMore ? cursorTo('next', last) : null;
        const prev = (backwards ? hasMore : mode.cursor !== undefined) ? cursorTo('prev', first) : null;
        return ok(
          cursorPage(await shape(plan, rows, ctx, options), {
            perPage: mode.perPage,
            next,
            prev,
            path,
            rawQuery,
          }),
        );
      }
      case 'all': {
        if (mode.max !== 'unlimited') {
          const countRows = await run(queries.count(plan, ctx));
          const total = Number(countRows[0]?.total ?? 0);
          if (total > mode.max)
            throw RequestError.single(
              422,
              'all',
              `The total of ${total} records exceeds the maximum of ${mode.max} allowed for all=true.`,
            );
          return ok(await shape(plan, await run(queries.rows(plan, {}, ctx)), ctx, options));
        }
        // The first batch is read before the answer starts: a database that cannot serve it is a 503,
        // not a 200 whose body breaks off after its first byte.
        const first = await batch(plan, undefined, ctx, options);
        return {
          status: 200,
          headers: { 'content-type': JSON_TYPE },
          body: streamAll(plan, ctx, options, first),
        };
      }
    }
  };

  return { list, one };

  /** One batch of an unlimited `all=true` list: its rows, and their records as JSON text. */
  async function batch(
    plan: ListPlan,
    after: CursorValue[] | undefined,
    ctx: unknown,
    options: RunOptions,
  ): Promise<{ rows: Row[]; text: string }> {
    const rows = await connection.run(queries.rows(plan, { limit: STREAM_BATCH, after }, ctx), options);
    if (rows.length === 0) return { rows, text: '' };
    const items = await shape(plan, rows, ctx, options);
    return { rows, text: items.map((item) => JSON.stringify(item)).join(',') };
  }

  /**
   * Every record as one JSON array, fetched in keyset batches: memory stays flat whatever the row
   * count, no connection is held between batches, and includes load per batch on every engine.
   */
  async function* streamAll(
    plan: ListPlan,
    ctx: unknown,
    options: RunOptions,
    first: { rows: Row[]; text: string },
  ): AsyncGenerator<string> {
    yield '[';
    let current = first;
    let separator = '';
    for (;;) {
      const { rows, text } = current;
      if (rows.length === 0) break;
      yield `${separator}${text}`;
      separator = ',';
      if (rows.length < STREAM_BATCH) break;
      current = await batch(plan, sortValues(plan, rows[rows.length - 1] as Row), ctx, options);
    }
    yield ']';
  }
}
