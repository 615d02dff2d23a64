import { myText, pgText } from './engine-types.js';
import { fail, type Kind, ok } from './kind.js';
import { equalityOperators } from './operators.js';

/**
 * One of a fixed list of values: PostgreSQL enum types, MySQL `ENUM`, text with a CHECK. The values are
 * declared (`values`; `init` copies them from the catalog), so a value outside them is refused naming
 * the list, before the database would refuse it as a type error.
 */
export const enumKind: Kind = {
  label: 'enum',
  operators: equalityOperators,
  // PostgreSQL and MariaDB sort an enum by its values' declared order, SQLite (text) alphabetically;
  // a cursor compares it in the same order on each (MariaDB's: `KindSql.compare`, its dialect).
  ordered: true,
  checksWrites: true,
  coerce: (column, text) =>
    column.values?.includes(text) ? ok(text) : fail(`one of ${(column.values ?? []).join(', ')}`),
  schema: (column) => ({ type: 'string', enum: [...(column.values ?? [])] }),
  table: 'badge',
  input: 'select',
  options: ['values'],
  // The type's name: MariaDB compares an ENUM in its own way, and text declared `enum` as text.
  fromCatalog: (type) => ({ catalogType: type }),
  // A PostgreSQL enum's catalog type is its own name, so it is not checked.
  serves: { postgres: pgText, mysql: ['enum', ...myText] },
};
