import {
  boundedEstimate,
  lengthAwarePage,
  type PageTotal,
  totalShownByPage,
} from '../../respond/length-aware.js';
import type { Row, Statement } from '../../sql/dialect.js';
import { json, type ServiceResponse } from '../exchange.js';
import { type ListState, type PageRequest, type PlanIn, runIn } from './state.js';

/** `pagination=length-aware` (the default): the page, and its total as the endpoint's strategy finds it. */
export async function lengthAwareAnswer(
  state: ListState,
  request: PageRequest<PlanIn<'length-aware'>>,
): Promise<ServiceResponse> {
  const { plan, ctx, options, path, rawQuery } = request;
  const { rows, total } = await countedPage(state, request);
  const records = await state.shape(plan, rows, ctx, options);
  const { page, perPage } = plan.mode;
  return json(200, lengthAwarePage(records, { page, perPage, total, path, rawQuery }));
}

const countOf = (rows: Row[]) => Number(rows[0]?.total ?? 0);

/**
 * A length-aware page's rows and what it says of the total, by the endpoint's `total` strategy.
 * Past 'exact', the page is read with one row more: the rows then prove whether a next page exists,
 * and the total when the page is the last, so an estimate never contradicts the rows known to exist
 * (docs/count-strategies.md).
 */
async function countedPage(
  state: ListState,
  { plan, ctx, options }: PageRequest<PlanIn<'length-aware'>>,
): Promise<{ rows: Row[]; total: PageTotal }> {
  const { queries, connection } = state;
  const strategy = state.endpoint.total;
  const run = runIn(state, options);
  const { page, perPage } = plan.mode;
  const offset = (page - 1) * perPage;
  if (strategy === 'exact' || (strategy !== 'none' && !state.estimates)) {
    const [countRows, rows] = await Promise.all([
      run(queries.count(plan, ctx)),
      run(queries.rows(plan, { limit: perPage, offset }, ctx)),
    ]);
    const value = countOf(countRows);
    return { rows, total: strategy === 'exact' ? { value } : { value, isEstimate: false } };
  }
  const probe = run(queries.rows(plan, { limit: perPage + 1, offset }, ctx));
  const bound = typeof strategy === 'object' ? strategy.exactUpTo : undefined;
  const [fetched, bounded] = await Promise.all([
    probe,
    bound === undefined ? undefined : run(queries.boundedCount(plan, bound + 1, ctx)).then(countOf),
  ]);
  const rows = fetched.slice(0, perPage);
  if (strategy === 'none') return { rows, total: { value: null, hasMore: fetched.length > perPage } };
  if (bounded !== undefined && bound !== undefined && bounded <= bound)
    return { rows, total: { value: bounded, isEstimate: false } };
  const shown = totalShownByPage(offset, perPage, fetched.length);
  if (shown !== undefined) return { rows, total: { value: shown, isEstimate: false } };
  const estimate = connection.dialect.rowEstimate?.read(await run(queries.estimate(plan, ctx) as Statement));
  // An EXPLAIN this code cannot read: a count is slower but never wrong.
  if (estimate === undefined)
    return { rows, total: { value: countOf(await run(queries.count(plan, ctx))), isEstimate: false } };
  const value = boundedEstimate(estimate, { offset, perPage, fetched: fetched.length, atLeast: bounded });
  return { rows, total: { value, isEstimate: true } };
}
