/** A value as the query string grammar delivers it: a string, a list, or bracketed keys. */
export type RawValue = string | RawValue[] | { [key: string]: RawValue };

/** One `filter[<name>]…` entry, its value still raw (its meaning depends on what `name` is). */
export interface FieldInput {
  readonly name: string;
  readonly raw: RawValue;
}

export interface GroupInput {
  readonly kind: 'and' | 'or';
  /** Each member is the AND of its own fields and groups. */
  readonly members: readonly ClauseInput[];
}

/** The AND of fields and groups at one level of the filter tree. */
export interface ClauseInput {
  readonly fields: readonly FieldInput[];
  readonly groups: readonly GroupInput[];
}

/** The constraints given for one include path, each still raw. */
export interface IncludeConstraintInput {
  filter?: ClauseInput;
  sort?: string;
  limit?: string;
}

/** The untrusted request, reduced to shapes: what `parse` hands to `authorize`. */
export interface ListRequest {
  readonly filter: ClauseInput;
  /** Every filter name the client wrote anywhere, even with an empty value (for default filters). */
  readonly mentioned: ReadonlySet<string>;
  /**
   * `fields[<owner>]=a,b` (sparse fieldsets), by owner as written: the resource's name or an include
   * path; `''` for a bare `fields=a,b`.
   */
  readonly fields: Readonly<Record<string, string>>;
  /**
   * `include_filter[<path>]…`, `include_sort[<path>]=…` and `include_limit[<path>]=…`, by include
   * path as written: what one include's related records are narrowed to.
   */
  readonly includeConstraints: Readonly<Record<string, IncludeConstraintInput>>;
  /** The other parameters, each given at most once. */
  readonly params: Readonly<Partial<Record<ScalarParam, string>>>;
  /** The raw query string (without `?`), kept to build page links. */
  readonly rawQuery: string;
}

export const scalarParams = [
  'page',
  'per_page',
  'pagination',
  'all',
  'include',
  'count',
  'sort',
  'search',
  'cursor',
  'format',
] as const;
export type ScalarParam = (typeof scalarParams)[number];

/**
 * The formats a list may be exported in (`format=` or `Accept`): every record of the request, as a
 * download. JSON is the list itself, not an export.
 */
export const exportFormats = ['csv', 'ndjson'] as const;
export type ExportFormat = (typeof exportFormats)[number];
