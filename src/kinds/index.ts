/**
 * The column kinds, one definition each (./<kind>.ts). Adding a kind is a file here and an entry in
 * this table; the stages read it. The order is the order messages list kinds in.
 */
import { array } from './array.js';
import { bigint } from './bigint.js';
import { binary } from './binary.js';
import { boolean } from './boolean.js';
import { date } from './date.js';
import { datetime } from './datetime.js';
import { decimal } from './decimal.js';
import { enumKind } from './enum.js';
import { integer } from './integer.js';
import { interval } from './interval.js';
import { json } from './json.js';
import type { CatalogEngine, Kind } from './kind.js';
import { money } from './money.js';
import { network } from './network.js';
import { set } from './set.js';
import { string } from './string.js';
import { time } from './time.js';
import { uuid } from './uuid.js';

export const kinds = {
  string,
  integer,
  decimal,
  boolean,
  date,
  datetime,
  json,
  bigint,
  uuid,
  enum: enumKind,
  set,
  time,
  interval,
  network,
  money,
  binary,
  array,
} as const satisfies Record<string, Kind>;

/** The column kinds the service understands. Every filter value is coerced to its column's kind. */
export type ColumnType = keyof typeof kinds;

export const columnTypes = Object.keys(kinds) as ColumnType[];

export function kindOf(type: ColumnType): Kind {
  return kinds[type];
}

export { type ArrayElement, arrayElements } from './array.js';
export { coerceBoolean } from './boolean.js';
export { coerceDate, coerceDatetime, coerceYear, DATE_PATTERN, nextDay } from './calendar.js';
export { DECIMAL_LIMIT, decimalPattern, decimalRange, decimalTextPattern } from './decimal.js';
export { integerRange } from './integer.js';
export { type JsonReading, jsonReading } from './json.js';
export type {
  CatalogFacts,
  CatalogType,
  Coerced,
  InputType,
  JsonSchema,
  Kind,
  KindColumn,
  Scalar,
  TableColumnType,
} from './kind.js';
export { fail, ok } from './kind.js';
export { type OperatorName, operatorShapes, type ValueShape } from './operators.js';

const declared = new Map<string, ColumnType>();
for (const type of columnTypes)
  for (const [engine, names] of Object.entries(kinds[type].declaredFor ?? {}))
    for (const name of names) declared.set(`${engine}:${name}`, type);

/** The kind `init` declares for an engine type by its name alone (`Kind.declaredFor`), if any. */
export function declaredKind(engine: CatalogEngine, type: string): ColumnType | undefined {
  return declared.get(`${engine}:${type}`);
}
