/**
 * What the react-admin and refine data providers share: resource names → endpoint paths, headers per
 * request, the record calls of the client (no second HTTP layer), ETags kept between a read and the
 * write that follows it, one way to turn the service's refusals into each library's error, and the
 * live client their subscriptions go through. Browser-safe: only `fetch`.
 */
import {
  type AggregateAnswer,
  type AggregateQuery,
  ApiError,
  type ClientOptions,
  createLiveClient,
  createRecord,
  deleteRecord,
  type ErrorMap,
  type ExportFormat,
  type ExportQuery,
  fetchAggregate,
  fetchExport,
  fetchIndex,
  fetchList,
  fetchRecord,
  isLengthAware,
  type ListQuery,
  type LiveClient,
  patchRecord,
  type RecordData,
  restoreRecord,
  type WriteRefusal,
} from '../client/index.js';
import type { FilterNode } from '../client/query.js';
import { filterNodes } from '../client/typed.js';

type Headers = Record<string, string>;

export interface ProviderOptions {
  /** The service's prefix as a URL: `http://127.0.0.1:3000/api`, or `/api` on the same origin. */
  apiUrl: string;
  /** Resource name (as the app names it) → endpoint path under `apiUrl`; default: the same name. */
  resources?: Readonly<Record<string, string>>;
  /**
   * The primary key's name in the records (copied to `id` when it differs), for every resource or by
   * resource name. Default: what the service's schema index says of each endpoint's key (`key`), read
   * once and only for records without an `id`; else `id`. A composite key's `id` is its values joined
   * by commas in key order, the form its record route takes.
   */
  idField?: string | Readonly<Record<string, string>>;
  /** Sent with every request; a function is called each time (a token that changes on sign-in). */
  headers?: Headers | (() => Headers | Promise<Headers>);
  fetch?: typeof fetch;
  /**
   * Send the ETag of the last read of a record as `If-Match` when it is updated or deleted, so that
   * a save over someone else's change is a 412 instead of a lost update. Default `true`.
   */
  ifMatch?: boolean;
}

/** The answers the providers reshape: a page of records and what is known of the other pages. */
export interface Page {
  data: RecordData[];
  /** Absent in simple pagination (no count query). */
  total?: number;
  hasNextPage: boolean;
  hasPreviousPage: boolean;
}

/**
 * Builds a library's error from the service's status, message and error map; `sent` is the fields a
 * write sent (absent for reads), for a library that shows only those under its inputs.
 */
export type ErrorFactory = (
  status: number,
  message: string,
  errors: ErrorMap,
  sent?: readonly string[],
) => Error;

/** The largest `per_page` (and `in` list) the service accepts by default: `getMany` asks in chunks. */
const CHUNK = 100;

/** refine's (and GraphQL's) field list: names of the records, `{ <include path>: [names] }` for a relation's. */
type FieldList = readonly (string | Readonly<Record<string, readonly string[]>>)[];

/** `include`/`count`/`fields` passed through a call's `meta` (both libraries have one). */
export interface LoadMeta {
  include?: string | readonly string[];
  count?: string | readonly string[];
  /**
   * Sparse fieldsets: `ListQuery.fields` (`{ users: ['name'], roles: 'name' }`), or refine's list form
   * (`['name', 'email', { roles: ['name'] }]`).
   */
  fields?: ListQuery['fields'] | FieldList;
  /**
   * Constrained includes, by include path: the related records' filter as an object
   * (`{ posts: { status: 'published', score: { gte: 2 } } }`, the typed client's form) or as the
   * client's filter nodes, their order (`{ posts: '-created_at' }`) and how many per record
   * (`{ posts: 3 }`, with `posts_total`).
   */
  include_filter?: Readonly<Record<string, Readonly<Record<string, unknown>> | readonly FilterNode[]>>;
  include_sort?: ListQuery['include_sort'];
  include_limit?: ListQuery['include_limit'];
}

/** refine's list form → fields by owner (`''`: the records). */
function fieldsByOwner(fields: NonNullable<LoadMeta['fields']>): NonNullable<ListQuery['fields']> {
  if (!Array.isArray(fields)) return fields as NonNullable<ListQuery['fields']>;
  const byOwner: Record<string, string[]> = {};
  const add = (owner: string, names: readonly string[]) => {
    byOwner[owner] = [...(byOwner[owner] ?? []), ...names];
  };
  for (const item of fields as FieldList) {
    if (typeof item === 'string') add('', [item]);
    else for (const [owner, names] of Object.entries(item)) add(owner, names);
  }
  return byOwner;
}

/** The keys of `LoadMeta`: each shapes records. */
const recordShaping = [
  'include',
  'count',
  'fields',
  'include_filter',
  'include_sort',
  'include_limit',
] as const satisfies readonly (keyof LoadMeta)[];

type LoadQuery = Pick<
  ListQuery,
  'include' | 'count' | 'fields' | 'include_filter' | 'include_sort' | 'include_limit'
>;

export function loadQuery(meta: unknown): LoadQuery {
  const { include, count, fields, include_filter, include_sort, include_limit } = (meta ?? {}) as LoadMeta;
  const byOwner = fields === undefined ? undefined : fieldsByOwner(fields);
  const filters =
    include_filter &&
    Object.fromEntries(
      Object.entries(include_filter).map(([path, filter]) => [
        path,
        Array.isArray(filter)
          ? (filter as readonly FilterNode[])
          : filterNodes(filter as Record<string, unknown>),
      ]),
    );
  return {
    ...(include !== undefined && include.length > 0 ? { include } : {}),
    ...(count !== undefined && count.length > 0 ? { count } : {}),
    ...(byOwner !== undefined && Object.keys(byOwner).length > 0 ? { fields: byOwner } : {}),
    ...(filters ? { include_filter: filters } : {}),
    ...(include_sort ? { include_sort } : {}),
    ...(include_limit ? { include_limit } : {}),
  };
}

/** The endpoint path (`users`, no slash) of a resource as the app names it. */
export const endpointPath = (options: ProviderOptions, resource: string): string =>
  (options.resources?.[resource] ?? resource).replace(/^\//, '');

/**
 * The live client of a provider: `<apiUrl>/live`, with the provider's headers (asked again at each
 * opening, so a refreshed token is sent) and fetch.
 */
export function liveClientOf(options: ProviderOptions): LiveClient {
  return createLiveClient({
    baseUrl: options.apiUrl.replace(/\/$/, ''),
    prefix: '',
    ...(options.fetch ? { fetch: options.fetch } : {}),
    ...(options.headers ? { headers: options.headers } : {}),
  });
}

/** A stream's ids as the libraries' keys (a string or a number; anything else as its text). */
export const keysOf = (ids: readonly unknown[]): (string | number)[] =>
  ids.map((id) => (typeof id === 'number' || typeof id === 'string' ? id : String(id)));

/** The record calls both providers make, with the library's error type. */
export function recordsApi(options: ProviderOptions, toError: ErrorFactory) {
  const baseUrl = options.apiUrl.replace(/\/$/, '');
  const etags = new Map<string, string>();
  const keyOf = (resource: string, id: unknown) => `${resource}\n${String(id)}`;

  const endpoint = (resource: string) => `/${endpointPath(options, resource)}`;
  const clientOptions = async (signal?: AbortSignal): Promise<ClientOptions> => {
    const headers = typeof options.headers === 'function' ? await options.headers() : options.headers;
    return {
      baseUrl,
      ...(options.fetch ? { fetch: options.fetch } : {}),
      ...(headers ? { headers } : {}),
      ...(signal ? { signal } : {}),
    };
  };
  /** Endpoint path → its key's columns, from the schema index (read once; empty when there is none). */
  let index: Promise<Map<string, readonly string[]>> | undefined;
  const indexedKeys = (): Promise<Map<string, readonly string[]>> => {
    index ??= clientOptions()
      .then((client) => fetchIndex({ ...client, prefix: '' }))
      .then(
        (entries) =>
          new Map(entries.flatMap((entry) => (entry.key ? [[entry.path, entry.key] as const] : []))),
        (error: unknown) => {
          // Not served (404) is an answer; anything else (a token not yet given) is asked again later.
          if (!(error instanceof ApiError && error.status === 404)) index = undefined;
          return new Map<string, readonly string[]>();
        },
      );
    return index;
  };
  /** A resource's key columns: declared, else `id` when the record has one, else the index's. */
  const keyColumns = async (resource: string, record?: RecordData): Promise<readonly string[]> => {
    const declared = typeof options.idField === 'string' ? options.idField : options.idField?.[resource];
    if (declared) return [declared];
    if (record && 'id' in record) return ['id'];
    return (await indexedKeys()).get(endpoint(resource).slice(1)) ?? ['id'];
  };
  const withId = async (resource: string, record: RecordData): Promise<RecordData> => {
    const key = await keyColumns(resource, record);
    if (key.length === 1) return key[0] === 'id' ? record : { ...record, id: record[key[0] as string] };
    return { ...record, id: key.map((column) => String(record[column])).join(',') };
  };
  const allWithId = (resource: string, records: readonly RecordData[]) =>
    Promise.all(records.map((record) => withId(resource, record)));
  const remember = (resource: string, id: unknown, etag: string | undefined) => {
    if (etag === undefined) etags.delete(keyOf(resource, id));
    else etags.set(keyOf(resource, id), etag);
  };
  const ifMatch = (resource: string, id: unknown) => {
    const etag = options.ifMatch === false ? undefined : etags.get(keyOf(resource, id));
    return etag === undefined ? {} : { ifMatch: etag };
  };
  const refused = (refusal: WriteRefusal, sent: RecordData) =>
    toError(refusal.status, refusal.message, refusal.errors, Object.keys(sent));
  /** The service's non-2xx answers as the library's error; anything else (the network) as it is. */
  const translated = async <T>(call: () => Promise<T>): Promise<T> => {
    try {
      return await call();
    } catch (error) {
      if (error instanceof ApiError)
        throw toError(error.status, error.envelope.message, error.envelope.errors);
      throw error;
    }
  };

  return {
    apiUrl: baseUrl,
    clientOptions,

    /** One list request; `hasNextPage` from the envelope, whatever the pagination mode. */
    list: (resource: string, query: ListQuery, signal?: AbortSignal): Promise<Page> =>
      translated(async () => {
        const answer = await fetchList(endpoint(resource), query, await clientOptions(signal));
        if (Array.isArray(answer))
          return {
            data: await allWithId(resource, answer),
            total: answer.length,
            hasNextPage: false,
            hasPreviousPage: false,
          };
        const page = {
          data: await allWithId(resource, answer.data),
          hasNextPage: answer.next_page_url !== null,
          hasPreviousPage: answer.prev_page_url !== null,
        };
        // A length-aware page without a count (the endpoint's `none` total strategy) is like a simple one.
        return isLengthAware(answer) && answer.total !== null ? { ...page, total: answer.total } : page;
      }),

    /**
     * The export of a list query (every record, CSV or NDJSON, made by the service): the `Response`,
     * its body unread (a stream, or `blob()` to save). A refusal is the library's error.
     */
    exportList: (
      resource: string,
      query: ExportQuery,
      format: ExportFormat,
      signal?: AbortSignal,
    ): Promise<Response> =>
      translated(async () => fetchExport(endpoint(resource), query, format, await clientOptions(signal))),

    /**
     * `GET <list>/aggregate` (docs/aggregates.md): `{ data, meta }` as the service answers it; a refused
     * metric, group or range is the library's error, keyed by its parameter.
     */
    aggregate: async (
      resource: string,
      query: AggregateQuery,
      meta?: unknown,
      signal?: AbortSignal,
    ): Promise<AggregateAnswer> => {
      // `meta`'s include, count and fields shape records, which an aggregate has none of: refused by
      // name, as the service refuses those parameters, rather than dropped without a word.
      const given = recordShaping.filter((key) => (meta as LoadMeta | undefined)?.[key] !== undefined);
      if (given.length > 0) {
        const errors = Object.fromEntries(
          given.map((key) => [key, [`"${key}" shapes records, which an aggregate has none of.`]]),
        );
        throw toError(422, `An aggregate takes no ${given.join(', ')}.`, errors, given);
      }
      try {
        return await fetchAggregate(endpoint(resource), query, await clientOptions(signal));
      } catch (error) {
        // Every key names a parameter the call sent (`metrics`, `group_by`, `from`…): all are kept.
        if (error instanceof ApiError) {
          const { message, errors } = error.envelope;
          throw toError(error.status, message, errors, Object.keys(errors));
        }
        throw error;
      }
    },

    one: (resource: string, id: unknown, meta?: unknown, signal?: AbortSignal): Promise<RecordData> =>
      translated(async () => {
        const query = loadQuery(meta);
        const { record, etag } = await fetchRecord(
          endpoint(resource),
          String(id),
          query,
          await clientOptions(signal),
        );
        // Some of its fields: that answer's ETag is not the record's, and no write may take it.
        if (query.fields === undefined) remember(resource, id, etag);
        return withId(resource, record);
      }),

    /** `filter[<id>][in]=…`, 100 ids a request, in the order of `ids` (records not found are left out). */
    many: (
      resource: string,
      ids: readonly unknown[],
      meta?: unknown,
      signal?: AbortSignal,
    ): Promise<RecordData[]> =>
      translated(async () => {
        const wanted = [...new Set(ids.map(String))];
        const found = new Map<string, RecordData>();
        const key = await keyColumns(resource);
        // A composite key has no `in` filter: its records are read one by one (a many-to-one is short).
        if (key.length > 1)
          for (const id of wanted) {
            const answer = await fetchRecord(
              endpoint(resource),
              id,
              loadQuery(meta),
              await clientOptions(signal),
            )
              .then((read) => read.record)
              .catch((error: unknown) => {
                if (error instanceof ApiError && error.status === 404) return undefined;
                throw error;
              });
            if (answer) found.set(id, await withId(resource, answer));
          }
        for (let start = 0; key.length === 1 && start < wanted.length; start += CHUNK) {
          const chunk = wanted.slice(start, start + CHUNK);
          const filter: FilterNode[] = [{ name: key[0] as string, op: 'in', value: chunk }];
          const answer = await fetchList(
            endpoint(resource),
            { filter, per_page: chunk.length, ...loadQuery(meta) },
            await clientOptions(signal),
          );
          for (const record of Array.isArray(answer) ? answer : answer.data)
            found.set(String(record[key[0] as string]), await withId(resource, record));
        }
        return wanted.flatMap((id): RecordData[] => {
          const record = found.get(id);
          return record ? [record] : [];
        });
      }),

    create: (resource: string, values: RecordData): Promise<RecordData> =>
      translated(async () => {
        const answer = await createRecord(endpoint(resource), values, await clientOptions());
        if (!answer.ok) throw refused(answer, values);
        const record = await withId(resource, answer.record);
        remember(resource, record.id, answer.etag);
        return record;
      }),

    update: (resource: string, id: unknown, changes: RecordData): Promise<RecordData> =>
      translated(async () => {
        const answer = await patchRecord(endpoint(resource), String(id), changes, {
          ...(await clientOptions()),
          ...ifMatch(resource, id),
        });
        if (!answer.ok) throw refused(answer, changes);
        remember(resource, id, answer.etag);
        return withId(resource, answer.record);
      }),

    remove: (resource: string, id: unknown): Promise<void> =>
      translated(async () => {
        const answer = await deleteRecord(endpoint(resource), String(id), {
          ...(await clientOptions()),
          ...ifMatch(resource, id),
        });
        if (!answer.ok) throw refused(answer, {});
        remember(resource, id, undefined);
      }),

    /**
     * `POST <records>/<id>/restore`: the soft-deleted record back, its ETag kept for the next write. A
     * record that is not deleted, or does not exist, is the service's 404 as the library's error.
     */
    restore: (resource: string, id: unknown): Promise<RecordData> =>
      translated(async () => {
        const { record, etag } = await restoreRecord(endpoint(resource), String(id), await clientOptions());
        remember(resource, id, etag);
        return withId(resource, record);
      }),
  };
}

export type RecordsApi = ReturnType<typeof recordsApi>;
