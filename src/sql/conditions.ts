import type { Expression, SqlBool } from 'kysely';
import { isFilterValueError } from '../errors/filter-value-error.js';
import { RequestError } from '../errors/request-error.js';
import type { Condition, FieldTarget, FilterNode } from '../plan/list-plan.js';
import type { EndpointPolicy } from '../resource/policy.js';
import type { ResolvedRelation, ResolvedResource } from '../resource/registry.js';
import type { DynamicExpressionBuilder } from '../resource/types.js';
import type { DynamicSelect, SqlDialect } from './dialect.js';
import { fieldCondition } from './operators.js';
import type { SlotValues } from './slots.js';

type Eb = DynamicExpressionBuilder;
type Bool = Expression<SqlBool>;

/**
 * What every read of a resource carries, by whichever path it is reached (the listed resource, a
 * relation filter, a count, an include, a PATCH lookup): soft-deleted rows hidden (unless `trashed`)
 * and the resource's row scope for this request's context.
 */
export function resourceConditions(
  eb: Eb,
  resource: ResolvedResource,
  alias: string,
  ctx: unknown,
  withTrashed = false,
): Bool[] {
  const parts: Bool[] = [];
  if (resource.softDeleteColumn && !withTrashed)
    parts.push(eb(`${alias}.${resource.softDeleteColumn}`, 'is', null));
  const scoped = resource.scope?.({ eb, column: (name) => eb.ref(`${alias}.${name}`), ctx });
  if (scoped) parts.push(scoped);
  return parts;
}

/**
 * What every query of an endpoint carries, whatever the client asked: the resource's conditions and
 * the endpoint's `baseQuery`. Lists and PATCH both use it, so a record PATCH can reach is one the
 * list can show.
 */
export function endpointConditions(
  eb: Eb,
  resource: ResolvedResource,
  policy: EndpointPolicy,
  alias: string,
  ctx: unknown,
  withTrashed = false,
): Bool[] {
  const parts = resourceConditions(eb, resource, alias, ctx, withTrashed);
  if (policy.baseQuery)
    parts.push(policy.baseQuery({ eb, column: (name) => eb.ref(`${alias}.${name}`), ctx }));
  return parts;
}

/**
 * Filter trees → SQL conditions, and the correlated sub-queries that reach a relation's rows. One per
 * statement: it numbers the table aliases of those sub-queries (`t1`, `t2`…), so every relation
 * reached within a statement (filters, counts) must go through the same one.
 */
export class ConditionCompiler {
  private aliases = 0;

  constructor(
    private readonly dialect: SqlDialect,
    /** The request's context, for the callbacks (row scopes, scopes, custom filters). */
    private readonly ctx: unknown,
  ) {}

  node(eb: Eb, node: FilterNode<SlotValues>, resource: ResolvedResource, alias: string): Bool {
    switch (node.kind) {
      case 'and':
        return eb.and(node.children.map((child) => this.node(eb, child, resource, alias)));
      case 'or':
        return eb.or(node.children.map((child) => this.node(eb, child, resource, alias)));
      case 'scope':
        return node.scope({
          eb,
          column: (name) => eb.ref(`${alias}.${name}`),
          value: node.value,
          ctx: this.ctx,
        });
      case 'custom':
        try {
          return node.callback({
            eb,
            column: (name) => eb.ref(`${alias}.${name}`),
            value: node.value,
            ctx: this.ctx,
          });
        } catch (error) {
          if (isFilterValueError(error)) throw RequestError.single(422, `filter.${node.name}`, error.message);
          throw error;
        }
      case 'field':
        return this.field(eb, node.target, node.conditions, node.target.hops, alias);
    }
  }

  /**
   * FROM the related table (through the pivot for many-to-many), correlated with the parent alias,
   * soft-deleted related rows left out: the base of relation filters and counts.
   */
  relationFrom(eb: Eb, hop: ResolvedRelation, alias: string): { query: DynamicSelect; child: string } {
    const child = this.nextAlias();
    const related = hop.target;
    let query: DynamicSelect;
    if (hop.pivot) {
      const pivot = this.nextAlias();
      query = eb
        .selectFrom(`${hop.pivot.table} as ${pivot}`)
        .innerJoin(
          `${related.table} as ${child}`,
          `${child}.${hop.childKey}`,
          `${pivot}.${hop.pivot.childKey}`,
        )
        .whereRef(`${pivot}.${hop.pivot.parentKey}`, '=', `${alias}.${hop.parentKey}`);
    } else {
      query = eb
        .selectFrom(`${related.table} as ${child}`)
        .whereRef(`${child}.${hop.childKey}`, '=', `${alias}.${hop.parentKey}`);
    }
    const conditions = resourceConditions(eb, related, child, this.ctx);
    if (conditions.length > 0) query = query.where((inner) => inner.and(conditions));
    return { query, child };
  }

  private nextAlias(): string {
    this.aliases += 1;
    return `t${this.aliases}`;
  }

  /** A relation filter is a chain of EXISTS: each parent row appears once, and totals stay right. */
  private field(
    eb: Eb,
    target: FieldTarget,
    conditions: readonly Condition<SlotValues>[],
    hops: readonly ResolvedRelation[],
    alias: string,
  ): Bool {
    const [hop, ...rest] = hops;
    if (!hop)
      return eb.and(
        conditions.map((condition) => fieldCondition(eb, this.dialect, target, condition, alias)),
      );
    const { query, child } = this.relationFrom(eb, hop, alias);
    return eb.exists(
      query
        .select((inner) => inner.lit(1).as('one'))
        .where((inner) => this.field(inner, target, conditions, rest, child)),
    );
  }
}
