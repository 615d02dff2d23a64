import { isUniqueColumn, type Link } from './keys.js';
import type { TableModel } from './model.js';
import { collectionName, lowerFirst, pluralize, singularize, snakeCase, stripIdSuffix } from './names.js';
import type { Pivot } from './pivots.js';
import type { ColumnPlan, RelationPlan } from './plan-types.js';

/** What relations are drawn from: the links between application tables, their pivots, the resources. */
export interface RelationContext {
  links: Link[];
  pivots: Map<string, Pivot>;
  resourceTables: Map<string, TableModel>;
}

/**
 * A resource's relations, named so that none shadows a column or another relation; `notes` gets the
 * links that make none.
 */
export function planRelations(
  table: TableModel,
  columns: ColumnPlan[],
  primaryKey: string,
  { links, pivots, resourceTables }: RelationContext,
  notes: string[],
): RelationPlan[] {
  const taken = new Set(columns.map((column) => column.name));
  const relations: RelationPlan[] = [];
  /** The first free candidate, else the first with a suffix that frees it. */
  const claim = (candidates: string[]) => {
    const names = candidates.filter((name) => name !== '');
    const first = names[0] ?? 'related';
    let name = names.find((candidate) => !taken.has(candidate)) ?? `${first}_relation`;
    for (let n = 2; taken.has(name); n++) name = `${first}_relation${n}`;
    taken.add(name);
    return name;
  };
  const primaryKeyOf = (name: string) => resourceTables.get(name)?.primaryKey[0];
  const unique = (child: string, column: string) => {
    const model = resourceTables.get(child);
    return model !== undefined && isUniqueColumn(model, column);
  };

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
    const name = claim([base ?? '', singularize(lowerFirst(link.target)), `${link.column}_${link.target}`]);
    relations.push({
      kind: 'belongsTo',
      name,
      resource: link.target,
      foreignKey: link.column,
      ...(link.targetColumn !== primaryKeyOf(link.target) && { ownerKey: link.targetColumn }),
    });
  }

  // hasOne / hasMany: other resources hold a key to this table (pivots are reached through belongsToMany).
  const referring = links.filter((link) => link.target === table.name && !pivots.has(link.table));
  for (const link of referring)
    if (!resourceTables.has(link.table))
      notes.push(
        `${link.table}.${link.column} refers to it, but ${link.table} is not a resource: no relation made.`,
      );
  const incoming = referring.filter((link) => resourceTables.has(link.table));
  for (const link of incoming) {
    const one = unique(link.table, link.column);
    const siblings = incoming.filter((other) => other.table === link.table).length;
    const base = stripIdSuffix(link.column) ?? link.column;
    const plural = collectionName(link.table);
    const noun = one ? singularize(lowerFirst(link.table)) : plural;
    const self = link.table === table.name;
    const candidates =
      self && snakeCase(base) === 'parent' && !one
        ? ['children', `${noun}_as_${base}`]
        : siblings > 1 || self
          ? [`${noun}_as_${base}`]
          : [noun, `${noun}_as_${base}`];
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
      const otherBase = stripIdSuffix(other.column) ?? other.column;
      const candidates = self
        ? [pluralize(otherBase), `${pluralize(otherBase)}_via_${pivot.table}`]
        : [collectionName(other.target), `${collectionName(other.target)}_via_${pivot.table}`];
      relations.push({
        kind: 'belongsToMany',
        name: claim(candidates),
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
