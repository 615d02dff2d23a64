import type {
  ColumnOptions,
  ColumnType,
  DatetimeStorage,
  RelationDefinition,
  ResourceDefinition,
  RowScope,
  ScopeCallback,
} from './types.js';

export interface ResolvedColumn {
  readonly name: string;
  readonly type: ColumnType;
  readonly hidden: boolean;
  readonly big: boolean;
  /** Can hold NULL: the database's answer when it gave one, else the declaration (default true). */
  readonly nullable: boolean;
  /** Decimal columns that declare them: `numeric(precision, scale)`. */
  readonly precision?: number;
  readonly scale?: number;
  /** Datetime columns: how instants are stored (`native` for every other column). */
  readonly storage: DatetimeStorage;
}

/** What the database says about one column (src/sql/catalog.ts). */
export interface CatalogColumn {
  readonly nullable: boolean;
  /** Its type as the database names it (`int4`, `varchar`, `longtext`, `INTEGER`), for messages. */
  readonly dataType?: string;
  /**
   * The declared kinds its type can serve; absent when the engine's types say nothing certain (SQLite,
   * whose column types are only affinities, or a type the catalog does not know: an enum, an array).
   */
  readonly kinds?: readonly ColumnType[];
}

/**
 * What the database says about its tables (src/sql/catalog.ts): read once at start-up, checked here
 * against every declared table, column and relation key.
 */
export interface Catalog {
  /**
   * Columns of every table and view, keyed by each name a declaration may use for it: `schema.table`,
   * and the bare name when one schema has it, or `public` does.
   */
  readonly tables: ReadonlyMap<string, ReadonlyMap<string, CatalogColumn>>;
  /** The tables as a declaration would name them: the candidates when a declared one is missing. */
  readonly names?: readonly string[];
  /** Names that exist (a query reads them) but the catalog does not describe: their declarations are trusted. */
  readonly unlisted?: ReadonlySet<string>;
  /** Declared tables the catalog does not list and the database refused to read, with its message. */
  readonly refused?: ReadonlyMap<string, string>;
}

/**
 * A relation with every key filled in. `parentKey` is on the parent table; `childKey` on the related
 * table; for many-to-many the pivot links `pivotParentKey` → parent and `pivotChildKey` → related.
 */
export interface ResolvedRelation {
  readonly name: string;
  readonly kind: RelationDefinition['kind'];
  readonly target: ResolvedResource;
  readonly parentKey: string;
  readonly childKey: string;
  readonly pivot?: { readonly table: string; readonly parentKey: string; readonly childKey: string };
}

export interface ResolvedResource {
  readonly name: string;
  readonly table: string;
  readonly primaryKey: string;
  readonly columns: ReadonlyMap<string, ResolvedColumn>;
  /** Selected columns, in declaration order (hidden ones left out). */
  readonly visibleColumns: readonly ResolvedColumn[];
  readonly relations: ReadonlyMap<string, ResolvedRelation>;
  readonly scopes: ReadonlyMap<string, ScopeCallback>;
  readonly softDeleteColumn: string | undefined;
  /** Row-level scope: applied wherever the resource is read (`ResourceDefinition.scope`). */
  readonly scope: RowScope | undefined;
}

export class ConfigurationError extends Error {
  override name = 'ConfigurationError';
}

function columnOptions(spec: ColumnType | ColumnOptions): ColumnOptions {
  return typeof spec === 'string' ? { type: spec } : spec;
}

/**
 * Resolves names between resources once, at start-up, and fails loudly on any inconsistency. `catalog`
 * (when the database could be read) overrides declared nullability: the database knows better.
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
    const primaryKey = definition.primaryKey ?? 'id';
    const known = catalog?.get(definition.table);
    for (const [name, spec] of Object.entries(definition.columns)) {
      // A column the table lacks would fail every request (and every PATCH) that names it: stop here.
      if (known && !known.has(name))
        throw new ConfigurationError(
          `Resource "${definition.name}": column "${definition.table}.${name}" is declared, but the database's table has no such column (it has ${[...known.keys()].join(', ')}).`,
        );
      const options = columnOptions(spec);
      checkDecimal(definition.name, name, options);
      if (options.storage !== undefined && options.type !== 'datetime')
        throw new ConfigurationError(
          `Resource "${definition.name}": column "${name}" declares a storage, which only datetime columns have.`,
        );
      columns.set(name, {
        ...(options.precision !== undefined && { precision: options.precision, scale: options.scale ?? 0 }),
        name,
        type: options.type,
        storage: options.type === 'datetime' ? (options.storage ?? definition.storage?.datetime ?? 'native') : 'native',
        hidden: options.hidden ?? false,
        big: options.big ?? false,
        // SQLite reports an INTEGER PRIMARY KEY as nullable; no engine lets a key be NULL.
        nullable: name !== primaryKey && (known?.get(name)?.nullable ?? options.nullable ?? true),
      });
    }
    if (!columns.has(primaryKey))
      throw new ConfigurationError(
        `Resource "${definition.name}": primary key "${primaryKey}" is not a declared column.`,
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
      columns,
      visibleColumns: [...columns.values()].filter((column) => !column.hidden),
      relations,
      scopes: new Map(Object.entries(definition.scopes ?? {})),
      softDeleteColumn: definition.softDeleteColumn,
      scope: definition.scope,
    });
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
  return resolved;
}

function checkDecimal(resource: string, name: string, options: ColumnOptions): void {
  const { precision, scale } = options;
  if (precision === undefined && scale === undefined) return;
  const where = `Resource "${resource}": column "${name}"`;
  if (options.type !== 'decimal')
    throw new ConfigurationError(`${where}: precision and scale are for decimal columns.`);
  if (precision === undefined || !Number.isInteger(precision) || precision < 1 || precision > 65)
    throw new ConfigurationError(`${where}: precision must be a whole number from 1 to 65.`);
  if (scale !== undefined && (!Number.isInteger(scale) || scale < 0 || scale > precision))
    throw new ConfigurationError(`${where}: scale must be a whole number from 0 to the precision.`);
}

function requireColumn(resource: ResolvedResource, column: string, relation: string): void {
  if (!resource.columns.has(column))
    throw new ConfigurationError(
      `Relation "${relation}": column "${column}" is not declared on resource "${resource.name}".`,
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
        childKey: relation.ownerKey ?? target.primaryKey,
      };
    case 'hasOne':
    case 'hasMany':
      return {
        name,
        kind: relation.kind,
        target,
        parentKey: relation.localKey ?? parent.primaryKey,
        childKey: relation.foreignKey,
      };
    case 'belongsToMany':
      return {
        name,
        kind: relation.kind,
        target,
        parentKey: relation.parentKey ?? parent.primaryKey,
        childKey: relation.relatedKey ?? target.primaryKey,
        pivot: {
          table: relation.pivot,
          parentKey: relation.foreignPivotKey,
          childKey: relation.relatedPivotKey,
        },
      };
  }
}

/**
 * Whether a read of `resource` can involve a row scope: its own, or one of a resource reachable
 * through its relations (relation filters, counts, includes, search). Such SQL depends on the
 * request's context and is never reused from one request to another.
 */
export function reachesScope(resource: ResolvedResource): boolean {
  const seen = new Set<ResolvedResource>();
  const visit = (current: ResolvedResource): boolean => {
    if (seen.has(current)) return false;
    seen.add(current);
    if (current.scope) return true;
    for (const relation of current.relations.values()) if (visit(relation.target)) return true;
    return false;
  };
  return visit(resource);
}
