import { type Expression, expressionBuilder, type RawBuilder, type SqlBool, sql } from 'kysely';
import {
  type AggregateOrder,
  AVG_EXTRA_SCALE,
  type GroupTerm,
  type HavingTerm,
  type MetricTerm,
} from '../plan/aggregate-plan.js';
import {
  type QueryShape,
  type Scalar,
  type SortTerm,
  sortAlias,
  sortColumn,
  sortNullable,
} from '../plan/list-plan.js';
import type { EndpointPolicy } from '../resource/policy.js';
import type { ResolvedRelation } from '../resource/registry.js';
import type { DynamicExpressionBuilder } from '../resource/types.js';
import { ConditionCompiler, endpointConditions, resourceConditions } from './conditions.js';
import { type DynamicDb, type DynamicSelect, type SqlDialect, unplannedValue } from './dialect.js';
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

/** The aliases of an aggregate's bucket numbers and of its grouped rows (`bucketedQuery`). */
const BUCKETS = 'b';
const GROUPED = 'r';
/** A value's name in the grouped rows, apart from the answer's (ORDER BY names the answer's). */
const rowAlias = (alias: string): string => `r${alias}`;
/** The most bound parameters of a statement on every engine: SQLite's, since 3.32 (PostgreSQL's 65,535). */
const MAX_PARAMETERS = 32_766;
/** The most terms of one UNION ALL: SQLite refuses more than 500 (SQLITE_MAX_COMPOUND_SELECT). */
const MAX_UNION = 250;

/**
 * The numbers `[low, high)` as rows of one column `i`: literals joined by UNION ALL, nested in groups of
 * at most `MAX_UNION` terms. (A recursive CTE would be shorter, but it has to lead the statement.)
 */
function numbersFrom(low: number, high: number): RawBuilder<unknown> {
  const size = high - low;
  if (size <= MAX_UNION)
    return sql.join(
      Array.from({ length: size }, (_, i) => sql`select ${sql.lit(low + i)} as i`),
      sql` union all `,
    );
  const step = Math.ceil(size / MAX_UNION);
  const parts: RawBuilder<unknown>[] = [];
  for (let start = low; start < high; start += step)
    parts.push(sql`select i from (${numbersFrom(start, Math.min(high, start + step))}) as n`);
  return sql.join(parts, sql` union all `);
}

/** `floor(a / b)` of a whole `a` ≥ 0 and `b` > 0, in any engine's exact arithmetic (`/` of a numeric is no floor). */
const floorDivision = (a: RawBuilder<unknown>, b: RawBuilder<unknown>): RawBuilder<unknown> =>
  sql`((${a} - ${a} % ${b}) / ${b})`;

/**
 * The order of an average as it is answered (load/aggregate-rows.ts `quotientText`): `sum / count`
 * rounded half away from zero to `AVG_EXTRA_SCALE` more decimals than the sum's units, as two keys
 * compared in turn, its whole units and its extra digits, each with the average's sign. Two averages
 * answered alike are equal here, so their groups are ordered by the next terms (the group keys), as the
 * answer shows them; NULL (no value, an empty bucket) where the answer is null. Whole-number arithmetic
 * only, on a sum and a count that are whole numbers: exact on every engine, within SQLite's 64-bit
 * integers while a group has fewer than 4.6 × 10^14 values (`2 · count · 10^4`).
 */
function averageKeys(
  sum: RawBuilder<unknown>,
  count: RawBuilder<unknown>,
): readonly [RawBuilder<unknown>, RawBuilder<unknown>] {
  const extra = sql.lit(10 ** AVG_EXTRA_SCALE);
  const n = sql`nullif(${count}, 0)`;
  const magnitude = sql`abs(${sum})`;
  const whole = floorDivision(magnitude, n);
  // The remainder's share, rounded half up: from 0 to 10^4 (10^4 carries into the whole units).
  const fraction = floorDivision(sql`(2 * (${magnitude} % ${n}) * ${extra} + ${n})`, sql`(2 * ${n})`);
  const carry = sql`(case when ${fraction} >= ${extra} then 1 else 0 end)`;
  const sign = sql`(case when ${sum} < 0 then -1 else 1 end)`;
  return [sql`${sign} * (${whole} + ${carry})`, sql`${sign} * (${fraction} - ${carry} * ${extra})`];
}

/** An aggregate as the compiler sees it: the plan's metrics and groups, its values as slots. */
export interface AggregateShape {
  readonly metrics: readonly MetricTerm[];
  readonly groups: readonly GroupTerm[];
  readonly order: readonly AggregateOrder[];
  readonly having: readonly (Omit<HavingTerm, 'value'> & { readonly value: Slot<Scalar> })[];
  /** The bucket group's boundaries: bucket i is `[bounds[i], bounds[i + 1])`, bound as the column stores its values. */
  readonly bounds?: readonly Slot<Scalar>[];
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
      .selectFrom(this.matchQuery().limit(unplannedValue(this.dialect, limit)).as('bounded'))
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
          (term) => sortColumn(term, this.plan.resource),
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
    // The page's cut is the service's own: its plan does not depend on it.
    if (options.limit !== undefined) query = query.limit(unplannedValue(this.dialect, options.limit));
    if (options.offset)
      query = query.offset(sql<number>`${unplannedValue(this.dialect, param(options.offset))}`);
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
   * Metrics over the filtered rows (the list's FROM and WHERE), grouped; with a bucket group, see
   * `bucketedQuery`.
   */
  aggregateQuery(shape: AggregateShape): DynamicSelect {
    if (shape.bounds && shape.groups.some((group) => group.kind === 'bucket'))
      return this.bucketedQuery(shape, shape.bounds);
    // Ordered by an average: the groups are measured in `r` (raw sums and counts), and ordered and
    // answered from it, so the average's keys read each sum and count once (`averageKeys`).
    const measuredFirst = shape.order.some(
      (term) => term.of === 'metric' && shape.metrics[term.index]?.fn === 'avg',
    );
    const named = (alias: string) => (measuredFirst ? rowAlias(alias) : alias);
    let query = this.joined(this.filtered());
    for (const [i, group] of shape.groups.entries())
      query = query.select(this.groupSelection(group, named(groupAlias(i))));
    for (const [i, metric] of shape.metrics.entries()) {
      query = query.select(this.metric(metric, measuredFirst).as(named(metricAlias(i))));
      if (metric.fn === 'avg')
        query = query.select(sql`count(${this.metricColumn(metric)})`.as(named(averagedAlias(i))));
    }
    query = this.groupedBy(query, shape, () => undefined);
    for (const term of shape.having) {
      const metric = shape.metrics[term.metric] as MetricTerm;
      query = query.having((eb) => this.havingCondition(eb, this.metric(metric, true), shape, term));
    }
    if (!measuredFirst) return this.aggregateOrder(query, shape);
    const grouped = (alias: string) => sql.ref(`${GROUPED}.${rowAlias(alias)}`);
    let answered = this.db.selectFrom(query.as(GROUPED));
    for (const [i] of shape.groups.entries())
      answered = answered.select(grouped(groupAlias(i)).as(groupAlias(i)));
    for (const [i, metric] of shape.metrics.entries()) {
      const value = grouped(metricAlias(i));
      answered = answered.select(
        (metric.fn === 'count' || metric.fn === 'count_distinct'
          ? value
          : this.selectedMetric(metric, value)
        ).as(metricAlias(i)),
      );
      if (metric.fn === 'avg') answered = answered.select(grouped(averagedAlias(i)).as(averagedAlias(i)));
    }
    return this.aggregateOrder(answered, shape, (i) => [grouped(metricAlias(i)), grouped(averagedAlias(i))]);
  }

  /**
   * With a bucket group the filtered rows are read once, in the bounds' range (the column's index
   * serves it), each numbered with its bucket by a CASE that halves the bounds at each step, and
   * grouped (\`r\`). The bucket numbers are then LEFT JOINed to those groups (\`b\`), so an empty bucket is
   * a row whose counts are 0, and \`having\`, order and limit apply to it as to the others. Joining the
   * ranges to the rows instead made MariaDB look up each row once per bucket ("Range checked for each
   * record", docs/benchmarks.md).
   *
   * Grouped by the buckets alone, and no more of them than the engine's `bucketBranches`, each bucket
   * is a branch of a UNION ALL instead: its own range read and measured without GROUP BY, which is one
   * row even when the range is empty (count 0, the other metrics NULL, as the LEFT JOIN gives). No CASE
   * per row and no sort of the rows into groups: SQLite's monthly count 0.90× the hand-written
   * `substr` GROUP BY with the CASE, faster than it with the branches (docs/benchmarks.md).
   */
  private bucketedQuery(shape: AggregateShape, bounds: readonly Slot<Scalar>[]): DynamicSelect {
    const bucketIndex = shape.groups.findIndex((group) => group.kind === 'bucket');
    const column = (shape.groups[bucketIndex] as GroupTerm).column;
    const at = sql.ref(`${BASE}.${column.name}`);
    const bound = (i: number) => param(bounds[i] as Slot<Scalar>, (value) => shape.bind(column, value));
    /** The filtered rows from bucket `low` up to (not including) bucket `high`. */
    const within = (low: number, high: number) =>
      this.joined(
        this.filtered().where((eb) => eb.and([eb(at, '>=', bound(low)), eb(at, '<', bound(high))])),
      );
    /** The metrics' raw values over `rows`, named as the grouped rows name them. */
    const measured = (rows: DynamicSelect) => {
      let query = rows;
      for (const [i, metric] of shape.metrics.entries()) {
        query = query.select(this.metric(metric, true).as(rowAlias(metricAlias(i))));
        if (metric.fn === 'avg')
          query = query.select(sql`count(${this.metricColumn(metric)})`.as(rowAlias(averagedAlias(i))));
      }
      return query;
    };
    const buckets = bounds.length - 1;
    const grouped = (alias: string) => sql.ref(`${GROUPED}.${rowAlias(alias)}`);
    let query: DynamicSelect;
    const branched =
      shape.groups.length === 1 &&
      buckets <= this.dialect.bucketBranches &&
      // Each branch binds the filter's values again: the statement stays within SQLite's parameters.
      buckets * within(0, 1).compile().parameters.length <= MAX_PARAMETERS;
    if (branched) {
      const branches = Array.from({ length: buckets }, (_, k) =>
        measured(within(k, k + 1).select(sql.lit(k).as(rowAlias(groupAlias(bucketIndex))))),
      );
      const union = branches
        .slice(1)
        .reduce((all, branch) => all.unionAll(branch), branches[0] as DynamicSelect);
      query = this.db
        .selectFrom(union.as(GROUPED))
        .select(grouped(groupAlias(bucketIndex)).as(groupAlias(bucketIndex)));
    } else {
      const numbered = (low: number, high: number): RawBuilder<unknown> => {
        if (high - low === 1) return sql.lit(low);
        const middle = (low + high) >> 1;
        return sql`case when ${at} < ${bound(middle)} then ${numbered(low, middle)} else ${numbered(middle, high)} end`;
      };
      let rows = within(0, buckets);
      for (const [i, group] of shape.groups.entries())
        rows = rows.select(
          i === bucketIndex
            ? numbered(0, buckets).as(rowAlias(groupAlias(i)))
            : this.groupSelection(group, rowAlias(groupAlias(i))),
        );
      rows = this.groupedBy(measured(rows), shape, (i) =>
        i === bucketIndex ? sql.ref(rowAlias(groupAlias(i))) : undefined,
      );
      query = this.db
        .selectFrom(sql`(${numbersFrom(0, buckets)})`.as(BUCKETS))
        .leftJoin(rows.as(GROUPED), (join) =>
          join.onRef(`${GROUPED}.${rowAlias(groupAlias(bucketIndex))}`, '=', `${BUCKETS}.i`),
        );
      for (const [i] of shape.groups.entries())
        query = query.select(
          (i === bucketIndex ? sql.ref(`${BUCKETS}.i`) : grouped(groupAlias(i))).as(groupAlias(i)),
        );
    }
    // An empty bucket's row has no group: its counts are 0, its other metrics NULL, as SQL counts nothing.
    const metricValue = (metric: MetricTerm, i: number, raw = false) => {
      const value = grouped(metricAlias(i));
      if (metric.fn === 'count' || metric.fn === 'count_distinct') return sql`coalesce(${value}, 0)`;
      return raw ? value : this.selectedMetric(metric, value);
    };
    for (const [i, metric] of shape.metrics.entries()) {
      query = query.select(metricValue(metric, i).as(metricAlias(i)));
      if (metric.fn === 'avg') query = query.select(grouped(averagedAlias(i)).as(averagedAlias(i)));
    }
    for (const term of shape.having) {
      const metric = shape.metrics[term.metric] as MetricTerm;
      query = query.where((eb) =>
        this.havingCondition(eb, metricValue(metric, term.metric, true), shape, term),
      );
    }
    return this.aggregateOrder(query, shape, (i) => [grouped(metricAlias(i)), grouped(averagedAlias(i))]);
  }

  /** A group key as lists select its column, from the records or a joined relation. */
  private groupSelection(group: GroupTerm, alias: string) {
    return selectedColumn(group.column, this.groupTable(group), this.dialect, alias);
  }

  /** GROUP BY each group's column, or what `by` says for a group (the bucket's number). */
  private groupedBy(
    query: DynamicSelect,
    shape: AggregateShape,
    by: (index: number) => RawBuilder<unknown> | undefined,
  ): DynamicSelect {
    if (shape.groups.length === 0) return query;
    return query.groupBy(
      shape.groups.map((group, i) => by(i) ?? sql.ref(`${this.groupTable(group)}.${group.column.name}`)),
    );
  }

  /**
   * A having term's comparison of a metric's value: a min or max compared in order as its column's kind
   * compares (`KindSql.compare`: MariaDB's ENUM by its values' positions), else the plain operator.
   */
  private havingCondition(
    eb: Eb,
    value: Expression<unknown>,
    shape: AggregateShape,
    term: AggregateShape['having'][number],
  ): Bool {
    const op = havingSql[term.op];
    const metric = shape.metrics[term.metric] as MetricTerm;
    const column = metric.column as GroupTerm['column'] | undefined;
    const compare =
      column && (metric.fn === 'min' || metric.fn === 'max') && this.dialect.kinds[column.type]?.compare;
    const ordered =
      compare && op !== '=' && op !== '<>'
        ? compare(
            value,
            op,
            (bind) => param(term.value, (v) => bind(shape.bind(column, v) as Scalar)),
            column,
          )
        : undefined;
    return ordered ?? eb(value, op, this.havingValue(shape, term));
  }

  /** A having term's value, bound as its metric compares: a min or max as the column binds its values. */
  private havingValue(shape: AggregateShape, term: AggregateShape['having'][number]) {
    const metric = shape.metrics[term.metric] as MetricTerm;
    return metric.fn === 'min' || metric.fn === 'max'
      ? param(term.value, (v) => shape.bind(metric.column as GroupTerm['column'], v))
      : param(term.value);
  }

  /**
   * ORDER BY the requested keys and metrics by their aliases, an average by its answered value
   * (`averageKeys` of its raw sum and count, which `averaged` gives by the metric's index), then LIMIT.
   */
  private aggregateOrder(
    query: DynamicSelect,
    shape: AggregateShape,
    averaged?: (index: number) => readonly [RawBuilder<unknown>, RawBuilder<unknown>],
  ): DynamicSelect {
    for (const term of shape.order) {
      const average =
        term.of === 'metric' && shape.metrics[term.index]?.fn === 'avg' ? averaged?.(term.index) : undefined;
      const keys = average
        ? averageKeys(...average)
        : [sql.ref(term.of === 'group' ? groupAlias(term.index) : metricAlias(term.index))];
      for (const key of keys)
        query = query.orderBy(key, (ob) => {
          const ordered = term.direction === 'asc' ? ob.asc() : ob.desc();
          // NULL is the smallest value everywhere, as in lists.
          if (!this.dialect.nullsSortLargest) return ordered;
          return term.direction === 'asc' ? ordered.nullsFirst() : ordered.nullsLast();
        });
    }
    return query.limit(unplannedValue(this.dialect, shape.limit));
  }

  /** The table alias a column or path group reads from. */
  private groupTable(group: GroupTerm): string {
    return group.kind === 'path' ? this.joinOf(group.hops) : BASE;
  }

  private metricColumn(metric: MetricTerm) {
    return sql.ref(`${BASE}.${(metric.column as GroupTerm['column']).name}`);
  }

  /**
   * One metric's SQL: a count, an exact sum (a decimal's in units of its scale), or MIN/MAX selected as
   * the kind is selected in lists. `raw`: without the selection's form, as HAVING compares it.
   */
  private metric(metric: MetricTerm, raw = false) {
    if (metric.fn === 'count') return sql`count(*)`;
    const column = metric.column as GroupTerm['column'];
    const ref = this.metricColumn(metric);
    if (metric.fn === 'count_distinct') return sql`count(distinct ${ref})`;
    // MIN and MAX in the kind's order, where the engine takes them otherwise (`KindSql.order`).
    const order =
      (metric.fn === 'min' || metric.fn === 'max') && this.dialect.kinds[column.type]?.order?.(column);
    const value =
      metric.fn === 'min'
        ? order
          ? order.value(sql`min(${order.key(ref)})`)
          : sql`min(${ref})`
        : metric.fn === 'max'
          ? order
            ? order.value(sql`max(${order.key(ref)})`)
            : sql`max(${ref})`
          : sql`sum(${column.type === 'decimal' ? this.dialect.scaledUnits(ref, column) : ref})`;
    return raw ? value : this.selectedMetric(metric, value);
  }

  /**
   * A computed metric in the form it is read in: a MIN or MAX as lists select its column's kind, a sum
   * (an average's too) as a whole number the driver reads exactly (`SqlDialect.exactWhole`).
   */
  private selectedMetric(metric: MetricTerm, value: RawBuilder<unknown>) {
    if (metric.fn === 'sum' || metric.fn === 'avg') return this.dialect.exactWhole?.(value) ?? value;
    const column = metric.column as GroupTerm['column'];
    return this.dialect.kinds[column.type]?.select?.(value, column) ?? value;
  }

  /** A value of `column` (none: a count) as ORDER BY must see it to sort in its kind's order. */
  private kindOrdered(value: RawBuilder<unknown>, column: GroupTerm['column'] | undefined) {
    const order = column && this.dialect.kinds[column.type]?.order?.(column);
    return order ? order.key(value) : value;
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
   * holds each term's value by its `sortAlias`, in the kind's order where the union loses it:
   * `KindSql.order`); NULLS FIRST/LAST only where NULL can occur.
   */
  private ordered(query: DynamicSelect, sort: readonly SortTerm[], alias: string): DynamicSelect {
    for (const [i, term] of sort.entries()) {
      // The plain order is the one an index serves; a NOT NULL column never needs more.
      const nulls = this.dialect.nullsSortLargest && sortNullable(term, this.plan.resource);
      const by =
        alias !== BASE
          ? this.kindOrdered(sql.ref(`${alias}.${sortAlias(term, i)}`), sortColumn(term, this.plan.resource))
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
      if (limit !== undefined) part = part.limit(unplannedValue(this.dialect, limit));
      // Wrapped: SQLite allows no ORDER BY or LIMIT on a member of a compound SELECT.
      return this.db.selectFrom(part.as(`k${i}`)).selectAll();
    });
    const union = parts.slice(1).reduce((all, part) => all.unionAll(part), parts[0] as DynamicSelect);
    let query = this.ordered(this.db.selectFrom(union.as(PAGE)).selectAll(), sort, PAGE);
    if (limit !== undefined) query = query.limit(unplannedValue(this.dialect, limit));
    return query;
  }

  /** The alias of the last table a path's relations join (`selection`'s LEFT JOINs). */
  private joinOf(hops: readonly ResolvedRelation[]): string {
    return (this.joins.get(hops.map((hop) => hop.name).join('.')) as SortJoin).alias;
  }
}
