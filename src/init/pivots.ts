import type { Link } from './keys.js';
import type { TableModel } from './model.js';
import { snakeCase } from './names.js';

/** A pivot table: two foreign keys to resources, reached through belongsToMany from both sides. */
export interface Pivot {
  table: string;
  a: Link;
  b: Link;
  /** Its other columns (`last_update`, `granted_by`): data of the pair that includes do not show yet. */
  payload: string[];
}

/** Columns a keyless pivot may have besides its two keys (and still be one). */
const pivotExtras = new Set(['id', 'created_at', 'updated_at']);

/**
 * The pivots between resources, by table name. A table is one when two of its single-column foreign
 * keys, to resources, are
 * - its primary key, exactly (`film_actor(actor_id, film_id)`), whatever its other columns;
 * - or a unique constraint over the two (`auth_user_groups`, with its own `id`), whatever its others;
 * - or, without either, its only columns besides an `id` and timestamps (`articles_tags`).
 * A table with its own single-column key is also a resource; one keyed by the pair is reached only
 * through the belongsToMany relations.
 */
export function findPivots(
  tables: TableModel[],
  links: Link[],
  resourceTables: Map<string, TableModel>,
): Map<string, Pivot> {
  const pivots = new Map<string, Pivot>();
  for (const table of tables) {
    if (table.isView) continue;
    const own = links.filter((link) => link.table === table.name && resourceTables.has(link.target));
    const byColumn = new Map(own.map((link) => [link.column, link]));
    const pair = (columns: readonly (string | null)[]): [Link, Link] | undefined => {
      if (columns.length !== 2) return undefined;
      const [a, b] = columns.map((column) => (column === null ? undefined : byColumn.get(column)));
      return a && b && a.column !== b.column ? [a, b] : undefined;
    };
    const keyed =
      pair(table.primaryKey) ??
      table.indexes
        .filter((index) => index.unique && !index.partial)
        .map((index) => pair(index.columns))
        .find((found) => found !== undefined);
    let found = keyed;
    // Neither: two keys and nothing but an id and timestamps.
    if (!found && own.length === 2) {
      const [a, b] = own as [Link, Link];
      const bare = table.columns.every(
        (column) =>
          column.name === a.column || column.name === b.column || pivotExtras.has(snakeCase(column.name)),
      );
      if (a.column !== b.column && bare) found = [a, b];
    }
    if (!found) continue;
    const [a, b] = found;
    const payload = table.columns
      .map((column) => column.name)
      .filter((column) => column !== a.column && column !== b.column && !table.primaryKey.includes(column));
    pivots.set(table.name, { table: table.name, a, b, payload });
  }
  return pivots;
}
