import { type Expression, type SqlBool, sql } from 'kysely';
import type { QueryShape, SortTerm } from '../plan/list-plan.js';
import type { EndpointPolicy } from '../resource/policy.js';
import type { DynamicExpressionBuilder } from '../resource/types.js';
import { ConditionCompiler, endpointConditions } from './conditions.js';
import type { DynamicDb, DynamicSelect, SqlDialect } from './dialect.js';
import { type Branch, keysetBranches, keysetCondition, keysetGroups, oneRange } from './keyset.js';
import { visibleSelection } from './selection.js';
import { param, type SlotRowsOptions, type SlotValues } from './slots.js';

type Eb = DynamicExpressionBuilder;
type Bool = Expression<SqlBool>;

const BASE = 't0';
/** The alias of a branched keyset page's union (`branchedRows`). */
const PAGE = 'page';

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

  constructor(
    private readonly db: DynamicDb,
    private readonly dialect: SqlDialect,
    private readonly plan: QueryShape<SlotValues>,
    private readonly policy: EndpointPolicy,
    /** The request's context, for the callbacks (row scopes, `baseQuery`, scopes, custom filters). */
    private readonly ctx: unknown,
  ) {
    this.conditions = new ConditionCompiler(dialect, ctx);
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
      ? keysetGroups(this.dialect, sort, options.after, BASE, (column) => this.nullable(column))
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

  /** The filtered records' visible columns and requested counts, unordered. */
  private selection(): DynamicSelect {
    const { resource, counts, columns } = this.plan;
    let query = this.filtered().select(visibleSelection(resource, BASE, this.dialect, columns));
    for (const relation of counts)
      query = query.select((eb) =>
        this.conditions
          .relationFrom(eb, relation, BASE)
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

  /** Whether a sort column can hold NULL: ORDER BY and the keyset conditions must agree on it. */
  private nullable(column: string): boolean {
    return this.plan.resource.columns.get(column)?.nullable !== false;
  }
}
