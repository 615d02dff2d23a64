/**
 * The calls of the client, one function per request the service answers: the schema index, schema
 * documents, lists, and the records API (read one, create, update, delete, restore, with ETags).
 */
import type { LengthAwarePage, PageLink } from '../respond/length-aware.js';
import type { CursorPage, SimplePage } from '../respond/simple-and-cursor.js';
import type { SchemaDocument } from '../schema/types.js';
import {
  type AggregateQuery,
  buildAggregateQuery,
  buildListQuery,
  type ExportFormat,
  type ExportQuery,
  type ListQuery,
} from './query.js';

export interface ClientOptions {
  /** `http://127.0.0.1:3000`; default `''` (same origin). */
  baseUrl?: string;
  fetch?: typeof fetch;
  headers?: Record<string, string>;
  signal?: AbortSignal;
}

/** One entry of `GET <prefix>/v1/schema`. */
export interface ResourceEntry {
  resource: string;
  path: string;
  title: string;
  /** Path of the list endpoint (`/api/users`). */
  list: string;
  /** Path of the schema document (`/api/v1/users/schema`). */
  schema: string;
  /** The primary key's columns: one, or several for a composite key (its records' ids join them by commas). */
  key: string[];
}

export type ErrorMap = Record<string, string[]>;

export interface ErrorEnvelope {
  message: string;
  errors: ErrorMap;
}

/** A non-2xx answer (other than the refusals a write returns as `{ ok: false }`: 409, 412, 422). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly url: string,
    readonly envelope: ErrorEnvelope,
  ) {
    super(`${status} from ${url}: ${envelope.message}`);
    this.name = 'ApiError';
  }
}

// The envelopes are the service's own types (type-only imports: nothing reaches the browser bundle).
export type { CursorPage, LengthAwarePage, PageLink, SimplePage };

export type ListResponse<T> = LengthAwarePage<T> | SimplePage<T> | CursorPage<T> | T[];

export function isLengthAware<T>(response: ListResponse<T>): response is LengthAwarePage<T> {
  return !Array.isArray(response) && 'total' in response;
}

export type RecordData = Record<string, unknown>;

/**
 * A write the server refused for a reason the user can act on: 422 (validation, keyed by field), 409
 * (a unique value taken, keyed by field; or a delete blocked by other records), 412 (the record changed
 * since its ETag was read).
 */
export interface WriteRefusal {
  ok: false;
  status: 409 | 412 | 422;
  message: string;
  errors: ErrorMap;
}

/** A record as the service answered it, with its `ETag` (absent when the server sent none). */
export interface RecordResult<T = RecordData> {
  record: T;
  etag: string | undefined;
}

export type PatchResult<T = RecordData> = ({ ok: true } & RecordResult<T>) | WriteRefusal;
export type CreateResult<T = RecordData> =
  | ({ ok: true; location: string | undefined } & RecordResult<T>)
  | WriteRefusal;
export type DeleteResult = { ok: true } | WriteRefusal;

/** Options of a write: `ifMatch` is sent as `If-Match` (an ETag read before, or `*`). */
export interface WriteOptions extends ClientOptions {
  ifMatch?: string;
}

/** What GET `<endpoint>/<id>` may carry: the list's include and count whitelists, and `trashed`. */
export interface ReadQuery {
  include?: string | readonly string[];
  /** Constrained includes, as a list's (`ListQuery.include_filter`, …). */
  include_filter?: ListQuery['include_filter'];
  include_sort?: ListQuery['include_sort'];
  include_limit?: ListQuery['include_limit'];
  count?: string | readonly string[];
  /**
   * Sparse fieldsets, as a list's. The answer's ETag is then that answer's (for If-None-Match), not
   * the record's version: a write needs the ETag of a whole read.
   */
  fields?: ListQuery['fields'];
  /** Finds a soft-deleted record too (only where the endpoint allows the `trashed` filter). */
  trashed?: boolean;
}

function url(path: string, options: ClientOptions | undefined): string {
  return `${(options?.baseUrl ?? '').replace(/\/$/, '')}${path}`;
}

async function envelopeOf(response: Response): Promise<ErrorEnvelope> {
  const text = await response.text();
  try {
    const body = JSON.parse(text) as Partial<ErrorEnvelope>;
    return { message: String(body.message ?? response.statusText), errors: body.errors ?? {} };
  } catch {
    return { message: text || response.statusText, errors: {} };
  }
}

async function getJson<T>(target: string, options: ClientOptions | undefined): Promise<T> {
  const doFetch = options?.fetch ?? fetch;
  const response = await doFetch(target, {
    headers: { accept: 'application/json', ...options?.headers },
    ...(options?.signal ? { signal: options.signal } : {}),
  });
  if (!response.ok) throw new ApiError(response.status, target, await envelopeOf(response));
  return (await response.json()) as T;
}

/** `GET <prefix>/v1/schema`: the resources that have a schema. */
export async function fetchIndex(options?: ClientOptions & { prefix?: string }): Promise<ResourceEntry[]> {
  const prefix = (options?.prefix ?? '/api').replace(/\/$/, '');
  const body = await getJson<{ resources: ResourceEntry[] }>(url(`${prefix}/v1/schema`, options), options);
  return body.resources;
}

/** The schema document of one resource (an index entry, or the document's path). */
export function fetchSchema(
  resource: ResourceEntry | string,
  options?: ClientOptions,
): Promise<SchemaDocument> {
  const path = typeof resource === 'string' ? resource : resource.schema;
  return getJson<SchemaDocument>(url(path, options), options);
}

/** The full URL `fetchList` requests (useful to show or log). */
export function listUrl(list: string, query: ListQuery, options?: ClientOptions): string {
  const search = buildListQuery(query);
  return url(search ? `${list}?${search}` : list, options);
}

/**
 * Past this many characters of query string `fetchList` sends the query in the body
 * (`POST <list>/query`): some proxies and servers refuse URLs from about 2 KB, most from 8 KB (414).
 */
export const LONG_QUERY = 2000;

/**
 * `GET <list>?<query>`, or `POST <list>/query` with `{"query": …}` when the query string is longer than
 * `LONG_QUERY` (the same answer). A 422 (or any non-2xx) throws an `ApiError` with the error map.
 */
export async function fetchList<T = RecordData>(
  list: ResourceEntry | string,
  query: ListQuery = {},
  options?: ClientOptions,
): Promise<ListResponse<T>> {
  const path = typeof list === 'string' ? list : list.list;
  const search = buildListQuery(query);
  if (search.length <= LONG_QUERY) return getJson<ListResponse<T>>(listUrl(path, query, options), options);
  const target = url(`${path.replace(/\/$/, '')}/query`, options);
  const response = await send('POST', target, { query: search }, options);
  if (!response.ok) throw new ApiError(response.status, target, await envelopeOf(response));
  return (await response.json()) as ListResponse<T>;
}

/**
 * The URL of a list's export: every record the query selects, as CSV or NDJSON, a download
 * (`Content-Disposition: attachment`). For a plain link (`<a href download>`), where no Authorization
 * header can be sent; with a bearer token use `fetchExport`.
 */
export function exportUrl(
  list: ResourceEntry | string,
  query: ExportQuery,
  format: ExportFormat,
  options?: ClientOptions,
): string {
  return listUrl(typeof list === 'string' ? list : list.list, { ...query, format }, options);
}

const exportTypes: Readonly<Record<ExportFormat, string>> = {
  csv: 'text/csv',
  ndjson: 'application/x-ndjson',
};

/**
 * `GET` a list's export (`POST <list>/query` past `LONG_QUERY`, as `fetchList`), with the options'
 * headers (a bearer token). The `Response` itself, unread: its body is a stream of the records in
 * `format` (`response.body`, or `response.blob()` to save it). A refusal (422 keyed `format` where the
 * endpoint exports nothing or the records are more than its maximum) throws an `ApiError`.
 */
export async function fetchExport(
  list: ResourceEntry | string,
  query: ExportQuery,
  format: ExportFormat,
  options?: ClientOptions,
): Promise<Response> {
  const path = typeof list === 'string' ? list : list.list;
  const search = buildListQuery({ ...query, format });
  const doFetch = options?.fetch ?? fetch;
  const accept = { accept: exportTypes[format] };
  const long = search.length > LONG_QUERY;
  const target = long
    ? url(`${path.replace(/\/$/, '')}/query`, options)
    : exportUrl(path, query, format, options);
  const response = await doFetch(target, {
    method: long ? 'POST' : 'GET',
    headers: { ...options?.headers, ...accept, ...(long ? { 'content-type': 'application/json' } : {}) },
    ...(long ? { body: JSON.stringify({ query: search }) } : {}),
    ...(options?.signal ? { signal: options.signal } : {}),
  });
  if (!response.ok) throw new ApiError(response.status, target, await envelopeOf(response));
  return response;
}

/** One group of an aggregate: its keys under `group`, each metric by name. */
export type AggregateGroup = { group: Record<string, unknown> } & Record<string, unknown>;

/** The answer of `GET <list>/aggregate`. */
export interface AggregateAnswer<G = AggregateGroup> {
  data: G[];
  meta: { metrics: string[]; group_by: string[]; tz: string; limit: number; truncated: boolean };
}

/**
 * `GET <list>/aggregate?<query>`, or `POST <list>/aggregate/query` when the query string is longer than
 * `LONG_QUERY` (the same answer). A 422 (or any non-2xx) throws an `ApiError` with the error map.
 */
export async function fetchAggregate<A = AggregateAnswer>(
  list: ResourceEntry | string,
  query: AggregateQuery = {},
  options?: ClientOptions,
): Promise<A> {
  const path = (typeof list === 'string' ? list : list.list).replace(/\/$/, '');
  const search = buildAggregateQuery(query);
  if (search.length <= LONG_QUERY)
    return getJson<A>(url(`${path}/aggregate${search ? `?${search}` : ''}`, options), options);
  const target = url(`${path}/aggregate/query`, options);
  const response = await send('POST', target, { query: search }, options);
  if (!response.ok) throw new ApiError(response.status, target, await envelopeOf(response));
  return (await response.json()) as A;
}

/** `<endpoint>/<id>`, the id percent-encoded. */
export function recordUrl(endpoint: string, id: string | number, options?: ClientOptions): string {
  return url(`${endpoint.replace(/\/$/, '')}/${encodeURIComponent(String(id))}`, options);
}

const REFUSALS = new Set([409, 412, 422]);

async function send(
  method: string,
  target: string,
  body: RecordData | undefined,
  options: WriteOptions | undefined,
): Promise<Response> {
  const doFetch = options?.fetch ?? fetch;
  const headers: Record<string, string> = { accept: 'application/json', ...options?.headers };
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (options?.ifMatch !== undefined) headers['if-match'] = options.ifMatch;
  return doFetch(target, {
    method,
    headers,
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    ...(options?.signal ? { signal: options.signal } : {}),
  });
}

/** The refusal a caller handles itself, or an `ApiError` thrown for anything else that is not 2xx. */
async function refusalOf(response: Response, target: string): Promise<WriteRefusal | undefined> {
  if (response.ok) return undefined;
  const envelope = await envelopeOf(response);
  if (REFUSALS.has(response.status))
    return {
      ok: false,
      status: response.status as WriteRefusal['status'],
      message: envelope.message,
      errors: envelope.errors,
    };
  throw new ApiError(response.status, target, envelope);
}

async function recordOf<T>(response: Response): Promise<RecordResult<T>> {
  return { record: (await response.json()) as T, etag: response.headers.get('etag') ?? undefined };
}

/**
 * `GET <endpoint>/<id>`: one record and its ETag (keep it for `ifMatch`). A 404 (unknown, soft-deleted
 * without `trashed`, outside the endpoint's scope) throws an `ApiError`, like any non-2xx.
 */
export async function fetchRecord<T = RecordData>(
  endpoint: string,
  id: string | number,
  query: ReadQuery = {},
  options?: ClientOptions,
): Promise<RecordResult<T>> {
  const search = buildListQuery({
    ...(query.trashed ? { filter: [{ name: 'trashed', value: true }] } : {}),
    ...(query.include !== undefined && query.include.length > 0 ? { include: query.include } : {}),
    ...(query.count !== undefined && query.count.length > 0 ? { count: query.count } : {}),
    ...(query.fields !== undefined ? { fields: query.fields } : {}),
    ...(query.include_filter !== undefined ? { include_filter: query.include_filter } : {}),
    ...(query.include_sort !== undefined ? { include_sort: query.include_sort } : {}),
    ...(query.include_limit !== undefined ? { include_limit: query.include_limit } : {}),
  });
  const base = recordUrl(endpoint, id, options);
  const target = search ? `${base}?${search}` : base;
  const response = await send('GET', target, undefined, options);
  if (!response.ok) throw new ApiError(response.status, target, await envelopeOf(response));
  return recordOf<T>(response);
}

/**
 * `POST <endpoint>` with the new record's fields: the created record, its ETag and `Location`; a 422
 * or 409 is returned as `{ ok: false, errors }` keyed by field, other failures throw an `ApiError`.
 */
export async function createRecord<T = RecordData>(
  endpoint: string,
  values: RecordData,
  options?: ClientOptions,
): Promise<CreateResult<T>> {
  const target = url(endpoint.replace(/\/$/, ''), options);
  const response = await send('POST', target, values, options);
  const refused = await refusalOf(response, target);
  if (refused) return refused;
  return {
    ok: true,
    location: response.headers.get('location') ?? undefined,
    ...(await recordOf<T>(response)),
  };
}

/**
 * `PATCH <endpoint>/<id>` with the changed fields (`ifMatch`: the ETag they were edited from). The
 * updated record and its new ETag, or — for a 422, 409 or 412 — `{ ok: false, status, errors }`
 * (`{ email: ['…'] }`); other failures throw an `ApiError`.
 */
export async function patchRecord<T = RecordData>(
  endpoint: string,
  id: string | number,
  changes: RecordData,
  options?: WriteOptions,
): Promise<PatchResult<T>> {
  const target = recordUrl(endpoint, id, options);
  const response = await send('PATCH', target, changes, options);
  const refused = await refusalOf(response, target);
  if (refused) return refused;
  return { ok: true, ...(await recordOf<T>(response)) };
}

/**
 * `DELETE <endpoint>/<id>` (a soft delete where the resource has one). A 412 (changed since `ifMatch`)
 * or 409 (other records depend on it) is returned as `{ ok: false }`; other failures throw.
 */
export async function deleteRecord(
  endpoint: string,
  id: string | number,
  options?: WriteOptions,
): Promise<DeleteResult> {
  const target = recordUrl(endpoint, id, options);
  const response = await send('DELETE', target, undefined, options);
  const refused = await refusalOf(response, target);
  if (refused) return refused;
  // 204: nothing to read, but the body is drained so the connection can be reused.
  await response.text();
  return { ok: true };
}

/** `POST <endpoint>/<id>/restore`: the soft-deleted record back, with its ETag; a 404 throws. */
export async function restoreRecord<T = RecordData>(
  endpoint: string,
  id: string | number,
  options?: ClientOptions,
): Promise<RecordResult<T>> {
  const target = `${recordUrl(endpoint, id, options)}/restore`;
  const response = await send('POST', target, undefined, options);
  if (!response.ok) throw new ApiError(response.status, target, await envelopeOf(response));
  return recordOf<T>(response);
}
