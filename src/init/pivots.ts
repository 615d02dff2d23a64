import type { Link } from './keys.js';
import type { TableModel } from './model.js';
import { snakeCase } from './names.js';

/** A pivot table: exactly two foreign keys, plus optionally an id and timestamps. */
export interface Pivot {
  table: string;
  a: Link;
  b: Link;
}

/**
 * Columns a pivot may have besides its two keys. A table with any other column carries data of its
 * own, which a belongsToMany (joining through the keys alone) would not show: it is no pivot.
 */
const pivotExtras = new Set(['id', 'created_at', 'updated_at']);

/** The pivots between resources, by table name: reached through belongsToMany from both sides. */
export function findPivots(
  tables: TableModel[],
  links: Link[],
  resourceTables: Map<string, TableModel>,
): Map<string, Pivot> {
  const pivots = new Map<string, Pivot>();
  for (const table of tables) {
    const own = links.filter((link) => link.table === table.name);
    if (own.length !== 2 || table.isView) continue;
    const [a, b] = own as [Link, Link];
    if (a.column === b.column) continue;
    if (!resourceTables.has(a.target) || !resourceTables.has(b.target)) continue;
    const fits = table.columns.every(
      (column) =>
        column.name === a.column || column.name === b.column || pivotExtras.has(snakeCase(column.name)),
    );
    if (fits) pivots.set(table.name, { table: table.name, a, b });
  }
  return pivots;
}
