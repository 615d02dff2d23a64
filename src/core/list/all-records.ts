import { RequestError } from '../../errors/request-error.js';
import type { CursorValue, ListPlan } from '../../plan/list-plan.js';
import type { ReadOptions } from '../../sql/connect.js';
import type { Row } from '../../sql/dialect.js';
import { JSON_TYPE, json, type ServiceResponse } from '../exchange.js';
import { type ListState, type PageRequest, type PlanIn, runIn, sortValues } from './state.js';

/** Rows fetched per query when all=true streams an unlimited result. */
const STREAM_BATCH = 1000;

/**
 * `all=true`: every record as a flat array. Under the endpoint's maximum it is counted first (over
 * it: 422) and read at once; an unlimited one is streamed in keyset batches.
 */
export async function allAnswer(
  state: ListState,
  { plan, ctx, options }: PageRequest<PlanIn<'all'>>,
): Promise<ServiceResponse> {
  const { max } = plan.mode;
  const run = runIn(state, options);
  if (max !== 'unlimited') {
    const countRows = await run(state.queries.count(plan, ctx));
    const total = Number(countRows[0]?.total ?? 0);
    if (total > max)
      throw RequestError.single(
        422,
        'all',
        `The total of ${total} records exceeds the maximum of ${max} allowed for all=true.`,
      );
    return json(200, await state.shape(plan, await run(state.queries.rows(plan, {}, ctx)), ctx, options));
  }
  // The first batch is read before the answer starts: a database that cannot serve it is a 503,
  // not a 200 whose body breaks off after its first byte.
  const first = await batch(state, plan, undefined, ctx, options);
  return {
    status: 200,
    headers: { 'content-type': JSON_TYPE },
    body: streamAll(state, plan, ctx, options, first),
  };
}

interface Batch {
  readonly rows: Row[];
  /** Their records as JSON text, without the brackets. */
  readonly text: string;
}

/** One batch of an unlimited `all=true` list. */
async function batch(
  state: ListState,
  plan: ListPlan,
  after: CursorValue[] | undefined,
  ctx: unknown,
  options: ReadOptions,
): Promise<Batch> {
  const rows = await state.connection.run(
    state.queries.rows(plan, { limit: STREAM_BATCH, after }, ctx),
    options,
  );
  if (rows.length === 0) return { rows, text: '' };
  const items = await state.shape(plan, rows, ctx, options);
  return { rows, text: items.map((item) => JSON.stringify(item)).join(',') };
}

/**
 * Every record as one JSON array, fetched in keyset batches: memory stays flat whatever the row
 * count, no connection is held between batches, and includes load per batch on every engine.
 */
async function* streamAll(
  state: ListState,
  plan: ListPlan,
  ctx: unknown,
  options: ReadOptions,
  first: Batch,
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
    current = await batch(state, plan, sortValues(plan, rows[rows.length - 1] as Row), ctx, options);
  }
  yield ']';
}
