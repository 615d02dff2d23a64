import type { RawBuilder } from 'kysely';
import { equalityOf, everyRow } from '../resource/equality-scope.js';
import type { EndpointPolicy } from '../resource/policy.js';
import type { ResolvedResource } from '../resource/registry.js';
import type { DynamicExpressionBuilder } from '../resource/types.js';
import { endpointConditions } from '../sql/conditions.js';
import type { DynamicDb } from '../sql/dialect.js';
import type { Image } from './log.js';

/**
 * Who may learn of a row's change, for one subscriber: whether it could read the row as an image shows
 * it. Subscribers with the same `group` see the same rows: a change is decided once per group.
 */
export type Viewer =
  /** Decided in memory: no row scope, the soft-delete column, a `scopeByColumn` equality. */
  | { readonly group: string; readonly sees: (image: Image | null) => boolean }
  /**
   * Decided by the database, once per group and batch of changes: a row scope or `baseQuery` written as
   * a callback, applied to the images read back as rows (`ChangeLogSql.imageRows`). `decide` gives
   * the numbers (from 1) of the images the group may read.
   */
  | { readonly group: string; readonly decide: (images: readonly Image[]) => Promise<Set<number>> };

/** What a viewer decided by the database needs: the connection and the images' rows of its table. */
export interface ImageQuery {
  readonly db: DynamicDb;
  readonly rows: (images: string) => RawBuilder<unknown>;
}

/** A stand-in for the images in a statement compiled only to tell its shape and values. */
const PROBE = '\u0000images';

/**
 * The viewer of a context on an endpoint: in memory where its visibility is a column's equality, the
 * soft-delete column or nothing; otherwise its conditions (as a list's: the row scope, soft deletes,
 * `baseQuery`) run over the images, and contexts whose conditions compile to the same statement with
 * the same values are one group.
 */
export function viewerOf(
  resource: ResolvedResource,
  policy: EndpointPolicy,
  ctx: unknown,
  query: () => ImageQuery,
): Viewer {
  const equality = equalityOf(resource.scope);
  if (!policy.baseQuery && (!resource.scope || equality)) return inMemory(resource, ctx);
  const { db, rows } = query();
  const statement = (images: string) =>
    db
      .selectFrom(rows(images).as('t0'))
      .select('t0.n')
      .where((eb: DynamicExpressionBuilder) => eb.and(endpointConditions(eb, resource, policy, 't0', ctx)));
  const probe = statement(PROBE).compile();
  const values = probe.parameters.filter((value) => value !== PROBE);
  return {
    group: `${resource.table}\n${probe.sql}\n${JSON.stringify(values)}`,
    decide: async (images) => {
      const found = (await statement(JSON.stringify(images)).execute()) as { n: unknown }[];
      return new Set(found.map((row) => Number(row.n)));
    },
  };
}

function inMemory(resource: ResolvedResource, ctx: unknown): Viewer {
  const deletedAt = resource.softDeleteColumn;
  const present = (image: Image | null): image is Image =>
    image !== null &&
    (deletedAt === undefined || image[deletedAt] === null || image[deletedAt] === undefined);
  const equality = equalityOf(resource.scope);
  if (!equality) return { group: `${resource.table}\n*`, sees: present };
  const values = equality.values(ctx);
  if (values === everyRow) return { group: `${resource.table}\n*`, sees: present };
  const allowed = new Set(
    values === undefined ? [] : (Array.isArray(values) ? values : [values]).map((value) => String(value)),
  );
  const { column } = equality;
  return {
    group: `${resource.table}\n${JSON.stringify([...allowed].sort())}`,
    sees: (image) => present(image) && allowed.has(String(image[column])),
  };
}
