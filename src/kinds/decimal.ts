import { myNumbers, pgNumbers } from './engine-types.js';
import { fail, type Kind, type KindColumn, ok } from './kind.js';
import { orderOperators } from './operators.js';

/**
 * The largest magnitude of a decimal filter value or input without a declared precision: past it a
 * double no longer holds every cent.
 */
export const DECIMAL_LIMIT = 1e15;
export const decimalPattern = /^[+-]?(\d+(\.\d*)?|\.\d+)$/;

/** The range a decimal input takes: its `numeric(precision, scale)` when declared, else ±DECIMAL_LIMIT. */
export function decimalRange(column: Pick<KindColumn, 'precision' | 'scale'>): {
  min: number;
  max: number;
  /** The bound as written in messages (`9999999999.99`), exactly. */
  text: string;
} {
  const { precision, scale = 0 } = column;
  if (precision === undefined)
    return { min: -DECIMAL_LIMIT, max: DECIMAL_LIMIT, text: String(DECIMAL_LIMIT) };
  const text = `${'9'.repeat(precision - scale) || '0'}${scale > 0 ? `.${'9'.repeat(scale)}` : ''}`;
  return { min: -Number(text), max: Number(text), text };
}

/**
 * A decimal of a `numeric(precision, scale)` column written exactly, as text: at most
 * `precision - scale` digits before the point (no leading zero), at most `scale` after it — the
 * column's range and scale, which a JSON number cannot carry exactly (0.07 is no multiple of 0.01 in
 * binary floating point). Undefined without a declared precision or with no scale.
 */
export function decimalTextPattern(column: Pick<KindColumn, 'precision' | 'scale'>): string | undefined {
  const { precision, scale = 0 } = column;
  if (precision === undefined || scale === 0) return undefined;
  const whole = precision - scale;
  const integer = whole <= 0 ? '0' : whole === 1 ? '[0-9]' : `(0|[1-9][0-9]{0,${whole - 1}})`;
  return `^-?${integer}(\\.[0-9]{1,${scale}})?$`;
}

/** A decimal as a client writes it in a query string. */
export function coerceDecimal(text: string) {
  const value = Number(text);
  if (!decimalPattern.test(text) || !Number.isFinite(value)) return fail('a number');
  if (Math.abs(value) > DECIMAL_LIMIT) return fail(`a number between -${DECIMAL_LIMIT} and ${DECIMAL_LIMIT}`);
  return ok(value);
}

export const decimal: Kind = {
  label: 'decimal',
  operators: orderOperators,
  ordered: true,
  checksWrites: false,
  coerce: (_column, text) => coerceDecimal(text),
  read: (value) => (value === null || value === undefined ? null : Number(value)),
  schema: () => ({ type: 'number' }),
  table: 'number',
  input: 'number',
  options: ['precision', 'scale'],
  // The type's name: a sum's units of a MariaDB DECIMAL always fit its 65 digits, a DOUBLE's may not
  // (the dialect's `scaledUnits` tests those).
  fromCatalog: (type) => ({ catalogType: type }),
  serves: { postgres: pgNumbers, mysql: myNumbers },
  declaredFor: { postgres: ['float4', 'float8'], mysql: ['float', 'double'] },
};
