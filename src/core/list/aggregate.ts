import { ErrorBag } from '../../errors/error-bag.js';
import { RequestError } from '../../errors/request-error.js';
import { aggregateGroups } from '../../load/aggregate-rows.js';
import { authorizeAggregate } from '../../plan/aggregate.js';
import { defaultsFor } from '../../plan/endpoint.js';
import { parseAggregateQuery } from '../../request/parse.js';
import { type ClientSignal, json, type ServiceResponse } from '../exchange.js';
import { type ListState, readOptions } from './state.js';

/** One aggregate request as the core hands it over. */
export interface AggregateCall {
  /** The query string, undecoded. */
  readonly rawQuery: string;
  readonly ctx: unknown;
  readonly signal?: ClientSignal;
  /** Read from the primary, not a replica. */
  readonly primary?: boolean;
}

/**
 * `GET <prefix>/<endpoint>/aggregate`: the list's rows (its filters, search, scopes, `baseQuery`, with
 * the same defaults), grouped and measured in one statement run with the list's deadline. A refused
 * query is a 422 with every problem keyed by its parameter.
 */
export function aggregateReader(state: ListState): (call: AggregateCall) => Promise<ServiceResponse> {
  const { endpoint } = state;
  return async ({ rawQuery, ctx, signal, primary }) => {
    const errors = new ErrorBag();
    const request = parseAggregateQuery(rawQuery, endpoint.limits, errors);
    const plan = authorizeAggregate(request, endpoint, errors, defaultsFor(endpoint, ctx));
    if (!plan) return json(422, errors.toEnvelope());
    const rows = await state.connection
      .run(state.queries.aggregate(plan, ctx), readOptions(state, signal, primary))
      .catch(async (error: unknown) => {
        // A metric past what the engine computes is a fact about the request, not a broken filter.
        const refusal = await state.connection.dialect
          .refusal(error, state.connection.db)
          .catch(() => undefined);
        if (refusal?.kind !== 'out-of-range') throw error;
        throw RequestError.single(
          422,
          'metrics',
          'A metric is beyond the range the database computes it in (a sum past its largest integer): narrow the filter.',
        );
      });
    const { groups, truncated } = aggregateGroups(plan, rows);
    return json(200, {
      data: groups,
      meta: {
        metrics: plan.metrics.map((metric) => metric.name),
        group_by: plan.groups.map((group) => group.name),
        tz: plan.tz,
        limit: plan.limit,
        truncated,
      },
    });
  };
}
