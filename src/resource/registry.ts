import type { CatalogType } from '../kinds/index.js';
import type {
  BooleanStorage,
  ColumnType,
  DatetimeStorage,
  RelationDefinition,
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
  /** Enum and set columns: the values they take. */
  readonly values?: readonly string[];
  /** Array columns: their elements' kind, declared or read from the catalog (`KindColumn.of`). */
  readonly of?: string;
  /** The catalog's name of its type, where its kind asks for it (`Kind.fromCatalog`). */
  readonly catalogType?: CatalogType;
  /** Computed by the database: never written (`ColumnOptions.generated`). */
  readonly generated: boolean;
  /** Datetime and boolean columns: how values are stored (`native` for every other column). */
  readonly storage: DatetimeStorage | BooleanStorage;
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
  /** The primary key's column; undefined when the key has several columns (see `keyColumns`). */
  readonly primaryKey: string | undefined;
  /** The primary key's columns, in key order: one for most tables, several for a composite key. */
  readonly keyColumns: readonly string[];
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
