import { RequestError } from '../../errors/request-error.js';
import type { CursorValue, ListPlan } from '../../plan/list-plan.js';
import { exportFilename, type RecordWriter, writerOf } from '../../respond/exports.js';
import type { ReadOptions } from '../../sql/connect.js';
import type { Row } from '../../sql/dialect.js';
import { json, type ServiceResponse } from '../exchange.js';
import { type ListState, type PageRequest, type PlanIn, runIn, sortValues } from './state.js';

/** Rows fetched per query when all=true (or an export) streams an unlimited result. */
export const STREAM_BATCH = 1000;

/**
 * `all=true` and the exports (`format=csv`, `format=ndjson`): every record, as a flat JSON array or
 * in the export's format. Under the endpoint's maximum it is counted first (over it: 422) and read at
 * once; an unlimited one is streamed in keyset batches. The three formats are writers over the same
 * batches (`respond/exports.ts`).
 */
export async function allAnswer(
  state: ListState,
  { plan, ctx, options }: PageRequest<PlanIn<'all'>>,
): Promise<ServiceResponse> {
  const { max } = plan.mode;
  const writer = writerOf(plan);
  const headers = answerHeaders(state, plan, writer);
  const run = runIn(state, options);
  if (max !== 'unlimited') {
    const countRows = await run(state.queries.count(plan, ctx));
    const total = Number(countRows[0]?.total ?? 0);
    if (total > max)
      throw RequestError.single(
        422,
        plan.export ? 'format' : 'all',
        `The total of ${total} records exceeds the maximum of ${max} allowed for ${plan.export ? `an export (format=${plan.export})` : 'all=true'}.`,
      );
    const records = await state.shape(plan, await run(state.queries.rows(plan, {}, ctx)), ctx, options);
    if (!plan.export) return json(200, records);
    return { status: 200, headers, body: `${writer.start}${writer.batch(records, true)}${writer.end}` };
  }
  // The first batch is read before the answer starts: a database that cannot serve it is a 503,
  // not a 200 whose body breaks off after its first byte.
  const first = await batch(state, plan, undefined, ctx, options);
  return { status: 200, headers, body: streamAll(state, plan, ctx, options, writer, first) };
}

/** The answer's type, and for an export the name a browser saves it under. */
function answerHeaders(state: ListState, plan: ListPlan, writer: RecordWriter): Record<string, string> {
  if (!plan.export) return { 'content-type': writer.contentType };
  const filename = exportFilename(state.endpoint.path, plan.export);
  return {
    'content-type': writer.contentType,
    'content-disposition': `attachment; filename="${filename}"`,
  };
}

interface Batch {
  readonly rows: Row[];
  /** Their records, as the list answers them. */
  readonly records: unknown[];
}

/** One batch of an unlimited list. */
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
  if (rows.length === 0) return { rows, records: [] };
  return { rows, records: await state.shape(plan, rows, ctx, options) };
}

/**
 * Every record, fetched in keyset batches and written as each comes: memory stays flat whatever the
 * row count, no connection is held between batches, and includes load per batch on every engine.
 * Each batch is turned into text before the next is read, so only one batch's records live at once.
 */
async function* streamAll(
  state: ListState,
  plan: ListPlan,
  ctx: unknown,
  options: ReadOptions,
  writer: RecordWriter,
  first: Batch,
): AsyncGenerator<string> {
  if (writer.start !== '') yield writer.start;
  let current: Batch | undefined = first;
  let written = false;
  while (current) {
    const { rows, records } = current;
    if (rows.length === 0) break;
    const text = writer.batch(records, !written);
    written = true;
    const last = rows.length < STREAM_BATCH ? undefined : sortValues(plan, rows[rows.length - 1] as Row);
    current = undefined;
    yield text;
    if (last) current = await batch(state, plan, last, ctx, options);
  }
  if (writer.end !== '') yield writer.end;
}
