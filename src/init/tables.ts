import { columnKind } from './kinds.js';
import type { DatabaseModel, TableModel } from './model.js';
import { internalTableReason, singularize, snakeCase } from './names.js';
import type { Pivot } from './pivots.js';
import type { SkippedTable } from './plan-types.js';

/**
 * Which tables can be resources: one key column of a kind the service knows. `candidates` are the
 * application tables (internal ones are `internal`, skipped); `whyNot` says why a candidate is no resource.
 */
export function classifyTables(model: DatabaseModel): {
  candidates: TableModel[];
  internal: SkippedTable[];
  resourceTables: Map<string, TableModel>;
  whyNot: Map<string, string>;
} {
  const internal: SkippedTable[] = [];
  const candidates: TableModel[] = [];
  for (const table of model.tables) {
    const reason = internalTableReason(table.name);
    if (reason) internal.push({ table: table.name, reason: `${reason}.` });
    else candidates.push(table);
  }
  const resourceTables = new Map<string, TableModel>();
  const whyNot = new Map<string, string>();
  for (const table of candidates) {
    const key = table.primaryKey;
    if (table.isView) {
      const found = viewKey(model, table);
      if (typeof found === 'string') whyNot.set(table.name, found);
      else resourceTables.set(table.name, { ...table, primaryKey: [found.key] });
    } else if (key.length === 0) whyNot.set(table.name, 'no primary key: a resource needs one key column');
    else {
      const unserved = key.find((name) => {
        const column = table.columns.find((candidate) => candidate.name === name);
        return !column || 'skip' in columnKind(model.dialect, column);
      });
      if (unserved !== undefined) whyNot.set(table.name, `its primary key ${unserved} has no column kind`);
      else resourceTables.set(table.name, table);
    }
  }
  return { candidates, internal, resourceTables, whyNot };
}

/** The tables that are not resources, by name, with why; a pivot says which resources it joins. */
export function skippedTables(
  internal: SkippedTable[],
  candidates: TableModel[],
  whyNot: Map<string, string>,
  pivots: Map<string, Pivot>,
): SkippedTable[] {
  const skipped = [...internal];
  for (const table of candidates) {
    const reason = whyNot.get(table.name);
    if (reason === undefined) continue;
    const pivot = pivots.get(table.name);
    skipped.push({
      table: table.name,
      reason: pivot
        ? `${reason}; the pivot of ${pivot.a.target} ↔ ${pivot.b.target}, reached through belongsToMany${pivot.payload.length > 0 ? ` (its ${pivot.payload.join(', ')} not shown)` : ''}.`
        : `${reason}.`,
    });
  }
  return skipped.sort((a, b) => (a.table < b.table ? -1 : a.table > b.table ? 1 : 0));
}

/**
 * The key of a view, which no catalog declares: a column named `id`, else `<view>_id` (the view's name
 * singular: `customer_list` → `customer_list_id`, or its first word: `actor_info` → `actor_id`), any
 * case, of a kind the service knows. Where the engine tells a view column's nullability (MariaDB), it
 * must be NOT NULL; PostgreSQL and SQLite call every view column nullable, so there the name decides,
 * and the comment says the key is assumed unique. Anything else: skipped, saying how to declare one.
 */
function viewKey(model: DatabaseModel, table: TableModel): { key: string } | string {
  const name = snakeCase(table.name);
  const first = name.split('_')[0] ?? name;
  const wanted = ['id', `${singularize(name)}_id`, `${singularize(first)}_id`];
  const candidates = wanted.flatMap((form) =>
    table.columns.filter((column) => snakeCase(column.name) === form),
  );
  const key = candidates.find(
    (column) =>
      !('skip' in columnKind(model.dialect, column)) && (model.dialect !== 'mysql' || !column.nullable),
  );
  if (key) return { key: key.name };
  const why =
    candidates.length > 0
      ? `its ${candidates[0]?.name} is nullable or of no column kind`
      : `no column named ${wanted.filter((form, i) => wanted.indexOf(form) === i).join(' or ')}`;
  return `a view without a key to page by (${why}): declare it by hand, with primaryKey naming a column unique in the view`;
}
