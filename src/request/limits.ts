/** Limits on what one request may ask for. Each one, when exceeded, is a 422 that names it. */
export interface Limits {
  /** Length of the raw query string, in characters. */
  maxQueryLength: number;
  /** Nesting depth of `and`/`or` groups (`filter[or][0][and][0][x]` is depth 2). */
  maxGroupDepth: number;
  /** Number of conditions (one per filter and operator) in the whole request. */
  maxConditions: number;
  /** Number of values in an `in` / `not_in` list. */
  maxListLength: number;
  /** Length of one filter value, in characters. */
  maxValueLength: number;
}

export const defaultLimits: Limits = {
  maxQueryLength: 8192,
  maxGroupDepth: 4,
  maxConditions: 50,
  maxListLength: 100,
  maxValueLength: 500,
};
