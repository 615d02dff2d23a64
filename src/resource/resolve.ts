import { ConfigurationError } from '../errors/configuration-error.js';
import { kinds } from '../kinds/index.js';
import { type Catalog, verifyAgainstCatalog } from './catalog.js';
import { checkDecimal, checkKindOptions, columnOptions, storageOf } from './columns.js';
import type { ResolvedColumn, ResolvedRelation, ResolvedResource } from './registry.js';
import type { RelationDefinition, ResourceDefinition } from './types.js';

/**
 * Resolves names between resources once, at start-up, and fails loudly on any inconsistency. `catalog`
 * (when the database could be read) overrides declared nullability — the database knows better — and
 * every declared table, column, relation key and pivot is checked against it: one ConfigurationError
 * lists every mismatch. Pure: the catalog is read before (src/sql/catalog.ts).
 */
export function resolveResources(
  definitions: readonly ResourceDefinition[],
  catalog?: Catalog,
): Map<string, ResolvedResource> {
  const byName = new Map<string, ResourceDefinition>();
  for (const definition of definitions) {
    if (byName.has(definition.name))
      throw new ConfigurationError(`Resource "${definition.name}" is defined twice.`);
    byName.set(definition.name, definition);
  }
  const resolved = new Map<string, ResolvedResource>();
  const relationMaps = new Map<string, Map<string, ResolvedRelation>>();
  for (const definition of definitions) {
    const columns = new Map<string, ResolvedColumn>();
    const keyColumns =
      typeof definition.primaryKey === 'object'
        ? [...definition.primaryKey]
        : [definition.primaryKey ?? 'id'];
    if (keyColumns.length === 0 || new Set(keyColumns).size !== keyColumns.length)
      throw new ConfigurationError(
        `Resource "${definition.name}": primaryKey lists its columns once each, at least one.`,
      );
    const primaryKey = keyColumns.length === 1 ? keyColumns[0] : undefined;
    const known = catalog?.tables.get(definition.table);
    for (const [name, spec] of Object.entries(definition.columns)) {
      const options = columnOptions(spec);
      checkDecimal(definition.name, name, options);
      checkKindOptions(definition.name, name, options);
      const storage = storageOf(definition, name, options);
      const found = known?.get(name);
      // What the column's type tells its kind (an array's element kind), where the declaration is silent.
      const fromCatalog =
        found?.dataType === undefined
          ? undefined
          : kinds[options.type].fromCatalog?.({
              name: found.dataType,
              ...(found.dataTypeSchema !== undefined && { schema: found.dataTypeSchema }),
              ...(catalog?.engine !== undefined && { engine: catalog.engine }),
            });
      columns.set(name, {
        ...fromCatalog,
        ...(options.precision !== undefined && { precision: options.precision, scale: options.scale ?? 0 }),
        name,
        type: options.type,
        storage,
        hidden: options.hidden ?? false,
        big: options.big ?? false,
        generated: options.generated ?? false,
        ...(options.values !== undefined && { values: options.values }),
        ...(options.of !== undefined && { of: options.of }),
        // SQLite reports an INTEGER PRIMARY KEY as nullable; no engine lets a key be NULL.
        nullable: !keyColumns.includes(name) && (found?.nullable ?? options.nullable ?? true),
      });
    }
    for (const key of keyColumns)
      if (!columns.has(key))
        throw new ConfigurationError(
          `Resource "${definition.name}": primary key "${key}" is not a declared column.`,
        );
    if (definition.softDeleteColumn && !columns.has(definition.softDeleteColumn))
      throw new ConfigurationError(
        `Resource "${definition.name}": soft-delete column "${definition.softDeleteColumn}" is not a declared column.`,
      );
    const relations = new Map<string, ResolvedRelation>();
    relationMaps.set(definition.name, relations);
    resolved.set(definition.name, {
      name: definition.name,
      table: definition.table,
      primaryKey,
      keyColumns,
      columns,
      visibleColumns: [...columns.values()].filter((column) => !column.hidden),
      relations,
      scopes: new Map(Object.entries(definition.scopes ?? {})),
      softDeleteColumn: definition.softDeleteColumn,
      scope: definition.scope,
      versionColumn: definition.versionColumn,
    });
    const version = definition.versionColumn ? columns.get(definition.versionColumn) : undefined;
    if (definition.versionColumn && (version?.type !== 'integer' || version.hidden))
      throw new ConfigurationError(
        `Resource "${definition.name}": versionColumn "${definition.versionColumn}" must be a visible integer column.`,
      );
  }
  for (const definition of definitions) {
    const parent = resolved.get(definition.name) as ResolvedResource;
    const relations = relationMaps.get(definition.name) as Map<string, ResolvedRelation>;
    for (const [name, relation] of Object.entries(definition.relations ?? {})) {
      if (parent.columns.has(name))
        throw new ConfigurationError(
          `Resource "${definition.name}": relation "${name}" has the name of a column.`,
        );
      const target = resolved.get(relation.resource);
      if (!target)
        throw new ConfigurationError(
          `Resource "${definition.name}": relation "${name}" names unknown resource "${relation.resource}".`,
        );
      const resolvedRelation = resolveRelation(name, relation, parent, target);
      requireColumn(parent, resolvedRelation.parentKey, name);
      requireColumn(target, resolvedRelation.childKey, name);
      relations.set(name, resolvedRelation);
    }
  }
  if (catalog) {
    // A table, column or key the database lacks would fail every request (and every PATCH) that names
    // it; a kind its type cannot hold would fail or mislead every filter on it. Stop here, all at once.
    const mismatches = verifyAgainstCatalog(definitions, resolved, catalog);
    if (mismatches.length === 1) throw new ConfigurationError(mismatches[0]);
    if (mismatches.length > 1)
      throw new ConfigurationError(
        `${mismatches.length} declarations do not match the database:\n${mismatches.map((line) => `- ${line}`).join('\n')}`,
      );
  }
  return resolved;
}

function requireColumn(resource: ResolvedResource, column: string, relation: string): void {
  if (!resource.columns.has(column))
    throw new ConfigurationError(
      `Relation "${relation}": column "${column}" is not declared on resource "${resource.name}".`,
    );
}

/** The one key column a relation joins on by default; a composite key has none to default to. */
function keyOf(resource: ResolvedResource, relation: string, option: string): string {
  if (resource.primaryKey !== undefined) return resource.primaryKey;
  throw new ConfigurationError(
    `Relation "${relation}" joins "${resource.name}", whose primary key has several columns (${resource.keyColumns.join(', ')}): declare its ${option}.`,
  );
}

function resolveRelation(
  name: string,
  relation: RelationDefinition,
  parent: ResolvedResource,
  target: ResolvedResource,
): ResolvedRelation {
  switch (relation.kind) {
    case 'belongsTo':
      return {
        name,
        kind: relation.kind,
        target,
        parentKey: relation.foreignKey,
        childKey: relation.ownerKey ?? keyOf(target, name, 'ownerKey'),
      };
    case 'hasOne':
    case 'hasMany':
      return {
        name,
        kind: relation.kind,
        target,
        parentKey: relation.localKey ?? keyOf(parent, name, 'localKey'),
        childKey: relation.foreignKey,
      };
    case 'belongsToMany':
      return {
        name,
        kind: relation.kind,
        target,
        parentKey: relation.parentKey ?? keyOf(parent, name, 'parentKey'),
        childKey: relation.relatedKey ?? keyOf(target, name, 'relatedKey'),
        pivot: {
          table: relation.pivot,
          parentKey: relation.foreignPivotKey,
          childKey: relation.relatedPivotKey,
        },
      };
  }
}
