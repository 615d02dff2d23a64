import type { DialectName } from '../sql/dialect.js';
import { findSoftDelete, planColumns, recordNames } from './columns.js';
import { indexStatement, planEndpoint } from './endpoints.js';
import { compositeUniqueNotes, resolveLinks } from './keys.js';
import type { DatabaseModel, TableModel } from './model.js';
import { resourceVariables } from './names.js';
import { findPivots } from './pivots.js';
import type { ConfigPlan, ResourcePlan } from './plan-types.js';
import { planRelations, type RelationContext } from './relations.js';
import { classifyTables, skippedTables } from './tables.js';

export interface PlanOptions {
  /** Endpoints of tables create, update and delete (views never do); default: list and read only. */
  writable?: boolean;
}

/** What `init` declares for a database: pure, so that `generateConfig` (generate.ts) is too. */
export function planConfig(model: DatabaseModel, options: PlanOptions = {}): ConfigPlan {
  // Tables are classified first: a pivot only joins resources, and a skipped table names its pivot.
  const { candidates, internal, resourceTables, whyNot } = classifyTables(model);
  const { links, compositeNotes } = resolveLinks(candidates);
  const pivots = findPivots(candidates, links, resourceTables);
  // A pivot keyed by its pair is a resource too when it has columns of its own (its payload is then
  // listed, filtered and included); with nothing but its keys, the belongsToMany relations say it all.
  for (const pivot of pivots.values()) {
    const key = resourceTables.get(pivot.table)?.primaryKey ?? [];
    if (key.length > 1 && pivot.payload.length === 0) {
      resourceTables.delete(pivot.table);
      whyNot.set(pivot.table, `composite primary key (${key.join(', ')}) and no column of its own`);
    }
  }
  const context: RelationContext = { links, pivots, resourceTables };
  const tables = [...resourceTables.values()];
  const variables = resourceVariables(tables.map((table) => table.name));
  // Resources first, endpoints after: a relation filter names the related resource's label column.
  const planned = tables.map((table) =>
    planResource(model.dialect, table, context, compositeNotes.get(table.name) ?? []),
  );
  const related = new Map(planned.map((resource) => [resource.name, resource]));
  const resources = planned.map((resource, i) => ({
    ...resource,
    variable: variables[i] as string,
    endpoint: planEndpoint(
      model.dialect,
      tables[i] as TableModel,
      resource,
      related,
      options.writable ?? false,
    ),
  }));
  const skipped = skippedTables(internal, candidates, whyNot, pivots);
  return {
    dialect: model.dialect,
    schema: model.schema,
    resources,
    skipped,
    writable: options.writable ?? false,
    indexAdvice: resources.flatMap((resource) =>
      resource.endpoint.unindexedSorts.map((column) => indexStatement(model.dialect, resource.table, column)),
    ),
  };
}

function planResource(
  dialect: DialectName,
  table: TableModel,
  context: RelationContext,
  compositeNotes: string[],
): Omit<ResourcePlan, 'variable' | 'endpoint'> {
  const keyColumns = table.primaryKey;
  // One key column, or several: a composite key's records are listed and read, not written.
  const primaryKey = keyColumns.length === 1 ? (keyColumns[0] as string) : [...keyColumns];
  const notes = [...compositeUniqueNotes(table), ...compositeNotes];
  if (table.isView)
    notes.push(
      `A view, served read-only; its key ${keyColumns.join(', ')} is taken from its name, and assumed unique: the catalog cannot say.`,
    );
  if (keyColumns.length > 1)
    notes.push(
      `Composite primary key (${keyColumns.join(', ')}): read at /<path>/<${keyColumns.join('>,<')}>, served read-only.`,
    );
  const { columns, skippedColumns, datetimeStorage } = planColumns(dialect, table, keyColumns, context.links);
  const softDelete = findSoftDelete(columns);
  const single = typeof primaryKey === 'string' ? primaryKey : undefined;
  const relations = planRelations(table, columns, single, context, notes);
  const { label, title } = recordNames(table.name, columns);
  return {
    name: table.name,
    table: table.name,
    primaryKey,
    columns,
    skippedColumns,
    relations,
    view: table.isView,
    ...(label && { labelColumn: label.name }),
    ...(title && { titleColumns: title.map((column) => column.name) }),
    ...(table.sampledRows !== undefined && { sampledRows: table.sampledRows }),
    ...(softDelete && { softDeleteColumn: softDelete.name }),
    ...(datetimeStorage && { datetimeStorage }),
    notes,
  };
}
