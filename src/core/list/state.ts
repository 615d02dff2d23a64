import { loadIncludes } from '../../load/includes.js';
import { rowReader, subsetReader } from '../../load/row-reader.js';
import type { CompiledEndpoint } from '../../plan/endpoint.js';
import { type CursorValue, type ListPlan, sortAlias } from '../../plan/list-plan.js';
import type { ResourceRecord } from '../../resource/policy.js';
import { reachesScope } from '../../resource/registry.js';
import type { Connection, ReadOptions } from '../../sql/connect.js';
import { Departure, type Row, type Statement } from '../../sql/dialect.js';
import { PreparedQueries } from '../../sql/prepared.js';
import type { ClientSignal } from '../exchange.js';

/**
 * What every answer of one endpoint's lists and records shares, made once when the service starts:
 * its prepared statements, its row reader, and how rows become the records it answers.
 */
export interface ListState {
  readonly endpoint: CompiledEndpoint;
  readonly connection: Connection;
  readonly queries: PreparedQueries;
  /** A database row → the stored record (visible columns, read by their kind). */
  readonly read: (row: Row) => ResourceRecord;
  /**
   * Whether a length-aware total may be a planner estimate. Without one (SQLite) every strategy but
   * 'none' counts exactly, and says so. So does an endpoint whose rows a scope or a baseQuery narrows:
   * the planner estimates from statistics of the whole table, every tenant's rows included, and an
   * estimate would let one tenant observe another's.
   */
  readonly estimates: boolean;
  /** Whether the endpoint's `response` transformer changes what a record answers. */
  readonly transforms: boolean;
  /**
   * Rows → records with counts and includes, then through the endpoint's `response` transformer. The
   * records themselves where there is no include to load: an async function's promise and resumption
   * are made only for a page that waits for its includes.
   */
  shape(plan: ListPlan, rows: Row[], ctx: unknown, options: ReadOptions): unknown[] | Promise<unknown[]>;
}

/** One request once its plan is known: who asks, how its statements run, and where its links point. */
export interface PageRequest<Plan extends ListPlan = ListPlan> {
  readonly plan: Plan;
  readonly ctx: unknown;
  /** The request's deadline, its departure and whether it reads from the primary. */
  readonly options: ReadOptions;
  /** The list's absolute URL without the query: the base of page links. */
  readonly path: string;
  /** The query string, undecoded: page links keep it. */
  readonly rawQuery: string;
}

/** A plan whose pagination is the mode `Kind`. */
export type PlanIn<Kind extends ListPlan['mode']['kind']> = ListPlan & {
  readonly mode: Extract<ListPlan['mode'], { kind: Kind }>;
};

export function prepareList(endpoint: CompiledEndpoint, connection: Connection): ListState {
  const read = rowReader(endpoint.resource);
  const queries = new PreparedQueries(connection.db, connection.dialect, endpoint.policy, endpoint.resource);
  const respond = endpoint.policy.response;
  const transform = (records: ResourceRecord[], ctx: unknown): unknown[] =>
    respond ? records.map((record) => respond(record, ctx)) : records;

  function shape(
    plan: ListPlan,
    rows: Row[],
    ctx: unknown,
    options: ReadOptions,
  ): unknown[] | Promise<unknown[]> {
    // Some fields: the records hold only those (the transformer receives what was selected); the
    // keys the includes need were read too, and are taken from the rows.
    const answered = plan.columns && plan.fields.get('');
    const readRow = answered ? subsetReader(endpoint.resource, answered) : read;
    const records = rows.map((row) => {
      const record = readRow(row);
      for (const relation of plan.counts) {
        const name = `${relation.name}_count`;
        record[name] = Number(row[name]);
      }
      return record;
    });
    if (plan.includes.length === 0) return transform(records, ctx);
    return loadIncludes(
      connection,
      endpoint.resource,
      plan.includes,
      records,
      ctx,
      options,
      plan.fields,
      answered && rows,
    ).then(() => transform(records, ctx));
  }

  // Decided once: it walks the resource's relations, which no request changes.
  const estimates =
    connection.dialect.rowEstimate !== undefined &&
    endpoint.policy.baseQuery === undefined &&
    !reachesScope(endpoint.resource);
  return { endpoint, connection, queries, read, estimates, transforms: respond !== undefined, shape };
}

/** How a request's statements run: the endpoint's deadline, and a client that goes away stops them. */
export function readOptions(
  state: Pick<ListState, 'endpoint' | 'connection'>,
  signal: ClientSignal | undefined,
  primary: boolean | undefined,
): ReadOptions {
  const { endpoint } = state;
  // A close listener per response costs several µs under load; it serves nothing where no read can be
  // stopped.
  if (!signal || !state.connection.dialect.stopsReads) return { timeoutMs: endpoint.timeoutMs, primary };
  const departure = new Departure();
  if (signal.aborted) departure.leave();
  else signal.addEventListener('abort', () => departure.leave(), { once: true });
  return { timeoutMs: endpoint.timeoutMs, departure, primary };
}

/** Runs one statement of a request. */
export const runIn =
  (state: ListState, options: ReadOptions) =>
  (statement: Statement): Promise<Row[]> =>
    state.connection.run(statement, options);

/** A row's values of the plan's sort columns: what a cursor (or the next stream batch) starts after. */
export const sortValues = (plan: ListPlan, row: Row): CursorValue[] =>
  plan.sort.map((term, i) => (row[sortAlias(term, i)] ?? null) as CursorValue);
