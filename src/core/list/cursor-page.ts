import { encodeCursor } from '../../plan/cursor.js';
import { cursorPage } from '../../respond/simple-and-cursor.js';
import type { Row } from '../../sql/dialect.js';
import { json, type ServiceResponse } from '../exchange.js';
import { type ListState, type PageRequest, type PlanIn, runIn, sortValues } from './state.js';

/**
 * `pagination=cursor`: a keyset page after (or, going back, before) the cursor's sort values, with
 * the cursors of the pages around it. The cursor was decoded and checked with the plan (`plans.ts`).
 */
export async function cursorAnswer(
  state: ListState,
  { plan, ctx, options, path, rawQuery }: PageRequest<PlanIn<'cursor'>>,
): Promise<ServiceResponse> {
  const { perPage, cursor } = plan.mode;
  const backwards = cursor?.direction === 'prev';
  const fetched = await runIn(
    state,
    options,
  )(state.queries.rows(plan, { limit: perPage + 1, after: cursor?.values, reverse: backwards }, ctx));
  const hasMore = fetched.length > perPage;
  const rows = fetched.slice(0, perPage);
  if (backwards) rows.reverse();
  const first = rows[0];
  const last = rows[rows.length - 1];
  const cursorTo = (direction: 'next' | 'prev', row: Row | undefined) =>
    row ? encodeCursor(plan.sort, { direction, values: sortValues(plan, row) }) : null;
  // Going forwards there is a previous page once a cursor was followed, and a next one when the
  // extra row came back; going backwards, the reverse.
  const next = backwards || hasMore ? cursorTo('next', last) : null;
  const prev = (backwards ? hasMore : cursor !== undefined) ? cursorTo('prev', first) : null;
  const records = await state.shape(plan, rows, ctx, options);
  return json(200, cursorPage(records, { perPage, next, prev, path, rawQuery }));
}
