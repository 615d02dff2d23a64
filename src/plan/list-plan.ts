import type { CatalogType } from '../kinds/index.js';
import type { ExportFormat, RawValue } from '../request/list-request.js';
import type { ResolvedColumn, ResolvedRelation, ResolvedResource } from '../resource/registry.js';
import type {
  BooleanStorage,
  ColumnType,
  CustomFilterCallback,
  DatetimeStorage,
  ScopeCallback,
} from '../resource/types.js';

/** A value coerced to its column's kind. Datetimes are UTC instants `YYYY-MM-DDTHH:MM:SS.sssZ`. */
export type Scalar = string | number | boolean;

/** How a value inside a JSON column is compared: chosen from the client's value, never guessed by SQL. */
export type JsonValueType = 'string' | 'number' | 'boolean';

/**
 * How a plan holds the client's values: `authorize` makes plans with the values themselves; the SQL
 * compiler sees plans whose values are replaced by slots (src/sql/prepared.ts), so one compiled shape
 * serves every request that differs only in its values.
 */
export interface PlanValues {
  readonly scalar: unknown;
  readonly text: unknown;
}
/** The plan `authorize` makes: coerced client values. */
export interface ClientValues extends PlanValues {
  readonly scalar: Scalar;
  readonly text: string;
}

export type Condition<V extends PlanValues = ClientValues> = ConditionBody<V> & {
  /** Inside a JSON column: how this condition's values compare. */
  readonly jsonType?: JsonValueType;
};

type ConditionBody<V extends PlanValues> =
  | { readonly op: 'eq' | 'neq' | 'gt' | 'gte' | 'lt' | 'lte'; readonly value: V['scalar'] }
  | {
      readonly op:
        | 'contains'
        | 'not_contains'
        | 'starts_with'
        | 'not_starts_with'
        | 'ends_with'
        | 'not_ends_with';
      readonly value: V['text'];
    }
  /** `negate` is set by the value `false`/`0`. */
  | { readonly op: 'is_null'; readonly negate: boolean }
  | { readonly op: 'is_empty'; readonly negate: boolean }
  | { readonly op: 'in' | 'not_in'; readonly value: readonly V['scalar'][] }
  /** A collection column (an array, a set) holds every one (`has_all`) or one at least (`has_any`) of the members. */
  | { readonly op: 'has_all' | 'has_any'; readonly value: readonly V['scalar'][] }
  | { readonly op: 'between' | 'not_between'; readonly value: readonly [V['scalar'], V['scalar']] }
  /** `date_eq`, `date_between` and `year` become a half-open range `from <= x < to` (no `to` past 9999). */
  | { readonly op: 'range'; readonly from: V['scalar']; readonly to?: V['scalar'] };

/** What a filter names: a column of the base table, or one reached through relations, maybe inside JSON. */
export interface FieldTarget {
  /** Relations walked from the base resource, in order (empty for a direct column). */
  readonly hops: readonly ResolvedRelation[];
  readonly column: string;
  readonly columnType: ColumnType;
  /** How the column stores datetimes or booleans (`native` for other kinds). */
  readonly storage: DatetimeStorage | BooleanStorage;
  /** Keys inside a JSON column, when the filter reaches into one. */
  readonly jsonPath?: readonly string[];
  /** The catalog's name of the column's type, where its kind asks for it (`KindColumn.catalogType`). */
  readonly catalogType?: CatalogType;
}

export type FilterNode<V extends PlanValues = ClientValues> =
  | { readonly kind: 'and' | 'or'; readonly children: readonly FilterNode<V>[] }
  /** Several conditions on one filter name: AND-ed, on the same related record for relation filters. */
  | { readonly kind: 'field'; readonly target: FieldTarget; readonly conditions: readonly Condition<V>[] }
  | { readonly kind: 'scope'; readonly scope: ScopeCallback; readonly value: boolean }
  | {
      readonly kind: 'custom';
      readonly name: string;
      readonly callback: CustomFilterCallback;
      readonly value: RawValue;
    };

export interface SortTerm {
  /** As `sort` names it: a column of the records, a to-one path (`department.name`), or `<relation>_count`. */
  readonly name: string;
  readonly direction: 'asc' | 'desc';
  /** How a term that is not a column of the records is reached (`SortThrough`); undefined for a column. */
  readonly through?: SortThrough;
}

/**
 * A sort on something else than the records' own columns: a column of a to-one relation, reached by
 * LEFT JOINs on the related keys (a missing or hidden related record sorts as NULL), or a relation's
 * count, with the same scopes as `count=`.
 */
export type SortThrough =
  | { readonly kind: 'path'; readonly hops: readonly ResolvedRelation[]; readonly column: ResolvedColumn }
  | { readonly kind: 'count'; readonly relation: ResolvedRelation };

/**
 * The name a sort term's value has in a row: a column's own, a count's `<relation>_count` (the name
 * `count=` answers it by), a path's `__sort_<i>` (its place in the sort). A cursor reads it from there.
 */
export const sortAlias = (term: SortTerm, index: number): string =>
  term.through?.kind === 'path' ? `__sort_${index}` : term.name;

/** The column a sort term orders by: the records' own, or a to-one path's; undefined for a count. */
export const sortColumn = (term: SortTerm, resource: ResolvedResource): ResolvedColumn | undefined => {
  if (!term.through) return resource.columns.get(term.name);
  return term.through.kind === 'path' ? term.through.column : undefined;
};

/** Whether a sort term's value can be NULL: a path's can (no related record, or one hidden from this request). */
export const sortNullable = (term: SortTerm, resource: ResolvedResource): boolean => {
  if (term.through) return term.through.kind === 'path';
  return resource.columns.get(term.name)?.nullable !== false;
};

/** A relation to load with the records, and the relations to load with its records. */
export interface IncludeNode {
  readonly relation: ResolvedRelation;
  readonly children: readonly IncludeNode[];
  /** Its path from the records (`roles`, `posts.comments`): its key in `ListPlan.fields`. */
  readonly path: string;
  /** `include_filter`, `include_sort`, `include_limit` (or the policy's `maxLimit`) for this include. */
  readonly constraint?: IncludeConstraint;
}

/** What one (to-many) include's related records are narrowed to, per parent. */
export interface IncludeConstraint {
  /** AND of these, on the related resource (its scopes and soft deletes apply as ever). */
  readonly where: readonly FilterNode[];
  /** The related records' order, the key columns last (a total order); empty: the key's order. */
  readonly sort: readonly SortTerm[];
  /** At most this many related records per parent; the parent then gets `<relation>_total`. */
  readonly limit?: number;
}

/** A decoded cursor: the sort values of the record it points past, exactly as stored. */
export interface Cursor {
  readonly direction: 'next' | 'prev';
  readonly values: readonly CursorValue[];
}
export type CursorValue = string | number | boolean | null;

/** How the records are cut: the three pagination strategies, or every record. */
export type PageMode =
  | { readonly kind: 'length-aware'; readonly page: number; readonly perPage: number }
  | { readonly kind: 'simple'; readonly page: number; readonly perPage: number }
  | { readonly kind: 'cursor'; readonly perPage: number; readonly cursor: Cursor | undefined }
  | { readonly kind: 'all'; readonly max: number | 'unlimited' };

/** What the SQL of a list depends on: the plan without its pagination and includes. */
export interface QueryShape<V extends PlanValues = ClientValues> {
  readonly resource: ResolvedResource;
  /** AND of these. */
  readonly where: readonly FilterNode<V>[];
  /** The `trashed` filter: soft-deleted rows are included. */
  readonly withTrashed: boolean;
  readonly sort: readonly SortTerm[];
  /** Relations whose record counts are added as `<relation>_count`. */
  readonly counts: readonly ResolvedRelation[];
  /**
   * The columns the records' statement reads, when `fields` narrows them: those answered, the key,
   * the sort's, the includes' keys. Undefined: every visible column.
   */
  readonly columns?: readonly string[];
}

/** The authorized request: the only input of the SQL stage. */
export interface ListPlan extends QueryShape {
  readonly mode: PageMode;
  readonly includes: readonly IncludeNode[];
  /**
   * Sparse fieldsets: the columns answered, by owner (`''` the records, an include path its related
   * records), the key columns among them. An owner `fields` does not name answers every visible column.
   */
  readonly fields: ReadonlyMap<string, readonly string[]>;
  /** An export (`format=csv`, `Accept: text/csv`…): every record (mode `all`), written in this format. */
  readonly export?: ExportFormat;
}
