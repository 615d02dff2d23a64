import { type Expression, expressionBuilder, type SqlBool, sql } from 'kysely';
import type { AggregateOrder, GroupTerm, HavingTerm, MetricTerm } from '../plan/aggregate-plan.js';
import { type QueryShape, type Scalar, type SortTerm, sortAlias, sortNullable } from '../plan/list-plan.js';
import type { EndpointPolicy } from '../resource/policy.js';
import type { ResolvedRelation } from '../resource/registry.js';
import type { DynamicExpressionBuilder } from '../resource/types.js';
import { ConditionCompiler, endpointConditions, resourceConditions } from './conditions.js';
import type { DynamicDb, DynamicSelect, SqlDialect } from './dialect.js';
import {
  type Branch,
  keysetBranches,
  keysetCondition,
  keysetGroups,
  oneRange,
  type SortOperand,
} from './keyset.js';
import { selectedColumn, visibleSelection } from './selection.js';
import { param, type Slot, type SlotRowsOptions, type SlotValues } from './slots.js';

type Eb = DynamicExpressionBuilder;
type Bool = Expression<SqlBool>;

const BASE = 't0';
/** `having`'s operators in SQL. */
const havingSql = { eq: '=', neq: '<>', gt: '>', gte: '>=', lt: '<', lte: '<=' } as const;

/** The alias of a branched keyset page's union (`branchedRows`). */
const PAGE = 'page';

/** One LEFT JOIN of a sort's relation path: `relation` from the table aliased `from`. */
interface SortJoin {
  readonly relation: ResolvedRelation;
  readonly from: string;
  readonly alias: string;
}

/** The alias of an aggregate's bucket ranges (`aggregateQuery`). */
const BUCKETS = 'b';

/** An aggregate as the compiler sees it: the plan's metrics and groups, its values as slots. */
export interface AggregateShape {
  readonly metrics: readonly MetricTerm[];
  readonly groups: readonly GroupTerm[];
  readonly order: readonly AggregateOrder[];
  readonly having: readonly (Omit<HavingTerm, 'value'> & { readonly value: Slot<Scalar> })[];
  /** `[low, high)` of each bucket of the bucket group, bound as the column stores its values. */
  readonly ranges?: readonly (readonly [Slot<Scalar>, Slot<Scalar>])[];
  /** Rows read: the groups answered, and one more to know whether the answer was cut. */
  readonly limit: number;
  /** How a bucket bound and a having value of a column are bound (the filters' binding). */
  readonly bind: (column: GroupTerm['column'], value: Scalar) => unknown;
}

/** The names of an aggregate's values in its rows. */
export const groupAlias = (index: number): string => `__g${index}`;
export const metricAlias = (index: number): string => `__m${index}`;
/** An average is read as its exact sum and the count of values it divides by. */
export const averagedAlias = (index: number): string => `__m${index}_n`;

const flip = (term: SortTerm): SortTerm => ({
  ...term,
  direction: term.direction === 'asc' ? 'desc' : 'asc',
});

/**
 * Query shape × dialect → Kysely queries. The compiler never sees a client value: each is a slot, bound
 * as a parameter (src/sql/prepared.ts); every identifier comes from resource definitions. A compiler is
 * made per compilation: its `ConditionCompiler` numbers the table aliases of sub-queries.
 */
export class ListCompiler {
  private readonly conditions: ConditionCompiler;
  /** The LEFT JOINs the sort's relation paths need, by relation path, each once. */
  private readonly joins = new Map<string, SortJoin>();

  constructor(
    private readonly db: DynamicDb,
    private readonly dialect: SqlDialect,
    private readonly plan: QueryShape<SlotValues>,
    private readonly policy: EndpointPolicy,
    /** The request's context, for the callbacks (row scopes, `baseQuery`, scopes, custom filters). */
    private readonly ctx: unknown,
    /** Relation paths joined beside the sort's: an aggregate's group keys. */
    paths: readonly (readonly ResolvedRelation[])[] = [],
  ) {
    this.conditions = new ConditionCompiler(dialect, ctx);
    const sortPaths = plan.sort.flatMap((term) => (term.through?.kind === 'path' ? [term.through.hops] : []));
    for (const hops of [...sortPaths, ...paths]) {
      let from = BASE;
      let path = '';
      for (const relation of hops) {
        path = path ? `${path}.${relation.name}` : relation.name;
        let join = this.joins.get(path);
        if (!join) {
          join = { relation, from, alias: `s${this.joins.size + 1}` };
          this.joins.set(path, join);
        }
        from = join.alias;
      }
    }
  }

  /** FROM and WHERE, shared by the count and the page queries. */
  private filtered(): DynamicSelect {
    const { resource } = this.plan;
    return this.db.selectFrom(`${resource.table} as ${BASE}`).where((eb) => this.where(eb));
  }

  private where(eb: Eb): Bool {
    const { resource, withTrashed } = this.plan;
    const parts: Bool[] = this.plan.where.map((node) => this.conditions.node(eb, node, resource, BASE));
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
    const groups = options.after
      ? keysetGroups(
          this.dialect,
          sort,
          options.after,
          (term) => this.operand(term),
          (term) => sortNullable(term, this.plan.resource),
        )
      : undefined;
    if (groups && !oneRange(groups)) {
      const branches = keysetBranches(groups);
      // No branch: nothing can follow the cursor; the single condition says so (`1 = 0`).
      if (branches.length > 0) return this.branchedRows(sort, branches, options.limit);
    }
    let query = this.selection();
    if (groups) query = query.where((eb) => keysetCondition(eb, groups));
    query = this.ordered(query, sort, BASE);
    if (options.limit !== undefined) query = query.limit(options.limit);
    if (options.offset) query = query.offset(sql<number>`${param(options.offset)}`);
    return query;
  }

  /**
   * The filtered records' visible columns and requested counts, unordered; with what a sort through
   * relations needs: the LEFT JOINs of its paths, and the values a cursor continues from.
   */
  private selection(): DynamicSelect {
    const { resource, counts, columns, sort } = this.plan;
    let query = this.joined(this.filtered());
    query = query.select(visibleSelection(resource, BASE, this.dialect, columns));
    for (const relation of counts)
      query = query.select((eb) => this.counted(eb, relation).as(`${relation.name}_count`));
    for (const [i, term] of sort.entries()) {
      const { through } = term;
      if (through?.kind === 'path')
        query = query.select(
          selectedColumn(through.column, this.joinOf(through.hops), this.dialect, sortAlias(term, i)),
        );
      else if (through?.kind === 'count' && !counts.includes(through.relation))
        query = query.select((eb) => this.counted(eb, through.relation).as(sortAlias(term, i)));
    }
    return query;
  }

  /** The LEFT JOINs of the relation paths (the sort's, an aggregate's groups), each once. */
  private joined(query: DynamicSelect): DynamicSelect {
    let joined = query;
    for (const { relation, from, alias } of this.joins.values())
      joined = joined.leftJoin(`${relation.target.table} as ${alias}`, (on) => {
        const keyed = on.onRef(`${alias}.${relation.childKey}`, '=', `${from}.${relation.parentKey}`);
        // A related record this request may not see sorts (and groups) as none: its value must not show.
        const hidden = resourceConditions(expressionBuilder(), relation.target, alias, this.ctx);
        return hidden.length > 0 ? keyed.on((eb) => eb.and(hidden)) : keyed;
      });
    return joined;
  }

  /**
   * Metrics over the filtered rows (the list's FROM and WHERE), grouped. A bucket group reads its
   * ranges from a derived table LEFT JOINed to the rows on `low <= column < high` with the list's
   * conditions, so an empty bucket is a row whose counts are 0, and each bucket's rows are an index
   * range of the column. The derived table's first member selects the column itself (no row): its
   * type is the column's, which types the bound ranges on PostgreSQL.
   */
  aggregateQuery(shape: AggregateShape): DynamicSelect {
    const { resource } = this.plan;
    const bucketGroup = shape.groups.find((group) => group.kind === 'bucket');
    let query: DynamicSelect;
    if (bucketGroup && shape.ranges) {
      const column = bucketGroup.column;
      const own = sql.ref(`x.${column.name}`);
      const bound = (slot: Slot<Scalar>) => param(slot, (value) => shape.bind(column, value));
      const rows = shape.ranges.map(
        ([low, high], i) => sql`select ${sql.lit(i)}, ${bound(low)}, ${bound(high)}`,
      );
      const ranges = sql`(select -1 as i, ${own} as lo, ${own} as hi from ${sql.table(resource.table)} as x where 1 = 0 union all ${sql.join(rows, sql` union all `)})`;
      const at = sql.ref(`${BASE}.${column.name}`);
      query = this.db
        .selectFrom(ranges.as(BUCKETS))
        .leftJoin(`${resource.table} as ${BASE}`, (join) =>
          join.on((eb) =>
            eb.and([
              eb(at, '>=', sql.ref(`${BUCKETS}.lo`)),
              eb(at, '<', sql.ref(`${BUCKETS}.hi`)),
              this.where(eb as Eb),
            ]),
          ),
        );
    } else query = this.filtered();
    query = this.joined(query);
    const bucketed = bucketGroup !== undefined;
    for (const [i, group] of shape.groups.entries()) {
      if (group.kind === 'bucket') query = query.select(sql.ref(`${BUCKETS}.i`).as(groupAlias(i)));
      else
        query = query.select(
          selectedColumn(group.column, this.groupTable(group), this.dialect, groupAlias(i)),
        );
    }
    for (const [i, metric] of shape.metrics.entries()) {
      query = query.select(this.metric(metric, bucketed).as(metricAlias(i)));
      if (metric.fn === 'avg')
        query = query.select(sql`count(${this.metricColumn(metric)})`.as(averagedAlias(i)));
    }
    if (shape.groups.length > 0)
      query = query.groupBy(
        shape.groups.map((group) =>
          group.kind === 'bucket'
            ? sql.ref(`${BUCKETS}.i`)
            : sql.ref(`${this.groupTable(group)}.${group.column.name}`),
        ),
      );
    for (const term of shape.having) {
      const metric = shape.metrics[term.metric] as MetricTerm;
      const value =
        metric.fn === 'min' || metric.fn === 'max'
          ? param(term.value, (v) => shape.bind(metric.column as GroupTerm['column'], v))
          : param(term.value);
      const op = havingSql[term.op];
      query = query.having((eb) => eb(this.metric(metric, bucketed, true), op, value));
    }
    for (const term of shape.order) {
      const alias = term.of === 'group' ? groupAlias(term.index) : metricAlias(term.index);
      query = query.orderBy(sql.ref(alias), (ob) => {
        const ordered = term.direction === 'asc' ? ob.asc() : ob.desc();
        // NULL is the smallest value everywhere, as in lists.
        if (!this.dialect.nullsSortLargest) return ordered;
        return term.direction === 'asc' ? ordered.nullsFirst() : ordered.nullsLast();
      });
    }
    return query.limit(shape.limit);
  }

  /** The table alias a column or path group reads from. */
  private groupTable(group: GroupTerm): string {
    return group.kind === 'path' ? this.joinOf(group.hops) : BASE;
  }

  private metricColumn(metric: MetricTerm) {
    return sql.ref(`${BASE}.${(metric.column as GroupTerm['column']).name}`);
  }

  /**
   * One metric's SQL: a count (of the key when buckets are joined, so an empty bucket counts 0), an
   * exact sum (a decimal's in units of its scale), or MIN/MAX selected as the kind is selected in
   * lists. `raw`: without the selection's form, as HAVING compares it.
   */
  private metric(metric: MetricTerm, bucketed: boolean, raw = false) {
    const { resource } = this.plan;
    if (metric.fn === 'count')
      return bucketed ? sql`count(${sql.ref(`${BASE}.${resource.keyColumns[0]}`)})` : sql`count(*)`;
    const column = metric.column as GroupTerm['column'];
    const ref = this.metricColumn(metric);
    if (metric.fn === 'count_distinct') return sql`count(distinct ${ref})`;
    const wrap = (value: ReturnType<typeof sql>) =>
      raw ? value : (this.dialect.kinds[column.type]?.select?.(value, column) ?? value);
    if (metric.fn === 'min') return wrap(sql`min(${ref})`);
    if (metric.fn === 'max') return wrap(sql`max(${ref})`);
    const summed = column.type === 'decimal' ? this.dialect.scaledUnits(ref, column.scale ?? 0) : ref;
    return wrap(sql`sum(${summed})`);
  }

  /** A relation's record count per record, with the related resource's scopes (as `count=` answers it). */
  private counted(eb: Eb, relation: ResolvedRelation) {
    return this.conditions
      .relationFrom(eb, relation, BASE)
      .query.select((inner) => inner.fn.countAll().as('n'));
  }

  /**
   * What a sort term orders and compares by in the records' statement: a column of the records, a
   * joined column, or a relation's count (a sub-query: ORDER BY names its selected value, a cursor's
   * comparison repeats it, as WHERE cannot name a selected value).
   */
  private operand(term: SortTerm): SortOperand {
    const { through } = term;
    if (!through) return `${BASE}.${term.name}`;
    if (through.kind === 'path') return `${this.joinOf(through.hops)}.${through.column.name}`;
    return (eb) => this.counted(eb, through.relation);
  }

  /**
   * ORDER BY the sort's terms (under `alias` when it is not the records' own, a union of pages that
   * holds each term's value by its `sortAlias`); NULLS FIRST/LAST only where NULL can occur.
   */
  private ordered(query: DynamicSelect, sort: readonly SortTerm[], alias: string): DynamicSelect {
    for (const [i, term] of sort.entries()) {
      // The plain order is the one an index serves; a NOT NULL column never needs more.
      const nulls = this.dialect.nullsSortLargest && sortNullable(term, this.plan.resource);
      const by =
        alias !== BASE
          ? `${alias}.${sortAlias(term, i)}`
          : term.through?.kind === 'count'
            ? sql.ref(sortAlias(term, i))
            : (this.operand(term) as string);
      query = query.orderBy(by, (ob) => {
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

  /** The alias of the last table a path's relations join (`selection`'s LEFT JOINs). */
  private joinOf(hops: readonly ResolvedRelation[]): string {
    return (this.joins.get(hops.map((hop) => hop.name).join('.')) as SortJoin).alias;
  }
}
