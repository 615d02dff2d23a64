/**
 * A typed client of the service, for browsers and Node (only `fetch`): the schema index, schema
 * documents, lists and PATCH. URLs are resolved against `baseUrl` (default: relative, for a page served
 * by the service itself).
 */
import type { LengthAwarePage, PageLink } from '../respond/length-aware.js';
import type { CursorPage, SimplePage } from '../respond/simple-and-cursor.js';
import type { SchemaDocument } from '../schema/types.js';
import { buildListQuery, type ListQuery } from './query.js';

export type { ValueShape } from '../plan/operators.js';
export type {
  InputType,
  SchemaDocument,
  SchemaFilter,
  SelectOption,
  TableColumnType,
} from '../schema/types.js';
export { isVisible, type VisibleWhen } from '../schema/visible-when.js';
export {
  buildListQuery,
  type FilterGroup,
  type FilterLeaf,
  type FilterNode,
  type FilterOperator,
  type FilterScalar,
  type FilterValue,
  isGroup,
  type ListQuery,
  operatorShape,
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
}

export type ErrorMap = Record<string, string[]>;

export interface ErrorEnvelope {
  message: string;
  errors: ErrorMap;
}

/** A non-2xx answer (other than PATCH's 422, which `patchRecord` returns). */
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

export type PatchResult<T = RecordData> =
  | { ok: true; record: T }
  | { ok: false; status: 422; message: string; errors: ErrorMap };

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

/** `GET <list>?<query>`; a 422 (or any non-2xx) throws an `ApiError` with the error map. */
export function fetchList<T = RecordData>(
  list: ResourceEntry | string,
  query: ListQuery = {},
  options?: ClientOptions,
): Promise<ListResponse<T>> {
  return getJson<ListResponse<T>>(
    listUrl(typeof list === 'string' ? list : list.list, query, options),
    options,
  );
}

/**
 * `PATCH <endpoint>/<id>` with the changed fields. The updated record, or — for a 422 — the error map
 * (`{ ok: false, errors: { email: ['…'] } }`); other failures throw an `ApiError`.
 */
export async function patchRecord<T = RecordData>(
  endpoint: string,
  id: string | number,
  changes: RecordData,
  options?: ClientOptions,
): Promise<PatchResult<T>> {
  const target = url(`${endpoint.replace(/\/$/, '')}/${encodeURIComponent(String(id))}`, options);
  const doFetch = options?.fetch ?? fetch;
  const response = await doFetch(target, {
    method: 'PATCH',
    headers: { accept: 'application/json', 'content-type': 'application/json', ...options?.headers },
    body: JSON.stringify(changes),
    ...(options?.signal ? { signal: options.signal } : {}),
  });
  if (response.status === 422) {
    const envelope = await envelopeOf(response);
    return { ok: false, status: 422, message: envelope.message, errors: envelope.errors };
  }
  if (!response.ok) throw new ApiError(response.status, target, await envelopeOf(response));
  return { ok: true, record: (await response.json()) as T };
}
