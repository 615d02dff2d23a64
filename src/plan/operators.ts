import type { ColumnType } from '../resource/types.js';

/**
 * How an operator's value is written:
 * - `scalar`: one value of the column's type;
 * - `text`: one string (pattern operators);
 * - `flag`: `true`/`1` (or `false`/`0`, which inverts the operator);
 * - `date`: one `YYYY-MM-DD`; `year`: one 4-digit year;
 * - `list`: one or more values (CSV, `[]` or indexed); `pair` and `datePair`: exactly two.
 */
export type ValueShape = 'scalar' | 'text' | 'flag' | 'date' | 'year' | 'list' | 'pair' | 'datePair';

/** What a filter targets: a column kind, or a path inside a JSON column (typed by the value). */
export type TargetKind = ColumnType | 'json-path';

const ordered: TargetKind[] = ['string', 'integer', 'decimal', 'date', 'datetime', 'json-path'];
const comparable: TargetKind[] = [...ordered, 'boolean'];
const textual: TargetKind[] = ['string', 'json-path'];
const temporal: TargetKind[] = ['date', 'datetime', 'json-path'];
const everything: TargetKind[] = [...comparable, 'json'];

export interface OperatorSpec {
  readonly shape: ValueShape;
  readonly targets: readonly TargetKind[];
}

/** The 23 operators of the spec: the value each takes and what it applies to. */
export const operators = {
  eq: { shape: 'scalar', targets: comparable },
  neq: { shape: 'scalar', targets: comparable },
  gt: { shape: 'scalar', targets: ordered },
  gte: { shape: 'scalar', targets: ordered },
  lt: { shape: 'scalar', targets: ordered },
  lte: { shape: 'scalar', targets: ordered },
  contains: { shape: 'text', targets: textual },
  not_contains: { shape: 'text', targets: textual },
  starts_with: { shape: 'text', targets: textual },
  not_starts_with: { shape: 'text', targets: textual },
  ends_with: { shape: 'text', targets: textual },
  not_ends_with: { shape: 'text', targets: textual },
  is_null: { shape: 'flag', targets: everything },
  is_not_null: { shape: 'flag', targets: everything },
  is_empty: { shape: 'flag', targets: textual },
  is_not_empty: { shape: 'flag', targets: textual },
  date_eq: { shape: 'date', targets: temporal },
  date_between: { shape: 'datePair', targets: temporal },
  year: { shape: 'year', targets: temporal },
  in: { shape: 'list', targets: comparable },
  not_in: { shape: 'list', targets: comparable },
  between: { shape: 'pair', targets: ordered },
  not_between: { shape: 'pair', targets: ordered },
} as const satisfies Record<string, OperatorSpec>;

export type OperatorName = keyof typeof operators;

export const operatorNames = Object.keys(operators) as OperatorName[];

export function isOperator(name: string): name is OperatorName {
  return Object.hasOwn(operators, name);
}

/** The operators a filter on this kind of target accepts (what the schema endpoint will advertise). */
export function operatorsFor(kind: TargetKind): OperatorName[] {
  return operatorNames.filter((name) => (operators[name].targets as readonly TargetKind[]).includes(kind));
}
