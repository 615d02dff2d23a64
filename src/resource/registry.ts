import type {
  BooleanStorage,
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
  /** Datetime and boolean columns: how values are stored (`native` for every other column). */
  readonly storage: DatetimeStorage | BooleanStorage;
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
  /** An integer column every update increments; the record's ETag comes from it. */
  readonly versionColumn: string | undefined;
}

export class ConfigurationError extends Error {
  override name = 'ConfigurationError';
}

function columnOptions(spec: ColumnType | ColumnOptions): ColumnOptions {
  return typeof spec === 'string' ? { type: spec } : spec;
}

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
    const primaryKey = definition.primaryKey ?? 'id';
    const known = catalog?.tables.get(definition.table);
    for (const [name, spec] of Object.entries(definition.columns)) {
      const options = columnOptions(spec);
      checkDecimal(definition.name, name, options);
      const storage = storageOf(definition, name, options);
      columns.set(name, {
        ...(options.precision !== undefined && { precision: options.precision, scale: options.scale ?? 0 }),
        name,
        type: options.type,
        storage,
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

const storages: Partial<Record<ColumnType, readonly string[]>> = {
  datetime: ['native', 'text', 'iso', 'unix-seconds', 'unix-milliseconds'],
  boolean: ['native', 'integer', 'text'],
};

/** A column's storage convention: its own, else the resource's for its kind, else `native`. */
function storageOf(
  definition: ResourceDefinition,
  name: string,
  options: ColumnOptions,
): DatetimeStorage | BooleanStorage {
  const known = storages[options.type];
  const where = `Resource "${definition.name}": column "${name}"`;
  if (!known) {
    if (options.storage !== undefined)
      throw new ConfigurationError(
        `${where} declares a storage, which only datetime and boolean columns have.`,
      );
    return 'native';
  }
  const resourceWide =
    options.type === 'datetime' ? definition.storage?.datetime : definition.storage?.boolean;
  const storage = options.storage ?? resourceWide ?? 'native';
  if (!known.includes(storage))
    throw new ConfigurationError(
      `${where}: storage "${storage}" is not one of ${known.join(', ')} (for ${options.type} columns).`,
    );
  return storage;
}

/**
 * Every declared table, column, relation key and pivot against the catalog: one line per mismatch,
 * naming `table.column` and what the database has instead. Pure: the catalog was read before.
 */
function verifyAgainstCatalog(
  definitions: readonly ResourceDefinition[],
  resolved: ReadonlyMap<string, ResolvedResource>,
  catalog: Catalog,
): string[] {
  const mismatches: string[] = [];
  /** The table's columns; undefined when they cannot be checked (a mismatch if the table is missing). */
  const columnsOf = (table: string, named: string): ReadonlyMap<string, CatalogColumn> | undefined => {
    const columns = catalog.tables.get(table);
    if (columns || catalog.unlisted?.has(table)) return columns;
    const refusal = catalog.refused?.get(table);
    mismatches.push(
      `${named} "${table}", which does not exist in the database${refusal ? ` (reading it fails: ${refusal})` : ''}; ${otherTables(table, catalog.names ?? [])}.`,
    );
    return undefined;
  };
  for (const definition of definitions) {
    const resource = resolved.get(definition.name) as ResolvedResource;
    const where = `Resource "${resource.name}"`;
    const columns = columnsOf(resource.table, `${where} names the table`);
    for (const column of columns ? resource.columns.values() : []) {
      const found = columns?.get(column.name);
      if (!found)
        mismatches.push(
          `${where}: column "${resource.table}.${column.name}" is declared, but the database's table has no such column (${otherColumns(column.name, columns)}).${joinsOn(resource, column.name, resolved)}`,
        );
      else if (found.kinds && !found.kinds.includes(storedKind(column)))
        mismatches.push(
          `${where}: column "${resource.table}.${column.name}" is declared ${described(column)}, but the database's column is ${found.dataType ?? 'of another type'}, which cannot hold it (${fitting(column, found.kinds)}).`,
        );
    }
    for (const relation of resource.relations.values()) {
      const { pivot } = relation;
      if (!pivot) continue;
      const pivotColumns = columnsOf(
        pivot.table,
        `${where}: relation "${relation.name}" names the pivot table`,
      );
      if (!pivotColumns) continue;
      for (const [option, column] of [
        ['foreignPivotKey', pivot.parentKey],
        ['relatedPivotKey', pivot.childKey],
      ] as const)
        if (!pivotColumns.has(column))
          mismatches.push(
            `${where}: relation "${relation.name}" joins through "${pivot.table}.${column}" (${option}), but the pivot table has no such column (${otherColumns(column, pivotColumns)}).`,
          );
    }
  }
  return mismatches;
}

/** The kind of the values a column holds in the database: its storage's, when it declares one. */
function storedKind(column: ResolvedColumn): ColumnType {
  if (
    column.storage === 'integer' ||
    column.storage === 'unix-seconds' ||
    column.storage === 'unix-milliseconds'
  )
    return 'integer';
  // 't'/'f' in a text column: any type that holds text fits, and every type can be read as text.
  if (column.type === 'boolean' && column.storage === 'text') return 'string';
  return column.type;
}

function described(column: ResolvedColumn): string {
  return column.storage === 'native' ? column.type : `${column.type} (storage: '${column.storage}')`;
}

/** What would fit the database's column: the kinds it serves, and the storages that would make it work. */
function fitting(column: ResolvedColumn, kinds: readonly ColumnType[]): string {
  const storages =
    column.type === 'datetime' && kinds.includes('integer')
      ? ` or storage: 'unix-seconds' / 'unix-milliseconds'`
      : column.type === 'boolean' && kinds.includes('integer')
        ? ` or storage: 'integer'`
        : column.type === 'boolean' && kinds.includes('json')
          ? ` or storage: 'text'`
          : '';
  return `it fits ${kinds.join(', ')}${storages}`;
}

/** The relations that join on `column` of `resource`, for a missing column's message. */
function joinsOn(
  resource: ResolvedResource,
  column: string,
  resolved: ReadonlyMap<string, ResolvedResource>,
): string {
  const names: string[] = [];
  for (const owner of resolved.values())
    for (const relation of owner.relations.values())
      if (
        (owner === resource && relation.parentKey === column) ||
        (relation.target === resource && relation.childKey === column)
      )
        names.push(`"${owner.name}.${relation.name}"`);
  if (names.length === 0) return '';
  return names.length === 1
    ? ` Relation ${names[0]} joins on it.`
    : ` Relations ${names.join(', ')} join on it.`;
}

function otherColumns(name: string, columns: ReadonlyMap<string, CatalogColumn> | undefined): string {
  const existing = [...(columns?.keys() ?? [])];
  const close = closest(name, existing);
  const guess = close.length ? `did you mean ${close.map((other) => `"${other}"`).join(' or ')}? ` : '';
  return `${guess}it has ${listed(existing)}`;
}

function otherTables(name: string, tables: readonly string[]): string {
  if (tables.length === 0) return 'the database has no tables at all (is it the right database?)';
  const close = closest(name, tables);
  const guess = close.length ? `did you mean ${close.map((other) => `"${other}"`).join(' or ')}? ` : '';
  return `${guess}it has ${listed(tables)}`;
}

/** Names, at most 30 of them. */
function listed(names: readonly string[]): string {
  return names.length <= 30
    ? names.join(', ')
    : `${names.slice(0, 30).join(', ')} … (${names.length} in all)`;
}

/**
 * Up to three of `candidates` that look like a mistyped `name`: the same but for case, a few edits
 * away (a third of its length), the same words in another order or number (`user_roles` and
 * `role_user`), or one inside the other (`dept` and `dept_id`).
 */
function closest(name: string, candidates: readonly string[]): string[] {
  const wanted = name.toLowerCase();
  const scored: { candidate: string; score: number }[] = [];
  for (const candidate of candidates) {
    const other = candidate.toLowerCase();
    const bare = other.slice(other.lastIndexOf('.') + 1);
    const edits = Math.min(editDistance(wanted, other), editDistance(wanted, bare));
    const distance = words(wanted) === words(bare) ? Math.min(edits, 1) : edits;
    const inside =
      Math.min(wanted.length, bare.length) >= 3 && (bare.includes(wanted) || wanted.includes(bare));
    if (distance <= Math.max(1, Math.floor(wanted.length / 3)) || inside)
      scored.push({ candidate, score: distance });
  }
  return scored
    .sort((a, b) => a.score - b.score || a.candidate.localeCompare(b.candidate))
    .slice(0, 3)
    .map(({ candidate }) => candidate);
}

/** The words of a snake_case or dotted name, singular, in order: `user_roles` → `role user`. */
function words(name: string): string {
  return name
    .split(/[^a-z0-9]+/)
    .map((word) => word.replace(/s$/, ''))
    .sort()
    .join(' ');
}

/** Levenshtein distance, with a swap of two neighbours counting as one edit. */
function editDistance(a: string, b: string): number {
  const rows: number[][] = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  const at = (i: number, j: number) => rows[i]?.[j] as number;
  for (let i = 1; i <= a.length; i++)
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        best = Math.min(best, at(i - 2, j - 2) + 1);
      (rows[i] as number[])[j] = best;
    }
  return at(a.length, b.length);
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
