/**
 * The typed layer over the client's functions: `createClient<Resources>(endpoints)` gives one object
 * per endpoint whose methods take that endpoint's filters, includes, counts, sorts and inputs, and
 * return its records — with the `Resources` and `endpoints` that `resource-query-service types`
 * generates from the OpenAPI document (docs/openapi-and-types.md). The untyped functions stay as they are.
 */
import type { LengthAwarePage } from '../respond/length-aware.js';
import type { CursorPage, SimplePage } from '../respond/simple-and-cursor.js';
import {
  type ClientOptions,
  type CreateResult,
  createRecord,
  type DeleteResult,
  deleteRecord,
  exportUrl,
  fetchAggregate,
  fetchExport,
  fetchList,
  fetchRecord,
  type PatchResult,
  patchRecord,
  type ReadQuery,
  type RecordData,
  type RecordResult,
  restoreRecord,
  type WriteOptions,
} from './calls.js';
import type {
  AggregateQuery,
  ExportFormat,
  FilterNode,
  FilterOperator,
  FilterScalar,
  FilterValue,
  HavingOperator,
  ListQuery,
} from './query.js';

/** What the generated `Resources` says of one endpoint. */
export interface ResourceTypes {
  record: unknown;
  filter: object;
  create: object;
  update: object;
  id: string | number;
  include: string;
  count: string;
  sort: string;
  actions: string;
  /** The answer of `<list>/aggregate` (`never` where the endpoint has none). */
  aggregate: unknown;
  /** The metrics and group keys the aggregate route allows. */
  metric: string;
  groupBy: string;
  /** By include path: what `include_filter` and `include_sort` take (types generated before it: none). */
  includeConstraints?: { [path: string]: { filter: object; sort: string } };
}

/** The constrainable includes of an endpoint, by path. */
type Constraints<T extends ResourceTypes> = T['includeConstraints'] extends object
  ? T['includeConstraints']
  : Record<never, never>;

type FilterOf<C> = C extends { filter: infer F } ? F : never;
type SortOf<C> = C extends { sort: infer S extends string } ? S : never;

/** `include_filter`, `include_sort`, `include_limit` typed by the endpoint's constrainable includes. */
export interface TypedIncludeConstraints<T extends ResourceTypes> {
  /** `{ posts: { status: 'published' } }`: the related records' filter, as `filter` is written. */
  include_filter?: { [P in keyof Constraints<T>]?: FilterOf<Constraints<T>[P]> };
  /** `{ posts: '-created_at' }`. */
  include_sort?: { [P in keyof Constraints<T>]?: OneOrMany<SortOf<Constraints<T>[P]>> };
  /** `{ posts: 3 }`: each record's first 3, with `posts_total`. */
  include_limit?: { [P in keyof Constraints<T>]?: number };
}

/** Where an endpoint lists and addresses its records (the generated `endpoints`). */
export interface EndpointRoutes {
  readonly list: string;
  readonly records: string;
}

type OneOrMany<T extends string> = T | readonly T[];

/** A list query whose filter, include, count and sort are the endpoint's own. */
export interface TypedListQuery<T extends ResourceTypes> extends TypedIncludeConstraints<T> {
  /** `{ score: { gte: 80 }, status: 'active', or: [{ … }, { … }] }`: conditions AND-ed. */
  filter?: T['filter'];
  include?: OneOrMany<T['include']>;
  /** Sparse fieldsets by owner (the resource's name, or an include path); see `ListQuery.fields`. */
  fields?: ListQuery['fields'];
  count?: OneOrMany<T['count']>;
  sort?: OneOrMany<T['sort']>;
  search?: string;
  page?: number;
  per_page?: number;
  pagination?: 'length-aware';
  cursor?: string;
  all?: false;
}

/** The read-one query: the endpoint's includes and counts, and `trashed`. */
export interface TypedReadQuery<T extends ResourceTypes> extends TypedIncludeConstraints<T> {
  include?: OneOrMany<T['include']>;
  fields?: ListQuery['fields'];
  count?: OneOrMany<T['count']>;
  trashed?: boolean;
}

/** An aggregate query whose filter, metrics and group keys are the endpoint's own. */
export interface TypedAggregateQuery<T extends ResourceTypes> {
  filter?: T['filter'];
  search?: string;
  metrics?: OneOrMany<T['metric']>;
  group_by?: OneOrMany<T['groupBy']>;
  tz?: string;
  from?: string;
  to?: string;
  sort?: OneOrMany<T['metric'] | T['groupBy'] | `-${T['metric'] | T['groupBy']}`>;
  limit?: number;
  having?: { readonly [M in T['metric']]?: Partial<Record<HavingOperator, string | number>> };
}

type Without<Q, K extends keyof Q> = Omit<Q, K>;

/** An export's query: the list's, without its pages. */
export type TypedExportQuery<T extends ResourceTypes> = Without<
  TypedListQuery<T>,
  'page' | 'per_page' | 'pagination' | 'cursor' | 'all'
>;

/** One endpoint's methods; the list's answer follows the pagination asked for. */
export interface TypedEndpoint<T extends ResourceTypes> {
  list(
    query: Without<TypedListQuery<T>, 'all' | 'page' | 'pagination'> & { all: true },
    options?: ClientOptions,
  ): Promise<T['record'][]>;
  list(
    query: Without<TypedListQuery<T>, 'page' | 'pagination'> & { pagination: 'cursor' },
    options?: ClientOptions,
  ): Promise<CursorPage<T['record']>>;
  list(
    query: Without<TypedListQuery<T>, 'pagination' | 'cursor'> & { pagination: 'simple' },
    options?: ClientOptions,
  ): Promise<SimplePage<T['record']>>;
  list(query?: TypedListQuery<T>, options?: ClientOptions): Promise<LengthAwarePage<T['record']>>;
  /** The URL of the export of this query (for a plain link; see `exportUrl`). */
  exportUrl(query: TypedExportQuery<T>, format: ExportFormat, options?: ClientOptions): string;
  /** The export of this query, its body unread (a stream; see `fetchExport`). */
  export(query: TypedExportQuery<T>, format: ExportFormat, options?: ClientOptions): Promise<Response>;
  read(id: T['id'], query?: TypedReadQuery<T>, options?: ClientOptions): Promise<RecordResult<T['record']>>;
  create(values: T['create'], options?: ClientOptions): Promise<CreateResult<T['record']>>;
  update(id: T['id'], changes: T['update'], options?: WriteOptions): Promise<PatchResult<T['record']>>;
  delete(id: T['id'], options?: WriteOptions): Promise<DeleteResult>;
  restore(id: T['id'], options?: ClientOptions): Promise<RecordResult<T['record']>>;
  /** `GET <list>/aggregate`: metrics over the list's rows, grouped (docs/aggregates.md). */
  aggregate(query: TypedAggregateQuery<T>, options?: ClientOptions): Promise<T['aggregate']>;
}

export type TypedClient<R> = {
  readonly [K in keyof R]: R[K] extends ResourceTypes ? TypedEndpoint<R[K]> : never;
};

/** A filter object as the typed layer takes it, read at run time. */
type FilterObject = { readonly [name: string]: unknown };

const isPlainObject = (value: unknown): value is FilterObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** `{ score: { gte: 80 }, or: [{ a: 1 }, { b: 2 }] }` → the client's filter nodes. */
export function filterNodes(filter: FilterObject): FilterNode[] {
  const nodes: FilterNode[] = [];
  for (const [name, value] of Object.entries(filter)) {
    if (value === undefined) continue;
    if ((name === 'or' || name === 'and') && Array.isArray(value)) {
      const members = (value as FilterObject[]).map(filterNodes);
      nodes.push(name === 'or' ? { or: members } : { and: members });
    } else if (isPlainObject(value)) {
      for (const [op, operand] of Object.entries(value))
        if (operand !== undefined)
          nodes.push({ name, op: op as FilterOperator, value: operand as FilterValue });
    } else nodes.push({ name, value: value as FilterScalar });
  }
  return nodes;
}

/** Each include's filter object → the client's filter nodes. */
/** A typed list query as the untyped client takes it: its filters (the list's and the includes') as nodes. */
function untyped({ filter, include_filter, ...rest }: TypedExportQuery<ResourceTypes> & object): ListQuery {
  return {
    ...(rest as ListQuery),
    ...(filter ? { filter: filterNodes(filter as FilterObject) } : {}),
    ...includeFilterNodes(include_filter),
  };
}

function includeFilterNodes(filters: object | undefined): Pick<ListQuery, 'include_filter'> {
  if (!filters) return {};
  return {
    include_filter: Object.fromEntries(
      Object.entries(filters as Record<string, FilterObject | undefined>)
        .filter((entry): entry is [string, FilterObject] => entry[1] !== undefined)
        .map(([path, filter]) => [path, filterNodes(filter)]),
    ),
  };
}

/**
 * The typed client: `createClient<Resources>(endpoints, { baseUrl })`, with both from the generated
 * types module. Every method is the untyped function of the same name underneath.
 */
export function createClient<R>(
  endpoints: { readonly [K in keyof R]: EndpointRoutes },
  options: ClientOptions = {},
): TypedClient<R> {
  const client: Record<string, unknown> = {};
  const merged = <O extends ClientOptions>(extra: O | undefined): O => ({ ...options, ...extra }) as O;
  for (const [name, routes] of Object.entries(endpoints) as [string, EndpointRoutes][]) {
    const { list, records } = routes;
    type Untyped = TypedListQuery<ResourceTypes> & { pagination?: ListQuery['pagination']; all?: boolean };
    client[name] = {
      list: (query: Untyped = {}, extra?: ClientOptions) => fetchList(list, untyped(query), merged(extra)),
      read: (
        id: string | number,
        { include_filter, ...query }: TypedReadQuery<ResourceTypes> = {},
        extra?: ClientOptions,
      ) =>
        fetchRecord(
          records,
          id,
          { ...(query as ReadQuery), ...includeFilterNodes(include_filter) },
          merged(extra),
        ),
      exportUrl: (query: TypedExportQuery<ResourceTypes>, format: ExportFormat, extra?: ClientOptions) =>
        exportUrl(list, untyped(query), format, merged(extra)),
      export: (query: TypedExportQuery<ResourceTypes>, format: ExportFormat, extra?: ClientOptions) =>
        fetchExport(list, untyped(query), format, merged(extra)),
      create: (values: RecordData, extra?: ClientOptions) => createRecord(records, values, merged(extra)),
      update: (id: string | number, changes: RecordData, extra?: WriteOptions) =>
        patchRecord(records, id, changes, merged(extra)),
      delete: (id: string | number, extra?: WriteOptions) => deleteRecord(records, id, merged(extra)),
      restore: (id: string | number, extra?: ClientOptions) => restoreRecord(records, id, merged(extra)),
      aggregate: ({ filter, ...rest }: TypedAggregateQuery<ResourceTypes> = {}, extra?: ClientOptions) =>
        fetchAggregate(
          list,
          {
            ...(rest as AggregateQuery),
            ...(filter ? { filter: filterNodes(filter as FilterObject) } : {}),
          },
          merged(extra),
        ),
    };
  }
  // Each method is the untyped function; the generated types say what each endpoint takes and gives.
  return client as TypedClient<R>;
}
