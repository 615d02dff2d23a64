/**
 * Dotted names (`roles.name`, `settings.theme.color`) read against the definitions, never guessed from
 * the client's string: what the filters, sorts, includes and the schema document all resolve the same way.
 */
import type { ResolvedColumn, ResolvedRelation, ResolvedResource } from '../resource/registry.js';
import type { FieldTarget } from './list-plan.js';

const jsonKeyPattern = /^[A-Za-z0-9_-]{1,64}$/;
/** How many keys deep a path inside a JSON column may go. */
export const maxJsonDepth = 8;

export interface ResolvedPath {
  readonly target: FieldTarget;
  readonly column: ResolvedColumn;
  /** What a `<owner>.*` wildcard must name to cover this path: the relation path, or the JSON column path. */
  readonly owner: readonly string[];
}

/**
 * A dotted name read against the definitions: relations as long as segments name relations, then a
 * visible column, then — only for a JSON column — keys inside it.
 */
export function resolvePath(resource: ResolvedResource, name: string): ResolvedPath | undefined {
  const segments = name.split('.');
  const hops: ResolvedRelation[] = [];
  let current = resource;
  let index = 0;
  for (; index < segments.length - 1; index++) {
    const relation = current.relations.get(segments[index] as string);
    if (!relation) break;
    hops.push(relation);
    current = relation.target;
  }
  const column = current.columns.get(segments[index] as string);
  if (!column || column.hidden) return undefined;
  const jsonPath = segments.slice(index + 1);
  if (jsonPath.length > 0 && (column.type !== 'json' || jsonPath.length > maxJsonDepth)) return undefined;
  if (!jsonPath.every((key) => jsonKeyPattern.test(key))) return undefined;
  const target: FieldTarget = {
    hops,
    column: column.name,
    columnType: column.type,
    storage: column.storage,
    ...(jsonPath.length > 0 ? { jsonPath } : {}),
    ...(column.catalogType !== undefined && { catalogType: column.catalogType }),
  };
  return {
    target,
    column,
    owner: jsonPath.length > 0 ? segments.slice(0, index + 1) : segments.slice(0, index),
  };
}

/** `roles.permissions` → the relations walked, or undefined when a segment is not a relation. */
export function relationPath(resource: ResolvedResource, path: string): ResolvedRelation[] | undefined {
  const hops: ResolvedRelation[] = [];
  let current = resource;
  for (const segment of path.split('.')) {
    const relation = current.relations.get(segment);
    if (!relation) return undefined;
    hops.push(relation);
    current = relation.target;
  }
  return hops;
}
