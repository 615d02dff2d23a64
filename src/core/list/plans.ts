import { ErrorBag } from '../../errors/error-bag.js';
import { authorize } from '../../plan/authorize.js';
import { BoundedMap } from '../../plan/bounded-map.js';
import { checkCursorValues, decodeCursor } from '../../plan/cursor.js';
import { type CompiledEndpoint, defaultsFor } from '../../plan/endpoint.js';
import type { ListPlan } from '../../plan/list-plan.js';
import { decodeQueryComponent } from '../../request/decode.js';
import type { ExportFormat, FieldInput } from '../../request/list-request.js';
import { parseListQuery } from '../../request/parse.js';

/** Plans kept per endpoint, and the longest query string whose plan is kept (bounds the memory). */
export const MAX_CACHED_PLANS = 500;
export const MAX_CACHED_QUERY = 1024;

/**
 * A page after a cursor has a query string no other request repeats: keeping its plan would only fill
 * the old generation of the heap (measured: the moving-cursor benchmark 0.99 → 0.90 when kept).
 */
const continuesCursor = (plan: ListPlan): boolean =>
  plan.mode.kind === 'cursor' && plan.mode.cursor !== undefined;

/**
 * `cursor=<value>` cut out of a query string that has it once, as is (still encoded), and the rest:
 * the query string's `&`-separated parts but that one, in their order. Cut by position rather than
 * split and joined: every page of a scroll passes here.
 */
function withoutCursor(rawQuery: string): { rest: string; cursor: string } | undefined {
  const first = rawQuery.startsWith('cursor=');
  const found = first ? 0 : rawQuery.indexOf('&cursor=');
  if (found === -1) return undefined;
  const at = first ? 0 : found + 1;
  if (rawQuery.indexOf('&cursor=', at) !== -1) return undefined;
  const end = rawQuery.indexOf('&', at);
  const cursor = rawQuery.slice(at + 'cursor='.length, end === -1 ? undefined : end);
  const after = end === -1 ? '' : rawQuery.slice(end + 1);
  const before = at === 0 ? '' : rawQuery.slice(0, at - 1);
  return { rest: at === 0 || end === -1 ? before || after : `${before}&${after}`, cursor };
}

/**
 * The list plans of one endpoint: parse and authorize a query string, or take its plan from the cache.
 * The plan of a query string is a pure function of it and the endpoint's policy, and immutable: the
 * same URL requested again (a list's first page, a polled view) skips parse and authorize. Only
 * authorized plans are kept; a refused query is checked anew each time.
 */
export class ListPlans {
  private readonly plans = new BoundedMap<string, ListPlan>(MAX_CACHED_PLANS);
  private readonly contextual: boolean;

  constructor(private readonly endpoint: CompiledEndpoint) {
    this.contextual = endpoint.contextDefaults.length > 0;
  }

  /**
   * The plan of a list request, or every problem found in it. `accepted`: the export its `Accept`
   * header chose (`format=` in the query wins).
   */
  planOf(rawQuery: string, ctx: unknown, accepted?: ExportFormat): ListPlan | ErrorBag {
    const endpoint = this.endpoint;
    // Defaults that depend on the context are part of what the plan depends on: its cache key.
    const defaults = this.contextual ? defaultsFor(endpoint, ctx) : endpoint.defaultFilters;
    // A page after a cursor reuses the plan of its query string without the cursor (the same for every
    // page of a scroll): only the cursor is decoded and checked. Anything unusual about the cursor, or
    // a problem anywhere, takes the whole query string through parse and authorize, so the answer and
    // its errors are exactly theirs. Within the length limit, with a rest short enough to be kept (so
    // far below qs's parameter limit), the whole query string passes parse's limits exactly when its
    // rest does.
    const cut =
      rawQuery.includes('cursor=') && rawQuery.length <= endpoint.limits.maxQueryLength
        ? withoutCursor(rawQuery)
        : undefined;
    const base = cut && cut.rest.length <= MAX_CACHED_QUERY && this.cachedPlan(cut.rest, defaults, accepted);
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
    return this.cachedPlan(rawQuery, defaults, accepted);
  }

  /** The authorized plan of a query string (cached), or every problem found in it. */
  private cachedPlan(
    rawQuery: string,
    defaults: readonly FieldInput[],
    accepted: ExportFormat | undefined,
  ): ListPlan | ErrorBag {
    // What Accept chose is part of what the plan depends on: a line of its own ahead of the query
    // (no query string holds a newline, so no two inputs share a key).
    const query = accepted ? `${accepted}\n${rawQuery}` : rawQuery;
    const key = this.contextual ? `${JSON.stringify(defaults)}\n${query}` : query;
    const cached = this.plans.get(key);
    if (cached) return cached;
    const errors = new ErrorBag();
    const plan = authorize(
      parseListQuery(rawQuery, this.endpoint.limits, errors),
      this.endpoint,
      errors,
      defaults,
      accepted,
    );
    if (!plan) return errors;
    if (key.length <= MAX_CACHED_QUERY && !continuesCursor(plan)) this.plans.set(key, plan);
    return plan;
  }
}
