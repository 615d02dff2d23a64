import { coerceDate } from './calendar.js';
import { myTemporal, myText, pgTemporal, pgText } from './engine-types.js';
import type { Kind } from './kind.js';
import { calendarOperators, orderOperators } from './operators.js';

export const date: Kind = {
  label: 'date',
  operators: [...orderOperators, ...calendarOperators],
  ordered: true,
  checksWrites: false,
  coerce: (_column, text) => coerceDate(text),
  read: (value) =>
    value instanceof Date
      ? value.toISOString().slice(0, 10)
      : value === null
        ? null
        : String(value).slice(0, 10),
  schema: () => ({ type: 'string', format: 'date' }),
  table: 'date',
  input: 'date',
  options: [],
  // Dates stored as text are common (SQLite has no date type, older schemas on the others).
  serves: { postgres: [...pgText, ...pgTemporal], mysql: [...myText, ...myTemporal] },
  declaredFor: { postgres: ['date'], mysql: ['date'] },
};
