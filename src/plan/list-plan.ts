import type { RawValue } from '../request/list-request.js';
import type { ResolvedRelation, ResolvedResource } from '../resource/registry.js';
import type { ColumnType, CustomFilterCallback, ScopeCallback } from '../resource/types.js';

/** A value coerced to its column's kind. Datetimes are UTC instants `YYYY-MM-DDTHH:MM:SS.sssZ`. */
export type Scalar = string | number | boolean;

/** How a value inside a JSON column is compared: chosen from the client's value, never guessed by SQL. */
export type JsonValueType = 'string' | 'number' | 'boolean';

export type Condition = ConditionBody & {
  /** Inside a JSON column: how this condition's values compare. */
  readonly jsonType?: JsonValueType;
};

type ConditionBody =
  | { readonly op: 'eq' | 'neq' | 'gt' | 'gte' | 'lt' | 'lte'; readonly value: Scalar }
  | {
      readonly op:
        | 'contains'
        | 'not_contains'
        | 'starts_with'
        | 'not_starts_with'
        | 'ends_with'
        | 'not_ends_with';
      readonly value: string;
    }
  /** `negate` is set by the value `false`/`0`. */
  | { readonly op: 'is_null'; readonly negate: boolean }
  | { readonly op: 'is_empty'; readonly negate: boolean }
  | { readonly op: 'in' | 'not_in'; readonly value: readonly Scalar[] }
  | { readonly op: 'between' | 'not_between'; readonly value: readonly [Scalar, Scalar] }
  /** `date_eq`, `date_between` and `year` become a half-open range `from <= x < to` (no `to` past 9999). */
  | { readonly op: 'range'; readonly from: Scalar; readonly to?: Scalar };

/** What a filter names: a column of the base table, or one reached through relations, maybe inside JSON. */
export interface FieldTarget {
  /** Relations walked from the base resource, in order (empty for a direct column). */
  readonly hops: readonly ResolvedRelation[];
  readonly column: string;
  readonly columnType: ColumnType;
  /** Keys inside a JSON column, when the filter reaches into one. */
  readonly jsonPath?: readonly string[];
}

export type FilterNode =
  | { readonly kind: 'and' | 'or'; readonly children: readonly FilterNode[] }
  /** Several conditions on one filter name: AND-ed, on the same related record for relation filters. */
  | { readonly kind: 'field'; readonly target: FieldTarget; readonly conditions: readonly Condition[] }
  | { readonly kind: 'scope'; readonly scope: ScopeCallback; readonly value: boolean }
  | {
      readonly kind: 'custom';
      readonly name: string;
      readonly callback: CustomFilterCallback;
      readonly value: RawValue;
    };

export interface SortTerm {
  readonly column: string;
  readonly direction: 'asc' | 'desc';
}

/** A relation to load with the records, and the relations to load with its records. */
export interface IncludeNode {
  readonly relation: ResolvedRelation;
  readonly children: readonly IncludeNode[];
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

/** The authorized request: the only input of `compile`. */
export interface ListPlan {
  readonly resource: ResolvedResource;
  /** AND of these. */
  readonly where: readonly FilterNode[];
  /** The `trashed` filter: soft-deleted rows are included. */
  readonly withTrashed: boolean;
  readonly sort: readonly SortTerm[];
  readonly mode: PageMode;
  readonly includes: readonly IncludeNode[];
  /** Relations whose record counts are added as `<relation>_count`. */
  readonly counts: readonly ResolvedRelation[];
}
