/**
 * A refine (@refinedev/core v5) data provider for the service, and a live provider over its live
 * streams. Nothing of refine is needed at run time: its types only, and errors shaped as its
 * `HttpError` (`message`, `statusCode`, `errors` keyed by field, which forms show under their inputs).
 */
import type {
  BaseRecord,
  CreateParams,
  CrudFilter,
  CrudSort,
  CustomParams,
  DataProvider,
  DeleteOneParams,
  GetListParams,
  GetManyParams,
  GetOneParams,
  HttpError,
  LiveEvent,
  LiveProvider,
  LogicalFilter,
  Pagination,
  UpdateParams,
} from '@refinedev/core';
import qs from 'qs';
import {
  type AggregateQuery,
  buildListQuery,
  type ErrorMap,
  type ExportFormat,
  type ListQuery,
  type RecordData,
  type LiveEvent as ServiceLiveEvent,
  topicOf,
} from '../client/index.js';
import type { FilterNode, FilterOperator, FilterScalar, FilterValue } from '../client/query.js';
import { endpointPath, keysOf, liveClientOf, loadQuery, type ProviderOptions, recordsApi } from './shared.js';

export type { LoadMeta, ProviderOptions } from './shared.js';

/** refine's `HttpError`, as an `Error` (a stack, `instanceof`) with the fields refine reads. */
export class RefineHttpError extends Error implements HttpError {
  readonly statusCode: number;
  readonly errors: Record<string, string[]>;
  constructor(statusCode: number, message: string, errors: ErrorMap = {}) {
    super(message);
    this.name = 'RefineHttpError';
    this.statusCode = statusCode;
    this.errors = errors;
  }
}

const newError = (status: number, message: string, errors: ErrorMap) =>
  new RefineHttpError(status, message, errors);

type RefineOperator = LogicalFilter['operator'];

/**
 * refine's operators that the query language has. The case-sensitive variants (`eqs`, `containss`,
 * `startswiths`, …) and `ina`/`nina` (array columns) have no equivalent: they are refused (422) rather
 * than run with another meaning.
 */
const operatorMap: Partial<Record<RefineOperator, FilterOperator>> = {
  eq: 'eq',
  ne: 'neq',
  lt: 'lt',
  gt: 'gt',
  lte: 'lte',
  gte: 'gte',
  in: 'in',
  nin: 'not_in',
  contains: 'contains',
  ncontains: 'not_contains',
  between: 'between',
  nbetween: 'not_between',
  null: 'is_null',
  nnull: 'is_not_null',
  startswith: 'starts_with',
  nstartswith: 'not_starts_with',
  endswith: 'ends_with',
  nendswith: 'not_ends_with',
};

/** The field refine's search inputs can use: `{ field: 'q', operator: 'contains' | 'eq', value }`. */
const SEARCH_FIELD = 'q';

function refused(field: string, message: string): RefineHttpError {
  return new RefineHttpError(422, message, { [`filter.${field}`]: [message] });
}

function scalar(value: unknown, field: string): FilterScalar {
  if (value instanceof Date) return value.toISOString();
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return value;
  throw refused(field, `The filter "${field}" has a value that is not a string, number or boolean.`);
}

const isEmpty = (value: unknown) =>
  value === undefined || value === null || value === '' || (Array.isArray(value) && value.length === 0);

function leaf(filter: LogicalFilter): FilterNode | undefined {
  const { field, operator, value } = filter;
  const op = operatorMap[operator];
  if (op === undefined)
    throw refused(
      field,
      `The refine operator "${operator}" has no equivalent in the service's query language (case-sensitive and array operators).`,
    );
  // `null`/`nnull` need no value from refine; `false` inverts them, as the service reads it.
  if (op === 'is_null' || op === 'is_not_null') return { name: field, op, value: value !== false };
  if (isEmpty(value)) return undefined;
  const written: FilterValue = Array.isArray(value)
    ? value.map((item) => scalar(item, field))
    : scalar(value, field);
  return op === 'eq' ? { name: field, value: written } : { name: field, op, value: written };
}

/**
 * refine's `CrudFilters` → the service's filter tree (exported for tests and custom views). `or` and
 * `and` conditional filters become groups, nested as refine nests them; filters without a value (an
 * empty search input) are left out, as refine means them.
 */
export function filterFromRefine(filters: readonly CrudFilter[]): FilterNode[] {
  const nodes: FilterNode[] = [];
  for (const filter of filters) {
    if (filter.operator === 'or' || filter.operator === 'and') {
      const members = filter.value
        .map((member) => filterFromRefine([member]))
        .filter((member) => member.length > 0);
      if (members.length > 0) nodes.push(filter.operator === 'or' ? { or: members } : { and: members });
      continue;
    }
    const logical = filter as LogicalFilter;
    if (logical.field === SEARCH_FIELD) continue;
    const node = leaf(logical);
    if (node) nodes.push(node);
  }
  return nodes;
}

/** A top-level `q` filter → `search` (a search cannot sit inside a group: refused there). */
function searchOf(filters: readonly CrudFilter[]): Pick<ListQuery, 'search'> {
  const inGroup = (filter: CrudFilter): boolean =>
    (filter.operator === 'or' || filter.operator === 'and') &&
    filter.value.some((member) => ('field' in member && member.field === SEARCH_FIELD) || inGroup(member));
  if (filters.some(inGroup))
    throw refused(
      SEARCH_FIELD,
      'The search ("q") applies to the whole list; it cannot be part of an or/and group.',
    );
  const search = filters.find(
    (filter): filter is LogicalFilter => 'field' in filter && filter.field === SEARCH_FIELD,
  )?.value;
  return typeof search === 'string' && search.trim() !== '' ? { search } : {};
}

function sortOf(sorters: readonly CrudSort[] | undefined): Pick<ListQuery, 'sort'> {
  if (!sorters || sorters.length === 0) return {};
  return { sort: sorters.map(({ field, order }) => (order === 'desc' ? `-${field}` : field)) };
}

/** `server` (the default): one page; `off` and `client`: every record (`all=true`, see the docs). */
function pageOf(pagination: Pagination | undefined): Pick<ListQuery, 'page' | 'per_page' | 'all'> {
  if (pagination?.mode === 'off' || pagination?.mode === 'client') return { all: true };
  return { page: pagination?.currentPage ?? 1, per_page: pagination?.pageSize ?? 10 };
}

/** What `exportList` takes of `getList`'s parameters: the list's records, without its pages. */
export type ExportListParams = Pick<GetListParams, 'resource' | 'filters' | 'sorters' | 'meta'>;

/** A data provider over the service's list and records API (docs/react-admin-and-refine.md). */
export function refineDataProvider(options: ProviderOptions): Required<
  Pick<DataProvider, 'getMany' | 'custom'>
> &
  DataProvider & {
    /**
     * Every record of a list (its filters, sorters and `meta` include/count/fields) as CSV or NDJSON,
     * made by the service (docs/exports.md), where refine's `useExport` pages through `getList` in the
     * browser. The `Response`, its body unread.
     */
    exportList(params: ExportListParams, format: ExportFormat): Promise<Response>;
  } {
  const api = recordsApi(options, newError);

  return {
    getApiUrl: () => api.apiUrl,

    getList: async <T extends BaseRecord>({
      resource,
      pagination,
      sorters,
      filters,
      meta,
    }: GetListParams) => {
      const paging = pageOf(pagination);
      const page = await api.list(
        resource,
        {
          filter: filterFromRefine(filters ?? []),
          ...searchOf(filters ?? []),
          ...sortOf(sorters),
          ...paging,
          ...loadQuery(meta),
        },
        meta?.queryContext?.signal,
      );
      // refine needs a total: with length-aware pagination (the default) it is the service's count.
      // Without one (simple pagination, or the endpoint's `none` count strategy), the records up to
      // this page, plus one when a next page exists: refine then offers exactly one page more.
      const before = ((paging.page ?? 1) - 1) * (paging.per_page ?? 0);
      const known = before + page.data.length + (page.hasNextPage ? 1 : 0);
      return { data: page.data as T[], total: page.total ?? known };
    },

    getOne: async <T extends BaseRecord>({ resource, id, meta }: GetOneParams) => ({
      data: (await api.one(resource, id, meta, meta?.queryContext?.signal)) as T,
    }),

    getMany: async <T extends BaseRecord>({ resource, ids, meta }: GetManyParams) => ({
      data: (await api.many(resource, ids, meta, meta?.queryContext?.signal)) as T[],
    }),

    create: async <T extends BaseRecord, V>({ resource, variables }: CreateParams<V>) => ({
      data: (await api.create(resource, variables as RecordData)) as T,
    }),

    update: async <T extends BaseRecord, V>({ resource, id, variables }: UpdateParams<V>) => ({
      data: (await api.update(resource, id, variables as RecordData)) as T,
    }),

    deleteOne: async <T extends BaseRecord, V>({ resource, id }: DeleteOneParams<V>) => {
      await api.remove(resource, id);
      return { data: { id } as T };
    },

    custom: async <TData extends BaseRecord = BaseRecord, TQuery = unknown, TPayload = unknown>(
      params: CustomParams<TQuery, TPayload>,
    ) => {
      const aggregate = (params.meta as AggregateMeta | undefined)?.aggregate;
      const answer = aggregate ? await aggregateOf(api, params, aggregate) : await custom(api, params);
      return { data: answer as TData };
    },

    exportList: ({ resource, filters, sorters, meta }: ExportListParams, format: ExportFormat) =>
      api.exportList(
        resource,
        {
          filter: filterFromRefine(filters ?? []),
          ...searchOf(filters ?? []),
          ...sortOf(sorters),
          ...loadQuery(meta),
        },
        format,
        meta?.queryContext?.signal,
      ),
  };
}

/** `custom`'s `meta.aggregate`: the aggregate query but its rows, which `filters` select. */
export type AggregateMeta = { aggregate?: Omit<AggregateQuery, 'filter' | 'search'> };

/**
 * `custom` with `meta.aggregate` (refine's way to reach what is not CRUD, `useCustom`): `GET
 * <list>/aggregate` of the list `url` names (a resource name as `getList` takes it, or that path under
 * `apiUrl`), its rows selected by `filters` (and `q`) as `getList` selects them, `sorters` as its `sort`
 * unless the aggregate names one. Answers `{ data, meta }` as the service does.
 */
async function aggregateOf(
  api: ReturnType<typeof recordsApi>,
  { url, method, filters, sorters, meta }: CustomParams<unknown, unknown>,
  aggregate: NonNullable<AggregateMeta['aggregate']>,
) {
  if (method !== 'get')
    throw new RefineHttpError(422, `An aggregate is read with "get", not "${method}".`, {
      method: [`An aggregate is read with "get", not "${method}".`],
    });
  const resource = (url.startsWith(api.apiUrl) ? url.slice(api.apiUrl.length) : url)
    .replace(/^\//, '')
    .replace(/\/aggregate\/?$/, '');
  return api.aggregate(
    resource,
    {
      ...sortOf(sorters),
      ...aggregate,
      filter: filterFromRefine(filters ?? []),
      ...searchOf(filters ?? []),
    },
    meta,
    meta?.queryContext?.signal,
  );
}

/**
 * `custom`: any request to the service (`url` absolute, or relative to `apiUrl`), with the provider's
 * headers; `filters` and `sorters` written in the list grammar, `query` appended, `payload` sent as JSON.
 */
async function custom(api: ReturnType<typeof recordsApi>, params: CustomParams<unknown, unknown>) {
  const { url, method, sorters, filters, payload, query, headers } = params;
  const list = buildListQuery({ filter: filterFromRefine(filters ?? []), ...sortOf(sorters) });
  const extra = query ? qs.stringify(query) : '';
  const search = [list, extra].filter(Boolean).join('&');
  const target = /^[a-z]+:/i.test(url) ? url : `${api.apiUrl}/${url.replace(/^\//, '')}`;
  const options = await api.clientOptions();
  const response = await (options.fetch ?? fetch)(search ? `${target}?${search}` : target, {
    method: method.toUpperCase(),
    headers: {
      accept: 'application/json',
      ...(payload !== undefined ? { 'content-type': 'application/json' } : {}),
      ...options.headers,
      ...(headers as Record<string, string> | undefined),
    },
    ...(payload !== undefined ? { body: JSON.stringify(payload) } : {}),
  });
  const text = await response.text();
  const body: unknown =
    text && response.headers.get('content-type')?.includes('json') ? JSON.parse(text) : text;
  if (!response.ok) {
    const envelope = (typeof body === 'object' && body !== null ? body : {}) as {
      message?: string;
      errors?: ErrorMap;
    };
    throw newError(response.status, envelope.message ?? response.statusText, envelope.errors ?? {});
  }
  return body;
}

export interface RefineLiveOptions extends ProviderOptions {
  /**
   * A refusal of a channel's stream (404: the service has no live route; 422: a resource that is not
   * live; 401/403): refine's live hooks have no place for it. Default: none (the pages still work,
   * without live updates).
   */
  onError?: (error: RefineHttpError, channel: string) => void;
}

/** What `subscribe` gives back, for `unsubscribe`. */
export interface RefineLiveSubscription {
  readonly channel: string;
  /** The service's topic (`resource/users`, `resource/users/7`), or undefined for a channel not of a resource. */
  readonly topic: string | undefined;
  close(): void;
}

type SubscribeOptions = Parameters<LiveProvider['subscribe']>[0];

const CHANNEL = 'resources/';

/**
 * refine's live provider over the service's live streams (one stream for every subscription). A
 * channel `resources/<resource>` is the list's topic; with one id in `params.ids` (`useOne`) the
 * record's; with several (`useMany`) the list's, its changes passed on only when they name one of
 * those ids. An event is `{ channel, type, payload: { ids }, date }`; a reset (the server cannot tell
 * what changed) is `type: "*"` with an empty payload, which refine's hooks answer by refetching.
 * `publish` is absent: the service publishes its own writes.
 */
export function refineLiveProvider(options: RefineLiveOptions): LiveProvider & {
  subscribe(options: SubscribeOptions): RefineLiveSubscription;
  unsubscribe(subscription: RefineLiveSubscription): void;
} {
  const live = liveClientOf(options);
  return {
    subscribe: ({ channel, types, params, callback }: SubscribeOptions): RefineLiveSubscription => {
      const resource = channel.startsWith(CHANNEL) ? channel.slice(CHANNEL.length) : undefined;
      if (!resource) return { channel, topic: undefined, close: () => {} };
      const ids = params?.ids ?? (params?.id !== undefined ? [params.id] : []);
      const path = endpointPath(options, resource);
      const topic = ids.length === 1 ? topicOf(path, ids[0]) : topicOf(path);
      const wanted = ids.length > 1 ? new Set(ids.map(String)) : undefined;
      const everything = types.length === 0 || types.includes('*');
      const onEvent = (event: ServiceLiveEvent) => {
        if (event.kind === 'reset') {
          callback({ channel, type: '*', payload: {}, date: new Date() });
          return;
        }
        if (!everything && !types.includes(event.type)) return;
        if (wanted && !event.ids.some((id) => wanted.has(String(id)))) return;
        const refined: LiveEvent = {
          channel,
          type: event.type,
          payload: { ids: keysOf(event.ids) },
          date: new Date(),
        };
        callback(refined);
      };
      const close = live.subscribe(topic, {
        onEvent,
        onError: (error) =>
          options.onError?.(
            new RefineHttpError(error.status, error.envelope.message, error.envelope.errors),
            channel,
          ),
      });
      return { channel, topic, close };
    },
    unsubscribe: (subscription: RefineLiveSubscription) => subscription.close(),
  };
}
