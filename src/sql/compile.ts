import { type Expression, type SelectQueryBuilder, type SqlBool, sql } from 'kysely';
import type {
  Condition,
  CursorValue,
  FieldTarget,
  FilterNode,
  QueryShape,
  Scalar,
  SortTerm,
} from '../plan/list-plan.js';
import { FilterValueError } from '../resource/filter-value-error.js';
import type { EndpointPolicy } from '../resource/policy.js';
import type { ResolvedRelation, ResolvedResource } from '../resource/registry.js';
import type { DynamicExpressionBuilder } from '../resource/types.js';
import { RequestError } from '../respond/error-bag.js';
import { type DynamicDb, escapeLike, type SqlDialect } from './dialect.js';
import { visibleSelection } from './selection.js';
import { param, type Slot, type SlotRowsOptions, type SlotValues } from './slots.js';

// biome-ignore lint/suspicious/noExplicitAny: rows of run-time tables.
type DynamicSelect = SelectQueryBuilder<any, any, any>;
type Eb = DynamicExpressionBuilder;
type Bool = Expression<SqlBool>;
type SlotCondition = Condition<SlotValues>;

const BASE = 't0';

/**
 * Equality with text no JSON number or boolean renders as can only match a JSON string's text, so it
 * skips the type test (one path lookup instead of two: the JSON filter of the benchmark, Q6).
 */
function plainEquality(condition: SlotCondition): boolean {
  if (condition.op === 'eq') return condition.value.cls === 'plain-text';
  if (condition.op === 'in') return condition.value.every((slot) => slot.cls === 'plain-text');
  return false;
}

const flip = (term: SortTerm): SortTerm => ({
  ...term,
  direction: term.direction === 'asc' ? 'desc' : 'asc',
});

/**
 * What every query of an endpoint carries, whatever the client asked: soft-deleted rows hidden (unless
 * `trashed`) and the endpoint's `baseQuery`. Lists and PATCH both use it, so a record PATCH can reach
 * is one the list can show.
 */
export function endpointConditions(
  eb: Eb,
  resource: ResolvedResource,
  policy: EndpointPolicy,
  alias: string,
  withTrashed = false,
): Bool[] {
  const parts: Bool[] = [];
  if (resource.softDeleteColumn && !withTrashed)
    parts.push(eb(`${alias}.${resource.softDeleteColumn}`, 'is', null));
  if (policy.baseQuery) parts.push(policy.baseQuery({ eb, column: (name) => eb.ref(`${alias}.${name}`) }));
  return parts;
}

/** The text patterns of the six textual operators, around the escaped value. */
const likePatterns = {
  contains: (v: string) => `%${v}%`,
  starts_with: (v: string) => `${v}%`,
  ends_with: (v: string) => `%${v}`,
} as const;

/**
 * Query shape × dialect → Kysely queries. The compiler never sees a client value: each is a slot, bound
 * as a parameter (src/sql/prepared.ts); every identifier comes from resource definitions. A compiler is
 * made per compilation: it numbers the table aliases of sub-queries.
 */
export class ListCompiler {
  private aliases = 0;

  constructor(
    private readonly db: DynamicDb,
    private readonly dialect: SqlDialect,
    private readonly plan: QueryShape<SlotValues>,
    private readonly policy: EndpointPolicy,
  ) {}

  /** FROM and WHERE, shared by the count and the page queries. */
  private filtered(): DynamicSelect {
    const { resource } = this.plan;
    return this.db.selectFrom(`${resource.table} as ${BASE}`).where((eb) => this.where(eb));
  }

  private where(eb: Eb): Bool {
    const { resource, withTrashed } = this.plan;
    const parts: Bool[] = this.plan.where.map((node) => this.node(eb, node, resource, BASE));
    return eb.and([...parts, ...endpointConditions(eb, resource, this.policy, BASE, withTrashed)]);
  }

  /** `count(*)` over the filtered rows, without ORDER BY. */
  countQuery(): DynamicSelect {
    return this.filtered().select((eb) => eb.fn.countAll().as('total'));
  }

  /**
   * The records in the plan's order (reversed for a backwards cursor), with the requested counts;
   * `after` continues past a record's stored sort values (keyset pagination).
   */
  rowsQuery(options: SlotRowsOptions): DynamicSelect {
    const { resource, counts } = this.plan;
    const sort = options.reverse ? this.plan.sort.map(flip) : this.plan.sort;
    let query = this.filtered().select(visibleSelection(resource, BASE));
    for (const relation of counts)
      query = query.select((eb) =>
        this.relationFrom(eb, relation, BASE)
          .query.select((inner) => inner.fn.countAll().as('n'))
          .as(`${relation.name}_count`),
      );
    const after = options.after;
    if (after) query = query.where((eb) => this.keyset(eb, sort, after));
    for (const term of sort) {
      const nulls = this.dialect.nullsSortLargest && term.column !== resource.primaryKey;
      query = query.orderBy(`${BASE}.${term.column}`, (ob) => {
        const ordered = term.direction === 'asc' ? ob.asc() : ob.desc();
        if (!nulls) return ordered;
        return term.direction === 'asc' ? ordered.nullsFirst() : ordered.nullsLast();
      });
    }
    if (options.limit !== undefined) query = query.limit(options.limit);
    if (options.offset) query = query.offset(sql<number>`${param(options.offset)}`);
    return query;
  }

  /**
   * Rows strictly after `values` in `sort` order, NULL being the smallest value:
   * after(i) = strictlyAfter(i) OR (equal(i) AND after(i + 1)); the primary key ends the order.
   * The primary key is never NULL, so its term is a plain range an index serves (`id < :id`); an
   * ascending term also gets the redundant bound `c >= :c` for the same reason.
   */
  private keyset(eb: Eb, sort: readonly SortTerm[], slots: readonly Slot<CursorValue>[]): Bool {
    const { primaryKey } = this.plan.resource;
    const { dialect } = this;
    let condition: Bool | undefined;
    for (let i = sort.length - 1; i >= 0; i--) {
      const term = sort[i] as SortTerm;
      const slot = slots[i];
      const value =
        slot === undefined || slot.cls === 'null'
          ? null
          : param(slot, (stored) => (typeof stored === 'boolean' ? dialect.bindBoolean(stored) : stored));
      const column = eb.ref(`${BASE}.${term.column}`);
      let strictlyAfter: Bool;
      if (value === null)
        strictlyAfter = term.direction === 'asc' ? eb(column, 'is not', null) : sql<SqlBool>`1 = 0`;
      else if (term.direction === 'asc') strictlyAfter = eb(column, '>', value);
      else if (term.column === primaryKey) strictlyAfter = eb(column, '<', value);
      else strictlyAfter = eb.or([eb(column, '<', value), eb(column, 'is', null)]);
      const equal = value === null ? eb(column, 'is', null) : eb(column, '=', value);
      condition =
        condition === undefined ? strictlyAfter : eb.or([strictlyAfter, eb.and([equal, condition])]);
      if (value !== null && term.direction === 'asc' && i < sort.length - 1)
        condition = eb.and([eb(column, '>=', value), condition]);
    }
    return condition ?? sql<SqlBool>`1 = 1`;
  }

  /**
   * FROM the related table (through the pivot for many-to-many), correlated with the parent alias,
   * soft-deleted related rows left out: the base of relation filters and counts.
   */
  private relationFrom(
    eb: Eb,
    hop: ResolvedRelation,
    alias: string,
  ): { query: DynamicSelect; child: string } {
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
    if (related.softDeleteColumn) query = query.where(`${child}.${related.softDeleteColumn}`, 'is', null);
    return { query, child };
  }

  private nextAlias(): string {
    this.aliases += 1;
    return `t${this.aliases}`;
  }

  private node(eb: Eb, node: FilterNode<SlotValues>, resource: ResolvedResource, alias: string): Bool {
    switch (node.kind) {
      case 'and':
        return eb.and(node.children.map((child) => this.node(eb, child, resource, alias)));
      case 'or':
        return eb.or(node.children.map((child) => this.node(eb, child, resource, alias)));
      case 'scope':
        return node.scope({ eb, column: (name) => eb.ref(`${alias}.${name}`), value: node.value });
      case 'custom':
        try {
          return node.callback({ eb, column: (name) => eb.ref(`${alias}.${name}`), value: node.value });
        } catch (error) {
          if (error instanceof FilterValueError)
            throw RequestError.single(422, `filter.${node.name}`, error.message);
          throw error;
        }
      case 'field':
        return this.field(eb, node.target, node.conditions, node.target.hops, alias);
    }
  }

  /** A relation filter is a chain of EXISTS: each parent row appears once, and totals stay right. */
  private field(
    eb: Eb,
    target: FieldTarget,
    conditions: readonly SlotCondition[],
    hops: readonly ResolvedRelation[],
    alias: string,
  ): Bool {
    const [hop, ...rest] = hops;
    if (!hop) return eb.and(conditions.map((condition) => this.condition(eb, target, condition, alias)));
    const { query, child } = this.relationFrom(eb, hop, alias);
    return eb.exists(
      query
        .select((inner) => inner.lit(1).as('one'))
        .where((inner) => this.field(inner, target, conditions, rest, child)),
    );
  }

  /** How a value of `target` is bound: JSON booleans as text, booleans and datetimes as the engine stores them. */
  private binder(target: FieldTarget): (value: Scalar) => unknown {
    const { dialect } = this;
    if (target.jsonPath) return (value) => (value === true ? 'true' : value === false ? 'false' : value);
    if (target.columnType === 'boolean') return (value) => dialect.bindBoolean(value as boolean);
    if (target.columnType === 'datetime') return (value) => dialect.bindDatetime(value as string);
    return (value) => value;
  }

  private condition(eb: Eb, target: FieldTarget, condition: SlotCondition, alias: string): Bool {
    const column = eb.ref(`${alias}.${target.column}`);
    const { dialect } = this;
    const path = target.jsonPath;
    if (condition.op === 'is_null') {
      const isNull = path ? dialect.jsonIsNull(column, path) : eb(column, 'is', null);
      return condition.negate ? eb.not(isNull) : isNull;
    }
    const x: Expression<unknown> = !path
      ? column
      : condition.jsonType === 'number'
        ? dialect.jsonNumber(column, path)
        : condition.jsonType === 'boolean'
          ? dialect.jsonBoolean(column, path)
          : plainEquality(condition)
            ? dialect.jsonText(column, path)
            : dialect.jsonString(column, path);
    const bind = this.binder(target);
    const v = (slot: Slot<Scalar>) => param(slot, bind);
    switch (condition.op) {
      case 'eq':
        return eb(x, '=', v(condition.value));
      case 'neq':
        return eb(x, '<>', v(condition.value));
      case 'gt':
        return eb(x, '>', v(condition.value));
      case 'gte':
        return eb(x, '>=', v(condition.value));
      case 'lt':
        return eb(x, '<', v(condition.value));
      case 'lte':
        return eb(x, '<=', v(condition.value));
      case 'is_empty':
        return eb(x, condition.negate ? '<>' : '=', '');
      case 'in':
        return eb(x, 'in', condition.value.map(v));
      case 'not_in':
        return eb(x, 'not in', condition.value.map(v));
      case 'between':
        return eb.and([eb(x, '>=', v(condition.value[0])), eb(x, '<=', v(condition.value[1]))]);
      case 'not_between':
        return eb.or([eb(x, '<', v(condition.value[0])), eb(x, '>', v(condition.value[1]))]);
      case 'range':
        return condition.to === undefined
          ? eb(x, '>=', v(condition.from))
          : eb.and([eb(x, '>=', v(condition.from)), eb(x, '<', v(condition.to))]);
      default: {
        const negate = condition.op.startsWith('not_');
        const base = (negate ? condition.op.slice(4) : condition.op) as keyof typeof likePatterns;
        const pattern = param(condition.value, (text) => likePatterns[base](escapeLike(text)));
        const match = path ? dialect.jsonLike(x, pattern) : dialect.like(x, pattern);
        return negate ? eb.not(match) : match;
      }
    }
  }
}
