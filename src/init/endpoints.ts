import type { TableModel } from './model.js';
import type { ColumnPlan, EndpointPlan, RelationPlan } from './plan-types.js';

/** The endpoint: only what the table serves well (a sort on a column without an index scans the table). */
export function planEndpoint(
  table: TableModel,
  columns: ColumnPlan[],
  primaryKey: string,
  softDeletes: boolean,
  relations: RelationPlan[],
): EndpointPlan {
  const visible = columns.filter((column) => !column.hidden && column.type !== 'json');
  const sortable = new Set<string>([primaryKey]);
  for (const index of table.indexes) {
    const [first] = index.columns;
    if (first) sortable.add(first);
  }
  return {
    resource: table.name,
    allowedFilters: [...visible.map((column) => column.name), ...(softDeletes ? ['trashed'] : [])],
    allowedSorts: [
      primaryKey,
      ...visible
        .filter((column) => column.name !== primaryKey && sortable.has(column.name))
        .map((column) => column.name),
    ],
    allowedIncludes: relations
      .filter((relation) => relation.kind === 'belongsTo' || relation.kind === 'hasOne')
      .map((relation) => relation.name),
    allowedCounts: relations
      .filter((relation) => relation.kind === 'hasMany')
      .map((relation) => relation.name),
    defaultSort: `-${primaryKey}`,
  };
}
