import { ErrorBag } from '../../errors/error-bag.js';
import type { CompiledEndpoint } from '../../plan/endpoint.js';
import type { PageMode } from '../../plan/list-plan.js';
import type { Connection } from '../../sql/connect.js';
import { type ClientSignal, json, type ServiceResponse } from '../exchange.js';
import type { NowOrLater } from '../now-or-later.js';
import { type AggregateCall, aggregateReader } from './aggregate.js';
import { allAnswer } from './all-records.js';
import { cursorAnswer } from './cursor-page.js';
import { lengthAwareAnswer } from './length-aware-page.js';
import { acceptedExport } from './negotiate.js';
import { type OneCall, type OneRecord, oneRecordReader } from './one-record.js';
import { ListPlans } from './plans.js';
import { simpleAnswer } from './simple-page.js';
import { type ListState, type PageRequest, type PlanIn, prepareList, readOptions } from './state.js';

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
  /** The request's `Accept` header: it may ask for an export (`text/csv`, `application/x-ndjson`). */
  readonly accept?: string | string[];
}

export type { OneCall, OneRecord };

/** The answer of each pagination mode (`PageMode`): a new mode is one file and one entry here. */
const answers: {
  readonly [Kind in PageMode['kind']]: (
    state: ListState,
    request: PageRequest<PlanIn<Kind>>,
  ) => Promise<ServiceResponse>;
} = {
  'length-aware': lengthAwareAnswer,
  simple: simpleAnswer,
  cursor: cursorAnswer,
  all: allAnswer,
};

/**
 * The handlers of `GET <prefix>/<endpoint>` (parse → authorize → compile → execute → load → shape) and
 * of `GET <prefix>/<endpoint>/:id`, which is the same pipeline with the primary key as the one filter.
 * Each pagination mode is answered by its own file over the endpoint's prepared state.
 */
export function listHandlers(
  endpoint: CompiledEndpoint,
  connection: Connection,
): {
  list: (call: ListCall) => Promise<ServiceResponse>;
  one: (call: OneCall) => NowOrLater<OneRecord | undefined>;
  /** `GET <prefix>/<endpoint>/aggregate`, for an endpoint whose policy sets `aggregates`. */
  aggregate: (call: AggregateCall) => Promise<ServiceResponse>;
} {
  const state = prepareList(endpoint, connection);
  const plans = new ListPlans(endpoint);

  const exports = endpoint.allowExport !== undefined;
  // Not `async`, for the same reason as the service's list route: it returns the answer's promise.
  const list = ({ rawQuery, url, ctx, signal, primary, accept }: ListCall): Promise<ServiceResponse> => {
    const plan = plans.planOf(rawQuery, ctx, acceptedExport(accept, exports));
    if (plan instanceof ErrorBag) return Promise.resolve(json(422, plan.toEnvelope()));
    // A client that goes away before its answer is written stops its statements in the database.
    const request = { plan, ctx, options: readOptions(state, signal, primary), path: url, rawQuery };
    return answers[plan.mode.kind](state, request as PageRequest<never>);
  };

  return { list, one: oneRecordReader(state), aggregate: aggregateReader(state) };
}
