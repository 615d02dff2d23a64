import { decimal } from './decimal.js';
import type { Kind } from './kind.js';

/**
 * PostgreSQL's `money`: a decimal in every respect but its type. The engine prints it in the session's
 * currency format (`$1,234.50`), so the PostgreSQL dialect selects it as numeric.
 */
export const money: Kind = {
  ...decimal,
  label: 'money',
  options: [],
  serves: { postgres: ['money'], mysql: [] },
  declaredFor: { postgres: ['money'] },
};
