import { fail, type Kind, ok } from './kind.js';
import { orderOperators } from './operators.js';

const durationPattern = /^P(?!$)(\d+Y)?(\d+M)?(\d+W)?(\d+D)?(T(?=\d)(\d+H)?(\d+M)?(\d+(\.\d+)?S)?)?$/;

interface IntervalParts {
  years?: number;
  months?: number;
  days?: number;
  hours?: number;
  minutes?: number;
  seconds?: number;
  milliseconds?: number;
}

/**
 * node-postgres's parsed interval → the shortest ISO 8601 form (`P1DT2H`, `PT0S` for none); its own
 * `toISOString` writes every part (`P0Y0M1DT2H0M0S`).
 */
function isoDuration(parts: IntervalParts): string {
  const part = (value: number | undefined, unit: string) => (value ? `${value}${unit}` : '');
  const fraction = parts.milliseconds ? parts.milliseconds / 1000 : 0;
  const seconds = (parts.seconds ?? 0) + fraction;
  const date = part(parts.years, 'Y') + part(parts.months, 'M') + part(parts.days, 'D');
  const clock =
    part(parts.hours, 'H') + part(parts.minutes, 'M') + (seconds ? `${Number(seconds.toFixed(6))}S` : '');
  if (!date && !clock) return 'PT0S';
  return `P${date}${clock ? `T${clock}` : ''}`;
}

/**
 * A duration (PostgreSQL's `interval`), written and answered in ISO 8601 (`P1DT2H30M`): the form every
 * language parses, and one PostgreSQL reads as input.
 */
export const interval: Kind = {
  label: 'interval',
  operators: orderOperators,
  ordered: true,
  checksWrites: true,
  coerce: (_column, text) =>
    durationPattern.test(text) ? ok(text) : fail('an ISO 8601 duration, such as P1DT2H30M'),
  read: (value) =>
    value === null || value === undefined
      ? null
      : typeof value === 'object'
        ? isoDuration(value as IntervalParts)
        : String(value),
  schema: () => ({ type: 'string', format: 'duration' }),
  table: 'text',
  input: 'text',
  options: [],
  serves: { postgres: ['interval'], mysql: [] },
  declaredFor: { postgres: ['interval'] },
};
