import { isUniqueColumn, type Link } from './keys.js';
import type { TableModel } from './model.js';
import {
  camelName,
  pluralize,
  snakeCase,
  stripIdSuffix,
  toManyName,
  toOneName,
  upperFirst,
} from './names.js';
import type { Pivot } from './pivots.js';
import type { ColumnPlan, RelationPlan } from './plan-types.js';

/** What relations are drawn from: the links between application tables, their pivots, the resources. */
export interface RelationContext {
  links: Link[];
  pivots: Map<string, Pivot>;
  resourceTables: Map<string, TableModel>;
}

/**
 * A resource's relations, under one naming rule (docs/init.md):
 *
 * - every name is camelCase, whatever the catalog's style;
 * - `belongsTo`: the foreign key without its id suffix (`ArtistId` → `artist`, `SupportRepId` →
 *   `supportRep`, `user_id` → `user`); a key without one (`ReportsTo`) is named as it is when it is a
 *   self-reference or one of several keys to the same table, else after the table (`team_code` → `team`);
 * - `hasOne`/`hasMany`: the other table, singular or plural (`invoiceLines`, `profile`); when that table
 *   has several keys to this one, or refers to itself, the key comes first (`customerOrders`,
 *   `reportsToEmployees`), except a self-reference by `parent_id`, whose other side is `children`;
 * - `belongsToMany`: the other table, plural (`films`, `roles`); through a pivot between a table and
 *   itself, the other key, plural (`followers`, `followees`);
 * - a name a column or an earlier relation holds (belongsTo in column order, then hasOne/hasMany, then
 *   belongsToMany, tables by name) falls back to the next candidate, then to `<name>Relation`,
 *   `<name>Relation2`, … — deterministic for a given catalog.
 *
 * `notes` gets the links that make no relation.
 */
export function planRelations(
  table: TableModel,
  columns: ColumnPlan[],
  /** The table's one key column; undefined for a composite key (every relation then names its keys). */
  primaryKey: string | undefined,
  { links, pivots, resourceTables }: RelationContext,
  notes: string[],
): RelationPlan[] {
  const taken = new Set(columns.map((column) => column.name));
  const relations: RelationPlan[] = [];
  /** The first free candidate, else the first with a numbered `Relation` suffix that frees it. */
  const claim = (candidates: string[]) => {
    const names = candidates.filter((name) => name !== '');
    const first = names[0] ?? 'related';
    let name = names.find((candidate) => !taken.has(candidate)) ?? `${first}Relation`;
    for (let n = 2; taken.has(name); n++) name = `${first}Relation${n}`;
    taken.add(name);
    return name;
  };
  /** The key a relation to `name` joins by default: none for a composite key. */
  const primaryKeyOf = (name: string) => {
    const key = resourceTables.get(name)?.primaryKey;
    return key?.length === 1 ? key[0] : undefined;
  };
  const unique = (child: string, column: string) => {
    const model = resourceTables.get(child);
    return model !== undefined && isUniqueColumn(model, column);
  };
  /** How many keys `from` holds to `to`. */
  const keysBetween = (from: string, to: string) =>
    links.filter((link) => link.table === from && link.target === to).length;

  // belongsTo: this table holds the key.
  const position = (column: string) => columns.findIndex((candidate) => candidate.name === column);
  const own = links
    .filter((candidate) => candidate.table === table.name)
    .sort((a, b) => position(a.column) - position(b.column));
  for (const link of own) {
    if (!columns.some((column) => column.name === link.column)) continue;
    if (!resourceTables.has(link.target)) {
      notes.push(`${link.column} → ${link.target}: not a resource, no relation made.`);
      continue;
    }
    const base = stripIdSuffix(link.column);
    const byKey = link.target === table.name || keysBetween(table.name, link.target) > 1;
    const primary = base !== undefined ? camelName(base) : byKey ? camelName(link.column) : '';
    const name = claim([primary, toOneName(link.target), camelName(link.column)]);
    relations.push({
      kind: 'belongsTo',
      name,
      resource: link.target,
      foreignKey: link.column,
      ...(link.targetColumn !== primaryKeyOf(link.target) && { ownerKey: link.targetColumn }),
    });
  }

  // hasOne / hasMany: other resources hold a key to this table. A pivot is reached through belongsToMany;
  // one that is a resource too (its own id) also as a hasMany, which shows its other columns.
  const referring = links.filter(
    (link) => link.target === table.name && (!pivots.has(link.table) || resourceTables.has(link.table)),
  );
  for (const link of referring)
    if (!resourceTables.has(link.table))
      notes.push(
        `${link.table}.${link.column} refers to it, but ${link.table} is not a resource: no relation made.`,
      );
  const incoming = referring.filter((link) => resourceTables.has(link.table));
  for (const link of incoming) {
    const one = unique(link.table, link.column);
    const base = camelName(stripIdSuffix(link.column) ?? link.column);
    const noun = one ? toOneName(link.table) : toManyName(link.table);
    const self = link.table === table.name;
    const byKey = `${base}${upperFirst(noun)}`;
    const candidates =
      self && snakeCase(base) === 'parent' && !one
        ? ['children', byKey]
        : self || keysBetween(link.table, table.name) > 1
          ? [byKey]
          : [noun, byKey];
    relations.push({
      kind: one ? 'hasOne' : 'hasMany',
      name: claim(candidates),
      resource: link.table,
      foreignKey: link.column,
      ...(link.targetColumn !== primaryKey && { localKey: link.targetColumn }),
    });
  }

  // belongsToMany through pivot tables.
  for (const pivot of pivots.values()) {
    const sides: [Link, Link][] = [];
    if (pivot.a.target === table.name) sides.push([pivot.a, pivot.b]);
    if (pivot.b.target === table.name) sides.push([pivot.b, pivot.a]);
    for (const [mine, other] of sides) {
      const self = pivot.a.target === pivot.b.target;
      const name = self
        ? pluralize(camelName(stripIdSuffix(other.column) ?? other.column))
        : toManyName(other.target);
      const claimed = claim([name, `${name}Via${upperFirst(camelName(pivot.table))}`]);
      if (pivot.payload.length > 0)
        notes.push(
          resourceTables.has(pivot.table)
            ? `${claimed} goes through ${pivot.table}, a resource too: its ${pivot.payload.join(', ')} ${pivot.payload.length === 1 ? 'is' : 'are'} answered there (and by including it).`
            : `${claimed} goes through ${pivot.table}, whose ${pivot.payload.join(', ')} ${pivot.payload.length === 1 ? 'is' : 'are'} not shown: includes answer the related records, not the pivot's columns.`,
        );
      relations.push({
        kind: 'belongsToMany',
        name: claimed,
        resource: other.target,
        pivot: pivot.table,
        foreignPivotKey: mine.column,
        relatedPivotKey: other.column,
        ...(mine.targetColumn !== primaryKey && { parentKey: mine.targetColumn }),
        ...(other.targetColumn !== primaryKeyOf(other.target) && { relatedKey: other.targetColumn }),
      });
    }
  }
  return relations;
}
