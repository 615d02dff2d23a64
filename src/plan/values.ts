import { type Coerced, decimalPattern, kinds } from '../kinds/index.js';
import type { ResolvedColumn } from '../resource/registry.js';
import type { JsonValueType, Scalar } from './list-plan.js';

export type { Coerced };

/** Coerces one value to a column's kind (src/kinds/<kind>.ts says how). */
export function coerceForColumn(column: ResolvedColumn, text: string): Coerced<Scalar> {
  return kinds[column.type].coerce(column, text);
}

/** `coerceForColumn` for one column, its kind looked up once: for a value coerced on every request. */
export function coercerFor(column: ResolvedColumn): (text: string) => Coerced<Scalar> {
  const kind = kinds[column.type];
  return (text) => kind.coerce(column, text);
}

/** Inside JSON the client's text says the type: numbers compare as numbers, true/false as booleans. */
export function jsonTypeOf(texts: readonly string[], allowBoolean: boolean): JsonValueType {
  if (texts.every((text) => decimalPattern.test(text) && Number.isFinite(Number(text)))) return 'number';
  if (allowBoolean && texts.every((text) => text === 'true' || text === 'false')) return 'boolean';
  return 'string';
}

/**
 * Text that no JSON number or boolean renders as: equality with it can only match a JSON string, on
 * every engine, so it needs no type test (a mixed list such as `in=5,abc` does).
 */
export function isPlainJsonText(value: Scalar): boolean {
  return typeof value === 'string' && value !== 'true' && value !== 'false' && !decimalPattern.test(value);
}

export function coerceForJson(type: JsonValueType, text: string): Scalar {
  if (type === 'number') return Number(text);
  if (type === 'boolean') return text === 'true';
  return text;
}
