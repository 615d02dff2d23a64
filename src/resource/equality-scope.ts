import { sql } from 'kysely';
import type { ContextCallback, RowScope, Scalar } from './types.js';

/** What `scopeByColumn`'s callback gives for a context: the values it may see, or every row. */
export type ScopeValues = Scalar | readonly Scalar[] | typeof everyRow | undefined;

/** `scopeByColumn`'s answer for a context that sees every row (an operator, a back-office job). */
export const everyRow: unique symbol = Symbol('every row');

/** A row scope that is an equality on one column, with what the live stage needs to decide it in memory. */
export interface EqualityScope<Ctx = unknown> extends RowScope<Ctx> {
  readonly equality: { readonly column: string; readonly values: ContextCallback<Ctx, ScopeValues> };
}

/**
 * The usual tenancy: a row is seen by the contexts whose value (or one of whose values) its column
 * holds — `scopeByColumn('tenant_id', (ctx) => ctx.tenantId)`. `undefined` sees no row, `everyRow`
 * every row. It is a `RowScope` like any other; declared this way, live streams decide who may learn
 * of a change without a query (docs/live.md).
 */
export function scopeByColumn<Ctx = unknown>(
  column: string,
  values: ContextCallback<Ctx, ScopeValues>,
): EqualityScope<Ctx> {
  const scope: RowScope<Ctx> = ({ eb, column: ref, ctx }) => {
    const seen = values(ctx);
    if (seen === everyRow) return undefined;
    if (seen === undefined) return sql<boolean>`1 = 0`;
    if (Array.isArray(seen)) return seen.length === 0 ? sql<boolean>`1 = 0` : eb(ref(column), 'in', seen);
    return eb(ref(column), '=', seen as Scalar);
  };
  return Object.assign(scope, { equality: { column, values } });
}

/** The equality a row scope was declared as, when `scopeByColumn` made it. */
export function equalityOf<Ctx>(
  scope: RowScope<Ctx> | undefined,
): EqualityScope<Ctx>['equality'] | undefined {
  return (scope as Partial<EqualityScope<Ctx>> | undefined)?.equality;
}
