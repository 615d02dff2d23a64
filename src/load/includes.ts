import type { IncludeNode } from '../plan/list-plan.js';
import type { ResourceRecord } from '../resource/policy.js';
import type { ResolvedRelation, ResolvedResource } from '../resource/registry.js';
import type { DynamicExpressionBuilder } from '../resource/types.js';
import { resourceConditions } from '../sql/conditions.js';
import type { Connection } from '../sql/connect.js';
import { type Row, type RunOptions, unplannedValues } from '../sql/dialect.js';
import { constrainedStatement, LINK, TOTAL } from '../sql/related.js';
import { visibleSelection } from '../sql/selection.js';
import { rowReader, subsetReader } from './row-reader.js';

/** Keys per `IN (…)`: under every engine's parameter limit (PostgreSQL 65535, SQLite 32766). */
const KEYS_PER_QUERY = 5000;

const toMany = (relation: ResolvedRelation) =>
  relation.kind === 'hasMany' || relation.kind === 'belongsToMany';

/**
 * Loads included relations onto `parents`, in place: one query per relation per level whatever the
 * number of parents (`WHERE key IN (…)`), related records in primary-key order, soft-deleted ones left
 * out. To-many relations become arrays (empty when none), to-one relations an object or null. A
 * constrained include's records are filtered and ordered as it says; a limited one's parents also get
 * `<relation>_total`, the number of related records its filter matches.
 */
export async function loadIncludes(
  connection: Connection,
  /** The resource the parents are records of. */
  owner: ResolvedResource,
  nodes: readonly IncludeNode[],
  parents: readonly ResourceRecord[],
  ctx: unknown,
  options?: RunOptions,
  /** Sparse fieldsets by include path (`ListPlan.fields`): a named one reads and answers only those. */
  fields?: ReadonlyMap<string, readonly string[]>,
  /**
   * The parents' rows, in the parents' order, where the keys are read from when the parents' records
   * answer only some fields (a key read for the work is not answered, so not on the record).
   */
  sources?: readonly Row[],
): Promise<void> {
  const keyOf = (i: number, key: string) => (sources ? sources[i] : parents[i])?.[key];
  for (const node of nodes) {
    const { relation } = node;
    const answered = fields?.get(node.path);
    // Its fields, and the keys its own includes are matched by (read, not answered).
    const columns = answered && [
      ...new Set([...answered, ...node.children.map((child) => child.relation.parentKey)]),
    ];
    const keys = [
      ...new Set(
        parents
          .map((_, i) => keyOf(i, relation.parentKey))
          .filter((key) => key !== null && key !== undefined),
      ),
    ];
    const byParent = new Map<string, ResourceRecord[]>();
    const totals = new Map<string, number>();
    const loaded: ResourceRecord[] = [];
    const loadedRows: Row[] = [];
    const read = answered ? subsetReader(relation.target, answered) : readerFor(relation.target);
    const { constraint } = node;
    for (let i = 0; i < keys.length; i += KEYS_PER_QUERY) {
      const batch = keys.slice(i, i + KEYS_PER_QUERY);
      const rows = constraint
        ? await connection.run(
            constrainedStatement(connection.db, connection.dialect, {
              relation,
              parentTable: owner.table,
              constraint,
              keys: batch,
              columns,
              ctx,
            }),
            options,
          )
        : await relatedRows(connection, relation, batch, ctx, options, columns);
      for (const row of rows) {
        const record = read(row);
        const key = String(row[LINK]);
        const list = byParent.get(key);
        if (list) list.push(record);
        else byParent.set(key, [record]);
        if (row[TOTAL] !== undefined) totals.set(key, Number(row[TOTAL]));
        loaded.push(record);
        loadedRows.push(row);
      }
    }
    const total = constraint?.limit !== undefined && `${relation.name}_total`;
    for (const [i, parent] of parents.entries()) {
      const key = String(keyOf(i, relation.parentKey));
      const related = byParent.get(key) ?? [];
      parent[relation.name] = toMany(relation) ? related : (related[0] ?? null);
      if (total) parent[total] = totals.get(key) ?? 0;
    }
    if (node.children.length > 0)
      await loadIncludes(
        connection,
        relation.target,
        node.children,
        loaded,
        ctx,
        options,
        fields,
        answered && loadedRows,
      );
  }
}

const readers = new WeakMap<ResolvedResource, ReturnType<typeof rowReader>>();
function readerFor(resource: ResolvedResource): ReturnType<typeof rowReader> {
  let read = readers.get(resource);
  if (!read) {
    read = rowReader(resource);
    readers.set(resource, read);
  }
  return read;
}

function relatedRows(
  connection: Connection,
  relation: ResolvedRelation,
  keys: unknown[],
  ctx: unknown,
  options: RunOptions | undefined,
  columns: readonly string[] | undefined,
): Promise<Row[]> {
  const target = relation.target;
  // The parents' keys the service read itself: the plan (the link's index) is the same for any of them.
  const linked = unplannedValues(connection.dialect, keys);
  let query = connection.db
    .selectFrom(`${target.table} as r`)
    .select(visibleSelection(target, 'r', connection.dialect, columns));
  if (relation.pivot) {
    query = query
      .innerJoin(`${relation.pivot.table} as p`, `p.${relation.pivot.childKey}`, `r.${relation.childKey}`)
      .select(`p.${relation.pivot.parentKey} as ${LINK}`)
      .where(`p.${relation.pivot.parentKey}`, 'in', linked);
  } else {
    query = query.select(`r.${relation.childKey} as ${LINK}`).where(`r.${relation.childKey}`, 'in', linked);
  }
  // The same conditions as every other read of the target: soft deletes and its row scope.
  if (target.softDeleteColumn || target.scope)
    query = query.where((eb: DynamicExpressionBuilder) => eb.and(resourceConditions(eb, target, 'r', ctx)));
  return connection.run(
    target.keyColumns.reduce((ordered, key) => ordered.orderBy(`r.${key}`), query).compile(),
    options,
  );
}
