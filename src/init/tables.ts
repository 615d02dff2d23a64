import { columnKind } from './kinds.js';
import type { DatabaseModel, TableModel } from './model.js';
import { internalTableReason } from './names.js';
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
    const pkColumn = key.length === 1 ? table.columns.find((column) => column.name === key[0]) : undefined;
    if (table.isView) whyNot.set(table.name, 'a view: no primary key to page by (declare it by hand)');
    else if (key.length === 0) whyNot.set(table.name, 'no primary key: a resource needs one key column');
    else if (key.length > 1)
      whyNot.set(table.name, `composite primary key (${key.join(', ')}): a resource needs one key column`);
    else if (!pkColumn || 'skip' in columnKind(model.dialect, pkColumn))
      whyNot.set(table.name, `its primary key ${key[0]} has no column kind`);
    else resourceTables.set(table.name, table);
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
