import { ErrorBag } from '../../errors/error-bag.js';
import { RequestError } from '../../errors/request-error.js';
import { authorize } from '../../plan/authorize.js';
import { BoundedMap } from '../../plan/bounded-map.js';
import type { FieldTarget, ListPlan, Scalar } from '../../plan/list-plan.js';
import { coercerFor } from '../../plan/values.js';
import { parseListQuery } from '../../request/parse.js';
import type { ResourceRecord } from '../../resource/policy.js';
import type { ResolvedColumn } from '../../resource/registry.js';
import type { ReadOptions } from '../../sql/connect.js';
import type { Row } from '../../sql/dialect.js';
import type { ClientSignal } from '../exchange.js';
import type { NowOrLater } from '../now-or-later.js';
import { MAX_CACHED_PLANS, MAX_CACHED_QUERY } from './plans.js';
import { type ListState, readOptions } from './state.js';

/** One read-one request: the record's id as the path gave it, and the query string. */
export interface OneCall {
  readonly id: string;
  readonly rawQuery: string;
  readonly ctx: unknown;
  readonly signal?: ClientSignal;
  readonly primary?: boolean;
}

/**
 * A record read through the list's pipeline: its answer (transformed) and its stored form (for its
 * ETag). When nothing shapes the answer (no include, count or transformer) they are the same object.
 * A read of some of its fields (`fields`) has no stored form: its answer is not the record, and its
 * ETag is that answer's, not the record's version.
 */
export interface OneRecord {
  readonly answer: unknown;
  readonly stored?: ResourceRecord;
}

/** Parameters a read-one request may carry: the rest shape lists only. */
const oneParams = new Set(['include', 'count']);
/** The end of every refusal of a list-only parameter on a read-one request: it names what is used. */
const ONE_ONLY = 'not used when reading one record (include, count, fields and filter[trashed] are).';

/**
 * A record's key as its path gives it: the value of its one key column, or of each column of a
 * composite key joined by commas in key order (`7,42`). Undefined when it cannot be a key. Each
 * column's coercion is looked up once, here: per request, a lookup by kind name would be a property
 * read that every kind's object makes megamorphic.
 */
export function keyReader(keys: readonly ResolvedColumn[]): (id: string) => Scalar[] | undefined {
  const coercers = keys.map(coercerFor);
  const [only] = coercers;
  if (coercers.length === 1 && only)
    // The common case, without the arrays of a composite key's parts.
    return (id) => {
      const coerced = only(id);
      return coerced.ok ? [coerced.value] : undefined;
    };
  return (id) => {
    const parts = id.split(',');
    if (parts.length !== coercers.length) return undefined;
    const values: Scalar[] = [];
    for (const [i, coerce] of coercers.entries()) {
      const coerced = coerce(parts[i] as string);
      if (!coerced.ok) return undefined;
      values.push(coerced.value);
    }
    return values;
  };
}

/**
 * `GET <prefix>/<endpoint>/:id`: the list's pipeline with the primary key as the one filter, so a
 * record is read with the same scopes, base query, includes and transformer as in a list.
 * `undefined` when no record answers (or the id cannot be a key).
 */
export function oneRecordReader(state: ListState): (call: OneCall) => NowOrLater<OneRecord | undefined> {
  const { endpoint } = state;
  const keys = endpoint.resource.keyColumns.map(
    (name) => endpoint.resource.columns.get(name) as ResolvedColumn,
  );
  const keyOf = keyReader(keys);
  const targets: FieldTarget[] = keys.map((key) => ({
    hops: [],
    column: key.name,
    columnType: key.type,
    storage: key.storage,
  }));
  // Read-one plans are cached like the list's, before the key is added (authorize uses no defaults here).
  const plans = new BoundedMap<string, ListPlan>(MAX_CACHED_PLANS);

  /** The plan of one record's query string: `include`, `count` and `filter[trashed]` as in a list. */
  const queryPlan = (rawQuery: string): ListPlan => {
    const cached = plans.get(rawQuery);
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
    if (rawQuery.length <= MAX_CACHED_QUERY) plans.set(rawQuery, plan);
    return plan;
  };
  /** The record of its row: the stored form as it is, or shaped by includes, counts or the transformer. */
  const recordOf = (
    plan: ListPlan,
    row: Row,
    ctx: unknown,
    options: ReadOptions,
  ): OneRecord | Promise<OneRecord> => {
    if (plan.columns) return firstOf(state.shape(plan, [row], ctx, options), (answer) => ({ answer }));
    const stored = state.read(row);
    if (plan.includes.length === 0 && plan.counts.length === 0 && !state.transforms)
      return { answer: stored, stored };
    return firstOf(state.shape(plan, [row], ctx, options), (answer) => ({ answer, stored }));
  };
  // Not `async`, as the list's handler: read-one is the cheapest request there is, and each async
  // layer costs it a promise and a resumption (docs/benchmarks.md). Where the database reads at once
  // (`Connection.runNow`) the record is answered without any promise. A refused query string, and a
  // refusal of a read made at once, throw here, to the caller, who calls in a `try`.
  return ({ id, rawQuery, ctx, signal, primary }) => {
    const values = keyOf(id);
    // Parameters are checked before the id: a wrong parameter is the client's to fix either way.
    const plan = queryPlan(rawQuery);
    if (!values) return undefined;
    const options = readOptions(state, signal, primary);
    const statement = state.queries.one(plan, targets, values, ctx);
    const now = state.connection.runNow?.(statement);
    if (now) return now[0] ? recordOf(plan, now[0], ctx, options) : undefined;
    return state.connection
      .run(statement, options)
      .then((rows) => (rows[0] ? recordOf(plan, rows[0], ctx, options) : undefined));
  };
}

/** The first of the shaped records, made into what the read answers, whether shaping waited or not. */
function firstOf(
  shaped: unknown[] | Promise<unknown[]>,
  made: (answer: unknown) => OneRecord,
): OneRecord | Promise<OneRecord> {
  return Array.isArray(shaped) ? made(shaped[0]) : shaped.then((records) => made(records[0]));
}
