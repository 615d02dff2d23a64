import { type Expression, type SqlBool, sql } from 'kysely';
import { BoundedMap } from '../plan/bounded-map.js';
import { type IncludeConstraint, type Scalar, type SortTerm, sortNullable } from '../plan/list-plan.js';
import { type ResolvedRelation, type ResolvedResource, reachesScope } from '../resource/registry.js';
import type { DynamicExpressionBuilder } from '../resource/types.js';
import { ConditionCompiler, resourceConditions } from './conditions.js';
import {
  type DynamicDb,
  type DynamicSelect,
  type SqlDialect,
  type Statement,
  type TopPerParent,
  unplannedValue,
} from './dialect.js';
import { type CompiledShape, SlottedStatement } from './prepared.js';
import { visibleSelection } from './selection.js';

/** The column each related row names its parent by. */
export const LINK = '__parent_key';
/** A limited include's rows: how many related rows of their parent match, before the limit. */
export const TOTAL = '__total';

/** One read of a constrained include's related rows, for one batch of parent keys. */
export interface ConstrainedRead {
  readonly relation: ResolvedRelation;
  /** The table of the records that include it (the parents' keys are read from it for LATERAL). */
  readonly parentTable: string;
  readonly constraint: IncludeConstraint;
  readonly keys: readonly unknown[];
  /** Only these columns (sparse fieldsets); every visible one when absent. */
  readonly columns: readonly string[] | undefined;
  readonly ctx: unknown;
}

/**
 * Compiled statements by constraint (one per include of a kept plan, so bounded with the plans), then
 * by what else the SQL depends on: building and compiling a Kysely query costs more than running it.
 */
const compiled = new WeakMap<IncludeConstraint, BoundedMap<string, CompiledShape>>();
const SHAPES_PER_CONSTRAINT = 32;
/** `reachesScope` per resource: the definitions do not change while the service runs. */
const scoped = new WeakMap<ResolvedResource, boolean>();
function reachesAnyScope(resource: ResolvedResource): boolean {
  let found = scoped.get(resource);
  if (found === undefined) {
    found = reachesScope(resource);
    scoped.set(resource, found);
  }
  return found;
}

/**
 * The statement of a constrained include (`include_filter`, `include_sort`, `include_limit`): the
 * related rows that match, in the include's order. Limited, each parent's first rows and their total
 * in one statement, arranged by the dialect (`SqlDialect.topPerParent`); unlimited, the same statement
 * as an include without constraints, with the filter and order added. Every value is a slot: the SQL
 * of one shape is compiled once and bound anew for each request, unless a callback (a row scope, a
 * scope filter) writes part of it.
 */
export function constrainedStatement(db: DynamicDb, dialect: SqlDialect, read: ConstrainedRead): Statement {
  const { relation, constraint, ctx } = read;
  const target = relation.target;
  const filters = new SlottedStatement(constraint.where);
  // The parents' keys the service read itself: the plan (the link's index) is the same for any of them.
  const keys = read.keys.map((key) => unplannedValue(dialect, filters.value(key as Scalar)));
  const limit = constraint.limit === undefined ? undefined : filters.value(constraint.limit);
  const cacheable = filters.cacheable && !reachesAnyScope(target);
  const key = `${dialect.name}|${read.parentTable}|${relation.name}|${read.columns?.join(',') ?? '*'}|${filters.key}`;
  const shapes = cacheable ? compiled.get(constraint) : undefined;
  const known = shapes?.get(key);
  if (known) return filters.bind(known);
  // One per statement: it numbers the aliases of relation filters, in every copy of the conditions.
  const conditions = new ConditionCompiler(dialect, ctx);
  const sort: readonly SortTerm[] =
    constraint.sort.length > 0
      ? constraint.sort
      : target.keyColumns.map((name) => ({ name, direction: 'asc' as const }));
  const link = (alias: string) =>
    relation.pivot ? `${alias}_p.${relation.pivot.parentKey}` : `${alias}.${relation.childKey}`;

  const matching = (alias: string, parent?: Expression<unknown>): DynamicSelect => {
    let query = relation.pivot
      ? db
          .selectFrom(`${relation.pivot.table} as ${alias}_p`)
          .innerJoin(
            `${target.table} as ${alias}`,
            `${alias}.${relation.childKey}`,
            `${alias}_p.${relation.pivot.childKey}`,
          )
      : db.selectFrom(`${target.table} as ${alias}`);
    query = parent
      ? query.where((eb) => eb(eb.ref(link(alias)), '=', parent))
      : query.where(link(alias), 'in', keys);
    if (filters.nodes.length === 0 && !target.softDeleteColumn && !target.scope) return query;
    return query.where((eb: DynamicExpressionBuilder) => {
      // The same conditions as every other read of the target (soft deletes, its row scope), then the client's.
      const parts: Expression<SqlBool>[] = [
        ...resourceConditions(eb, target, alias, ctx),
        ...filters.nodes.map((node) => conditions.node(eb, node, target, alias)),
      ];
      return eb.and(parts);
    });
  };
  const order = (alias: string) =>
    sort.map((term) => {
      const ref = sql.ref(`${alias}.${term.name}`);
      const direction = sql.raw(term.direction);
      // As in a list's ORDER BY: NULL is the smallest value everywhere, said only where it can occur.
      const nullable = sortNullable(term, target);
      if (!(dialect.nullsSortLargest && nullable)) return sql`${ref} ${direction}`;
      return sql`${ref} ${direction} ${sql.raw(term.direction === 'asc' ? 'nulls first' : 'nulls last')}`;
    });
  const selection = (alias: string) => visibleSelection(target, alias, dialect, read.columns);

  let query: DynamicSelect;
  if (limit === undefined) {
    query = order('r').reduce(
      (ordered, term) => ordered.orderBy(term),
      matching('r')
        .select(selection('r'))
        .select(sql.ref(link('r')).as(LINK)),
    );
  } else {
    const parts: TopPerParent = {
      db,
      table: target.table,
      keyColumns: target.keyColumns,
      limit,
      matching,
      link,
      order,
      selection,
      parents: () =>
        db
          .selectFrom(`${read.parentTable} as k`)
          .select(sql.ref(`k.${relation.parentKey}`).as(LINK))
          .distinct()
          .where(`k.${relation.parentKey}`, 'in', keys),
    };
    query = dialect.topPerParent(parts);
  }
  const shape = query.compile();
  if (cacheable) {
    const kept = shapes ?? new BoundedMap<string, CompiledShape>(SHAPES_PER_CONSTRAINT);
    kept.set(key, shape);
    if (!shapes) compiled.set(constraint, kept);
  }
  return filters.bind(shape);
}
