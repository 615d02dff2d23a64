/**
 * What the react-admin and refine data providers share: resource names → endpoint paths, headers per
 * request, the record calls of the client (no second HTTP layer), ETags kept between a read and the
 * write that follows it, and one way to turn the service's refusals into each library's error.
 * Browser-safe: only `fetch`.
 */
import {
  ApiError,
  type ClientOptions,
  createRecord,
  deleteRecord,
  type ErrorMap,
  fetchList,
  fetchRecord,
  isLengthAware,
  type ListQuery,
  patchRecord,
  type RecordData,
  type WriteRefusal,
} from '../client/index.js';
import type { FilterNode } from '../client/query.js';

type Headers = Record<string, string>;

export interface ProviderOptions {
  /** The service's prefix as a URL: `http://127.0.0.1:3000/api`, or `/api` on the same origin. */
  apiUrl: string;
  /** Resource name (as the app names it) → endpoint path under `apiUrl`; default: the same name. */
  resources?: Readonly<Record<string, string>>;
  /** The primary key's name in the records (copied to `id` when it differs); default `id`. */
  idField?: string;
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

/** `include`/`count` passed through a call's `meta` (both libraries have one). */
export interface LoadMeta {
  include?: string | readonly string[];
  count?: string | readonly string[];
}

export function loadQuery(meta: unknown): Pick<ListQuery, 'include' | 'count'> {
  const { include, count } = (meta ?? {}) as LoadMeta;
  return {
    ...(include !== undefined && include.length > 0 ? { include } : {}),
    ...(count !== undefined && count.length > 0 ? { count } : {}),
  };
}

/** The record calls both providers make, with the library's error type. */
export function recordsApi(options: ProviderOptions, toError: ErrorFactory) {
  const idField = options.idField ?? 'id';
  const baseUrl = options.apiUrl.replace(/\/$/, '');
  const etags = new Map<string, string>();
  const keyOf = (resource: string, id: unknown) => `${resource}\n${String(id)}`;

  const endpoint = (resource: string) => `/${(options.resources?.[resource] ?? resource).replace(/^\//, '')}`;
  const clientOptions = async (signal?: AbortSignal): Promise<ClientOptions> => {
    const headers = typeof options.headers === 'function' ? await options.headers() : options.headers;
    return {
      baseUrl,
      ...(options.fetch ? { fetch: options.fetch } : {}),
      ...(headers ? { headers } : {}),
      ...(signal ? { signal } : {}),
    };
  };
  const withId = (record: RecordData): RecordData =>
    idField === 'id' ? record : { ...record, id: record[idField] };
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
            data: answer.map(withId),
            total: answer.length,
            hasNextPage: false,
            hasPreviousPage: false,
          };
        const page = {
          data: answer.data.map(withId),
          hasNextPage: answer.next_page_url !== null,
          hasPreviousPage: answer.prev_page_url !== null,
        };
        // A length-aware page without a count (the endpoint's `none` total strategy) is like a simple one.
        return isLengthAware(answer) && answer.total !== null ? { ...page, total: answer.total } : page;
      }),

    one: (resource: string, id: unknown, meta?: unknown, signal?: AbortSignal): Promise<RecordData> =>
      translated(async () => {
        const { record, etag } = await fetchRecord(
          endpoint(resource),
          String(id),
          loadQuery(meta),
          await clientOptions(signal),
        );
        remember(resource, id, etag);
        return withId(record);
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
        for (let start = 0; start < wanted.length; start += CHUNK) {
          const chunk = wanted.slice(start, start + CHUNK);
          const filter: FilterNode[] = [{ name: idField, op: 'in', value: chunk }];
          const answer = await fetchList(
            endpoint(resource),
            { filter, per_page: chunk.length, ...loadQuery(meta) },
            await clientOptions(signal),
          );
          for (const record of Array.isArray(answer) ? answer : answer.data)
            found.set(String(record[idField]), withId(record));
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
        remember(resource, answer.record[idField], answer.etag);
        return withId(answer.record);
      }),

    update: (resource: string, id: unknown, changes: RecordData): Promise<RecordData> =>
      translated(async () => {
        const answer = await patchRecord(endpoint(resource), String(id), changes, {
          ...(await clientOptions()),
          ...ifMatch(resource, id),
        });
        if (!answer.ok) throw refused(answer, changes);
        remember(resource, id, answer.etag);
        return withId(answer.record);
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
  };
}

export type RecordsApi = ReturnType<typeof recordsApi>;
