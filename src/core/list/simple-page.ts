import { simplePage } from '../../respond/simple-and-cursor.js';
import { json, type ServiceResponse } from '../exchange.js';
import { type ListState, type PageRequest, type PlanIn, runIn } from './state.js';

/** `pagination=simple`: a page and whether a next one exists, without counting. */
export async function simpleAnswer(
  state: ListState,
  { plan, ctx, options, path, rawQuery }: PageRequest<PlanIn<'simple'>>,
): Promise<ServiceResponse> {
  const { page, perPage } = plan.mode;
  // One row more than the page tells whether a next page exists.
  const rows = await runIn(
    state,
    options,
  )(state.queries.rows(plan, { limit: perPage + 1, offset: (page - 1) * perPage }, ctx));
  const hasMore = rows.length > perPage;
  const records = await state.shape(plan, rows.slice(0, perPage), ctx, options);
  return json(200, simplePage(records, { page, perPage, hasMore, path, rawQuery }));
}
