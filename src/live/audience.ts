import { equalityOf, everyRow } from '../resource/equality-scope.js';
import type { EndpointPolicy } from '../resource/policy.js';
import type { ResolvedResource } from '../resource/registry.js';
import type { Image } from './log.js';

/** Who may learn of a row's change, for one subscriber: decided on the log's images, without a query. */
export interface Viewer {
  /**
   * Subscribers with the same group see the same rows of the endpoint: a change is decided once per
   * group, not once per subscriber.
   */
  readonly group: string;
  sees(image: Image | null): boolean;
}

/**
 * Why an endpoint's changes cannot be told to its subscribers without reading its rows, or undefined
 * when they can: its rows' visibility is a column's equality (`scopeByColumn`), the soft-delete column,
 * or nothing. A row scope or `baseQuery` written as a callback would need a query per change and
 * subscriber group; those endpoints refuse live topics, saying so.
 */
export function notLive(resource: ResolvedResource, policy: EndpointPolicy): string | undefined {
  if (policy.baseQuery)
    return `its baseQuery is a callback, whose rows a change cannot be checked against without a query`;
  if (resource.scope && !equalityOf(resource.scope))
    return `the ${resource.name} resource's row scope is a callback; declare it with scopeByColumn() for live streams`;
  return undefined;
}

/** The viewer of a context on a live endpoint's resource (`notLive` said it can be one). */
export function viewerOf(resource: ResolvedResource, ctx: unknown): Viewer {
  const deletedAt = resource.softDeleteColumn;
  const present = (image: Image | null): image is Image =>
    image !== null &&
    (deletedAt === undefined || image[deletedAt] === null || image[deletedAt] === undefined);
  const equality = equalityOf(resource.scope);
  if (!equality) return { group: '*', sees: present };
  const values = equality.values(ctx);
  if (values === everyRow) return { group: '*', sees: present };
  const allowed = new Set(
    values === undefined ? [] : (Array.isArray(values) ? values : [values]).map((value) => String(value)),
  );
  const { column } = equality;
  return {
    group: JSON.stringify([...allowed].sort()),
    sees: (image) => present(image) && allowed.has(String(image[column])),
  };
}
