import { type Expression, type SelectQueryBuilder, type SqlBool, sql } from 'kysely';
import { isFilterValueError } from '../errors/filter-value-error.js';
import { RequestError } from '../errors/request-error.js';
import type {
  Condition,
  CursorValue,
  FieldTarget,
  FilterNode,
  QueryShape,
  Scalar,
  SortTerm,
} from '../plan/list-plan.js';
import type { EndpointPolicy } from '../resource/policy.js';
import type { ResolvedRelation, ResolvedResource } from '../resource/registry.js';
import type { DynamicExpressionBuilder } from '../resource/types.js';
import { type DynamicDb, escapeLike, type SqlDialect } from './dialect.js';
import { visibleSelection } from './selection.js';
import { type Param, param, type Slot, type SlotRowsOptions, type SlotValues } from './slots.js';
import { isSpaceText, spaceText, spaceTextAfter, storedBoolean, storedDatetime } from './storage.js';

// biome-ignore lint/suspicious/noExplicitAny: rows of run-time tables.
type DynamicSelect = SelectQueryBuilder<any, any, any>;
type Eb = DynamicExpressionBuilder;
type Bool = Expression<SqlBool>;
type SlotCondition = Condition<SlotValues>;

const BASE = 't0';
/** The alias of a branched keyset page's union (`branchedRows`). */
const PAGE = 'page';

/** One sort column in a keyset condition, with the cursor's value for it (null: the row's was NULL). */
interface KeysetTerm {
  readonly column: string;
  readonly value: Param | null;
  readonly nullable: boolean;
}

/** The conditions (AND-ed) of one branch of a keyset page: see `ListCompiler.branches`. */
type Branch = (eb: Eb) => Bool[];

/** How many disjoint conditions "strictly after the cursor" takes for a group (`compare().after`). */
function afterParts({ direction, terms }: KeysetGroup): number {
  const term = terms[0] as KeysetTerm;
  if (terms.length > 1) return 1;
  if (term.value === null) return direction === 'asc' ? 1 : 0;
  return direction === 'desc' && term.nullable ? 2 : 1;
}

/** Whether a group's comparison has a range bound (`compare().bound`): no NULL can be involved. */
function bounded({ direction, terms }: KeysetGroup): boolean {
  const term = terms[0] as KeysetTerm;
  return terms.length > 1 || (term.value !== null && !(direction === 'desc' && term.nullable));
}

/**
 * Consecutive sort terms compared with the cursor as one: a row value `(a, b) < (:a, :b)` where the
 * dialect serves that from an index and no NULL can occur; otherwise a single term.
 */
interface KeysetGroup {
  readonly direction: 'asc' | 'desc';
  /** NOT NULL column and a non-null value: may join a row-value group. */
  readonly plain: boolean;
  readonly terms: KeysetTerm[];
}

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
    /** The request's context, for the callbacks (row scopes, `baseQuery`, scopes, custom filters). */
    private readonly ctx: unknown,
  ) {}

  /** FROM and WHERE, shared by the count and the page queries. */
  private filtered(): DynamicSelect {
    const { resource } = this.plan;
    return this.db.selectFrom(`${resource.table} as ${BASE}`).where((eb) => this.where(eb));
  }

  private where(eb: Eb): Bool {
    const { resource, withTrashed } = this.plan;
    const parts: Bool[] = this.plan.where.map((node) => this.node(eb, node, resource, BASE));
    return eb.and([...parts, ...endpointConditions(eb, resource, this.policy, BASE, this.ctx, withTrashed)]);
  }

  /** `count(*)` over the filtered rows, without ORDER BY. */
  countQuery(): DynamicSelect {
    return this.filtered().select((eb) => eb.fn.countAll().as('total'));
  }

  /**
   * The filtered rows as the count sees them, one constant column: what the planner is asked to
   * estimate for an estimated total (the count's own aggregate is always estimated at one row).
   */
  matchQuery(): DynamicSelect {
    return this.filtered().select((eb) => eb.lit(1).as('one'));
  }

  /** `count(*)` of at most `limit` filtered rows: the engine stops reading once it has them. */
  boundedCountQuery(limit: number): DynamicSelect {
    return this.db
      .selectFrom(this.matchQuery().limit(limit).as('bounded'))
      .select((eb) => eb.fn.countAll().as('total'));
  }

  /**
   * The records in the plan's order (reversed for a backwards cursor), with the requested counts;
   * `after` continues past a record's stored sort values (keyset pagination).
   */
  rowsQuery(options: SlotRowsOptions): DynamicSelect {
    const sort = options.reverse ? this.plan.sort.map(flip) : this.plan.sort;
    const groups = options.after ? this.keysetTerms(sort, options.after) : undefined;
    if (groups && !this.oneRange(groups)) {
      const branches = this.branches(groups);
      // No branch: nothing can follow the cursor; the single condition says so (`1 = 0`).
      if (branches.length > 0) return this.branchedRows(sort, branches, options.limit);
    }
    let query = this.selection();
    if (groups) query = query.where((eb) => this.keyset(eb, groups));
    query = this.ordered(query, sort, BASE);
    if (options.limit !== undefined) query = query.limit(options.limit);
    if (options.offset) query = query.offset(sql<number>`${param(options.offset)}`);
    return query;
  }

  /** The filtered records' visible columns and requested counts, unordered. */
  private selection(): DynamicSelect {
    const { resource, counts } = this.plan;
    let query = this.filtered().select(visibleSelection(resource, BASE));
    for (const relation of counts)
      query = query.select((eb) =>
        this.relationFrom(eb, relation, BASE)
          .query.select((inner) => inner.fn.countAll().as('n'))
          .as(`${relation.name}_count`),
      );
    return query;
  }

  /** ORDER BY the sort's columns under `alias`; NULLS FIRST/LAST only where NULL can occur. */
  private ordered(query: DynamicSelect, sort: readonly SortTerm[], alias: string): DynamicSelect {
    for (const term of sort) {
      // The plain order is the one an index serves; a NOT NULL column never needs more.
      const nulls = this.dialect.nullsSortLargest && this.nullable(term.column);
      query = query.orderBy(`${alias}.${term.column}`, (ob) => {
        const ordered = term.direction === 'asc' ? ob.asc() : ob.desc();
        if (!nulls) return ordered;
        return term.direction === 'asc' ? ordered.nullsFirst() : ordered.nullsLast();
      });
    }
    return query;
  }

  /**
   * A keyset page in one piece: UNION ALL of `branches`, each an index range read in sort order and
   * cut at the page size, then ordered and cut again. Each branch's rows are contiguous in an index
   * on the sort columns, so no branch reads rows before the cursor.
   */
  private branchedRows(
    sort: readonly SortTerm[],
    branches: readonly Branch[],
    limit: number | undefined,
  ): DynamicSelect {
    const parts = branches.map((branch, i) => {
      let part = this.ordered(
        this.selection().where((eb) => eb.and(branch(eb))),
        sort,
        BASE,
      );
      if (limit !== undefined) part = part.limit(limit);
      // Wrapped: SQLite allows no ORDER BY or LIMIT on a member of a compound SELECT.
      return this.db.selectFrom(part.as(`k${i}`)).selectAll();
    });
    const union = parts.slice(1).reduce((all, part) => all.unionAll(part), parts[0] as DynamicSelect);
    let query = this.ordered(this.db.selectFrom(union.as(PAGE)).selectAll(), sort, PAGE);
    if (limit !== undefined) query = query.limit(limit);
    return query;
  }

  private nullable(column: string): boolean {
    return this.plan.resource.columns.get(column)?.nullable !== false;
  }
  /** The sort terms with the cursor's values, grouped as one keyset comparison each (see `keyset`). */
  private keysetTerms(sort: readonly SortTerm[], slots: readonly Slot<CursorValue>[]): KeysetGroup[] {
    const { dialect } = this;
    const groups: KeysetGroup[] = [];
    for (const [i, term] of sort.entries()) {
      const slot = slots[i];
      const value =
        slot === undefined || slot.cls === 'null'
          ? null
          : param(slot, (stored) => (typeof stored === 'boolean' ? dialect.bindBoolean(stored) : stored));
      const item = { column: `${BASE}.${term.column}`, value, nullable: this.nullable(term.column) };
      const last = groups[groups.length - 1];
      const plain = !item.nullable && value !== null;
      if (dialect.rowValueKeyset && plain && last?.plain && last.direction === term.direction)
        last.terms.push(item);
      else groups.push({ direction: term.direction, plain, terms: [item] });
    }
    return groups;
  }

  /**
   * Rows strictly after the cursor's values in sort order, NULL being the smallest value:
   * after(g) = strictlyAfter(g) OR (equal(g) AND after(g + 1)) over the groups of `keysetTerms`; the
   * primary key ends the order. Each non-last group also gets the redundant bound `c >= :c` (`<=`
   * descending) where no NULL is involved, so the index on the sort columns serves a range starting
   * at the cursor rather than a scan from the first row. NULL handling appears only for nullable
   * columns: a NOT NULL column's conditions are the plain ranges an index serves.
   */
  private keyset(eb: Eb, groups: readonly KeysetGroup[]): Bool {
    let condition: Bool | undefined;
    for (let i = groups.length - 1; i >= 0; i--) {
      const group = groups[i] as KeysetGroup;
      const { after, equal, bound } = this.compare(eb, group);
      const strictlyAfter = after.length > 1 ? eb.or(after) : after[0];
      if (condition === undefined) {
        condition = strictlyAfter ?? sql<SqlBool>`1 = 0`;
        continue;
      }
      const rest = eb.and([equal, condition]);
      condition = strictlyAfter ? eb.or([strictlyAfter, rest]) : rest;
      if (bound) condition = eb.and([bound, condition]);
    }
    return condition ?? sql<SqlBool>`1 = 1`;
  }

  /**
   * Whether the single condition of `keyset` is one index range: one direction throughout, and every
   * group before the last bounded, so the bound on the first starts the range at the cursor.
   * Otherwise (mixed directions, a nullable column descending, a NULL in the cursor) the rows after
   * the cursor lie in several ranges of the index, and one condition would make it read from the
   * start of the leading column's value, or from the first row.
   */
  private oneRange(groups: readonly KeysetGroup[]): boolean {
    const direction = groups[0]?.direction;
    return groups.every(
      (group, i) => group.direction === direction && (i === groups.length - 1 || bounded(group)),
    );
  }

  /**
   * The rows after the cursor as disjoint index ranges, in sort order: for each group k, the rows
   * equal to the cursor on the groups before it and strictly after it on k (a nullable descending
   * column gives two: below the value, and NULL).
   */
  private branches(groups: readonly KeysetGroup[]): Branch[] {
    const branches: Branch[] = [];
    for (const [k, group] of groups.entries())
      for (let part = 0; part < afterParts(group); part++)
        branches.push((eb) => [
          ...groups.slice(0, k).map((before) => this.compare(eb, before).equal),
          this.compare(eb, group).after[part] as Bool,
        ]);
    return branches;
  }

  /**
   * One group's comparisons with the cursor: `after`, the conditions (OR-ed) of the rows strictly
   * after it (none: no row is); `equal`; `bound`, the range bound when no NULL is involved.
   */
  private compare(eb: Eb, { direction, terms }: KeysetGroup): { after: Bool[]; equal: Bool; bound?: Bool } {
    const strictly = direction === 'asc' ? '>' : '<';
    const from = direction === 'asc' ? '>=' : '<=';
    if (terms.length > 1) {
      const columns = sql.join(terms.map((term) => eb.ref(term.column)));
      const values = sql.join(terms.map((term) => term.value));
      const row = (op: string) => sql<SqlBool>`(${columns}) ${sql.raw(op)} (${values})`;
      return { after: [row(strictly)], equal: row('='), bound: row(from) };
    }
    const { column, value, nullable } = terms[0] as KeysetTerm;
    const ref = eb.ref(column);
    if (value === null)
      // Only NULL itself equals NULL; ascending, every value is after it; descending, none is.
      return { after: direction === 'asc' ? [eb(ref, 'is not', null)] : [], equal: eb(ref, 'is', null) };
    const equal = eb(ref, '=', value);
    if (direction === 'desc' && nullable) return { after: [eb(ref, '<', value), eb(ref, 'is', null)], equal };
    // Ascending, NULLs are before any value, so `c > :c` and `c >= :c` leave them out as they should.
    return { after: [eb(ref, strictly, value)], equal, bound: eb(ref, from, value) };
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
    const conditions = resourceConditions(eb, related, child, this.ctx);
    if (conditions.length > 0) query = query.where((inner) => inner.and(conditions));
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
    if (target.columnType === 'boolean')
      return (value) => storedBoolean(target.storage, dialect, value as boolean);
    if (target.columnType === 'datetime')
      return (value) => storedDatetime(target.storage, dialect, value as string);
    return (value) => value;
  }

  /**
   * A comparison with a datetime stored as `YYYY-MM-DD HH:MM:SS[.ffffff]` text: each as a half-open
   * range between `spaceText` (the instant) and `spaceTextAfter` (one microsecond later), so that
   * `…:00`, `…:00.000000` and `…:00.5` compare as the instants they are, and an index on the column
   * serves every operator.
   */
  private spaceTextDatetime(eb: Eb, x: Expression<unknown>, condition: SlotCondition): Bool {
    const at = (slot: Slot<Scalar>) => param(slot, (value) => spaceText(value as string));
    const after = (slot: Slot<Scalar>) => param(slot, (value) => spaceTextAfter(value as string));
    const equal = (slot: Slot<Scalar>) => eb.and([eb(x, '>=', at(slot)), eb(x, '<', after(slot))]);
    switch (condition.op) {
      case 'eq':
        return equal(condition.value);
      case 'neq':
        return eb.not(equal(condition.value));
      case 'gt':
        return eb(x, '>=', after(condition.value));
      case 'gte':
        return eb(x, '>=', at(condition.value));
      case 'lt':
        return eb(x, '<', at(condition.value));
      case 'lte':
        return eb(x, '<', after(condition.value));
      case 'in':
        return eb.or(condition.value.map(equal));
      case 'not_in':
        return eb.not(eb.or(condition.value.map(equal)));
      case 'between':
        return eb.and([eb(x, '>=', at(condition.value[0])), eb(x, '<', after(condition.value[1]))]);
      case 'not_between':
        return eb.or([eb(x, '<', at(condition.value[0])), eb(x, '>=', after(condition.value[1]))]);
      case 'range':
        return condition.to === undefined
          ? eb(x, '>=', at(condition.from))
          : eb.and([eb(x, '>=', at(condition.from)), eb(x, '<', at(condition.to))]);
      default:
        throw new Error(`The operator ${condition.op} does not apply to datetimes.`);
    }
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
    if (!path && target.columnType === 'datetime' && isSpaceText(target.storage, dialect))
      return this.spaceTextDatetime(eb, x, condition);
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
