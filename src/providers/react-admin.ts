/**
 * A react-admin (ra-core v5) data provider for the service. Only `HttpError` is taken from ra-core at
 * run time: react-admin recognises it, and shows `body.errors` under the form's inputs. Live updates
 * follow react-admin's realtime convention (`subscribe`/`unsubscribe`, as ra-realtime calls them).
 */
import type {
  CreateParams,
  DataProvider,
  DeleteManyParams,
  DeleteParams,
  GetListParams,
  GetListResult,
  GetManyParams,
  GetManyReferenceParams,
  GetOneParams,
  Identifier,
  RaRecord,
  UpdateManyParams,
  UpdateParams,
} from 'ra-core';
import { HttpError } from 'ra-core';
import {
  type AggregateAnswer,
  type AggregateQuery,
  type ApiError,
  type ErrorMap,
  type ExportFormat,
  type ListQuery,
  type LiveChangeType,
  type LiveEvent,
  type LiveReset,
  type RecordData,
  topicOf,
} from '../client/index.js';
import type { FilterNode, FilterOperator, FilterScalar, FilterValue } from '../client/query.js';
import { operatorShapes } from '../kinds/operators.js';
import { endpointPath, keysOf, liveClientOf, loadQuery, type ProviderOptions, recordsApi } from './shared.js';

export type { LoadMeta, ProviderOptions } from './shared.js';

export interface ReactAdminOptions extends ProviderOptions {
  /**
   * Resources whose lists ask for `pagination=simple` (no count query): their pages answer `pageInfo`
   * (has a next page, has a previous page) instead of `total`.
   */
  simplePagination?: readonly string[];
}

/** Operator names, longest first: `name_not_contains` is `not_contains`, not `contains`. */
const operatorNames = (Object.keys(operatorShapes) as FilterOperator[]).sort((a, b) => b.length - a.length);
const isOperator = (name: string): name is FilterOperator => Object.hasOwn(operatorShapes, name);

type Filter = Record<string, unknown>;

const isPlainObject = (value: unknown): value is Filter =>
  typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Date);

function scalar(value: unknown, key: string): FilterScalar {
  if (value instanceof Date) return value.toISOString();
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return value;
  throw new HttpError(`The filter "${key}" has a value that is not a string, number or boolean.`, 400, {
    errors: {},
  });
}

function filterValue(value: unknown, key: string): FilterValue {
  return Array.isArray(value) ? value.map((item) => scalar(item, key)) : scalar(value, key);
}

/** `score_gte` → `score` and `gte`; a key with no operator suffix is the field itself. */
function splitKey(key: string): { name: string; op?: FilterOperator } {
  const op = operatorNames.find((name) => key.endsWith(`_${name}`) && key.length > name.length + 1);
  return op ? { name: key.slice(0, -(op.length + 1)), op } : { name: key };
}

const isEmpty = (value: unknown) =>
  value === undefined || value === null || value === '' || (Array.isArray(value) && value.length === 0);

/**
 * react-admin's filter object → the service's filter tree (exported for tests and custom views):
 * - `{ status: 'active' }` → `filter[status]=active`; an array → `in`;
 * - `{ score_gte: 80 }` → `filter[score][gte]=80` (any operator as a `_<operator>` suffix);
 * - `{ score: { gte: 80, lt: 90 } }` → the operators named as keys (for a field whose own name ends
 *   like an operator);
 * - `{ roles: { name: 'admin' } }` (what a `source="roles.name"` input writes) → `filter[roles.name]`;
 * - `{ or: [{ status: 'banned' }, { score_gte: 95 }] }` → a group (also `and`);
 * - empty values (`undefined`, `null`, `''`, `[]`) are left out, as react-admin means them.
 * `q` is not a filter: `searchOf` takes it.
 */
export function filterFromReactAdmin(filter: Filter, prefix = ''): FilterNode[] {
  const nodes: FilterNode[] = [];
  for (const [key, value] of Object.entries(filter)) {
    if (isEmpty(value) || (prefix === '' && key === 'q')) continue;
    if ((key === 'or' || key === 'and') && prefix === '' && Array.isArray(value)) {
      const members = value
        .map((member) => filterFromReactAdmin(isPlainObject(member) ? member : {}))
        .filter((member) => member.length > 0);
      if (members.length > 0) nodes.push(key === 'or' ? { or: members } : { and: members });
      continue;
    }
    if (isPlainObject(value)) {
      const keys = Object.keys(value);
      if (keys.length > 0 && keys.every(isOperator)) {
        for (const op of keys)
          if (!isEmpty(value[op]))
            nodes.push({ name: `${prefix}${key}`, op, value: filterValue(value[op], key) });
      } else nodes.push(...filterFromReactAdmin(value, `${prefix}${key}.`));
      continue;
    }
    const { name, op } = splitKey(key);
    const path = `${prefix}${name}`;
    if (op) nodes.push({ name: path, op, value: filterValue(value, key) });
    else if (Array.isArray(value)) nodes.push({ name: path, op: 'in', value: filterValue(value, key) });
    else nodes.push({ name: path, value: filterValue(value, key) });
  }
  return nodes;
}

/** `q` (react-admin's full-text filter, and the one reference inputs send) → `search`. */
function searchOf(filter: Filter | undefined): Pick<ListQuery, 'search'> {
  const q = filter?.q;
  return typeof q === 'string' && q.trim() !== '' ? { search: q } : {};
}

/** The fields of `data` whose value differs from `previousData` (deep, for JSON columns). */
export function changedFields(data: RecordData, previousData: RecordData | undefined): RecordData {
  const changes: RecordData = {};
  for (const [key, value] of Object.entries(data)) {
    const before = previousData?.[key];
    // An input the record has no value for (a new password), left empty: nothing to write.
    if (before === undefined && isEmpty(value)) continue;
    if (JSON.stringify(value ?? null) !== JSON.stringify(before ?? null)) changes[key] = value;
  }
  return changes;
}

/**
 * The error react-admin understands. Messages keyed by a field the save sent go to `body.errors`, one
 * string a field (react-admin shows them under the inputs); the others (`record` on a 412, `access`)
 * stay in the message, which react-admin notifies.
 */
function httpError(status: number, message: string, errors: ErrorMap, fields: readonly string[] = []) {
  const fieldErrors: Record<string, string> = {};
  for (const [key, messages] of Object.entries(errors))
    if (fields.includes(key)) fieldErrors[key] = messages.join(' ');
  return new HttpError(message, status, { message, errors: fieldErrors });
}

/** What `exportList` takes of `getList`'s parameters: the list's records, without its pages. */
export type ExportListParams = Pick<GetListParams, 'filter' | 'sort' | 'meta' | 'signal'>;

/**
 * `getAggregate`'s parameters: the aggregate query (docs/aggregates.md) with react-admin's `filter`
 * object (read exactly as `getList` reads it, `q` included), and a `signal`.
 */
export interface GetAggregateParams extends Omit<AggregateQuery, 'filter' | 'search'> {
  filter?: Record<string, unknown>;
  /**
   * Passed by react-admin's hooks; its `include`, `count` and `fields` (which shape records) are refused
   * (422 keyed by the name), anything else is the app's own.
   */
  meta?: unknown;
  signal?: AbortSignal;
}

/** `restore`'s parameters: the record's id, and react-admin's `meta` (the app's own; not sent). */
export interface RestoreParams {
  id: Identifier;
  meta?: unknown;
}

/**
 * An event of react-admin's realtime convention, on a topic `resource/<resource>` (a list) or
 * `resource/<resource>/<id>` (a record, the id as react-admin has it, not escaped).
 */
export type RealtimeEvent =
  | {
      readonly type: LiveChangeType;
      readonly topic: string;
      readonly payload: { readonly ids: Identifier[] };
      readonly date: Date;
    }
  | {
      /**
       * What the topic shows may have changed in ways the stream cannot tell (changes no longer kept,
       * a burst, a change recorded late): refetch it all. ra-realtime's list hooks refetch on any
       * event; code that switches on `created`/`updated`/`deleted` should treat `reset` as all three.
       */
      readonly type: 'reset';
      readonly topic: string;
      readonly payload: { readonly reason: LiveReset['reason'] };
      readonly date: Date;
    };

export type RealtimeCallback = (event: RealtimeEvent) => void;

/**
 * The react-admin data provider, with `exportList`, `getAggregate`, `restore` and the realtime
 * methods beside react-admin's own methods.
 */
export type ServiceDataProvider = DataProvider & {
  /**
   * Every record of a list (its filter, sort and `meta` include/count/fields) as CSV or NDJSON, made by
   * the service (docs/exports.md): react-admin's own `exporter` gets at most the 1,000 records it
   * fetched in the browser. The `Response`, its body unread.
   */
  exportList(resource: string, params: ExportListParams, format: ExportFormat): Promise<Response>;
  /**
   * `GET <list>/aggregate`: metrics over the rows the list's filter selects, grouped. Call it through
   * `useDataProvider()` (or react-query) in a dashboard; `{ data, meta }` as the service answers them.
   */
  getAggregate(resource: string, params: GetAggregateParams): Promise<AggregateAnswer>;
  /**
   * `POST <path>/<id>/restore`: a soft-deleted record back (react-admin has no method for it; call it
   * through `useDataProvider()`, from a "Restore" button on a deleted record's page). `{ data }` is the
   * record as restored, its ETag kept for the next update. A record that is not deleted, or does not
   * exist, is an `HttpError` with the service's 404 (403 where the context may not restore).
   */
  restore<R extends RaRecord = RaRecord>(resource: string, params: RestoreParams): Promise<{ data: R }>;
  /**
   * Calls `callback` with each change of a list (`resource/<resource>`) or a record
   * (`resource/<resource>/<id>`), through one stream for all topics (`<apiUrl>/live`). Resolves once
   * the stream carrying the topic is open; rejects with an `HttpError` when the service refuses it:
   * 404 where it has no live route, 422 for a resource that is not live, 401/403. The subscription
   * stays until `unsubscribe` (a refused topic is asked for again when the topics change).
   */
  subscribe(topic: string, callback: RealtimeCallback): Promise<{ data: null }>;
  /** Stops the callbacks `subscribe` gave for this topic; the stream closes with its last topic. */
  unsubscribe(topic: string, callback: RealtimeCallback): Promise<{ data: null }>;
};

/** A react-admin topic's resource and record id, or undefined when it is not one. */
function realtimeTopic(topic: string): { resource: string; id?: string } | undefined {
  const match = /^resource\/([^/]+)(?:\/(.+))?$/.exec(topic);
  if (!match) return undefined;
  const [, resource = '', id] = match;
  return id === undefined ? { resource } : { resource, id };
}

/** The realtime methods: each react-admin topic mapped to the service's, the events mapped back. */
function realtime(options: ReactAdminOptions) {
  const live = liveClientOf(options);
  const subscriptions = new Map<string, Map<RealtimeCallback, (() => void)[]>>();
  const toError = (error: ApiError) => httpError(error.status, error.envelope.message, error.envelope.errors);
  const forget = (topic: string, callback: RealtimeCallback) => {
    const byCallback = subscriptions.get(topic);
    for (const unsubscribe of byCallback?.get(callback) ?? []) unsubscribe();
    byCallback?.delete(callback);
    if (byCallback?.size === 0) subscriptions.delete(topic);
  };
  return {
    subscribe: (topic: string, callback: RealtimeCallback): Promise<{ data: null }> => {
      const parsed = realtimeTopic(topic);
      if (!parsed)
        return Promise.reject(
          httpError(422, `"${topic}" is no topic: resource/<resource> or resource/<resource>/<id>.`, {}),
        );
      const served = topicOf(endpointPath(options, parsed.resource), parsed.id);
      return new Promise((resolve, reject) => {
        const unsubscribe = live.subscribe(served, {
          onEvent: (event: LiveEvent) =>
            callback(
              event.kind === 'change'
                ? { type: event.type, topic, payload: { ids: keysOf(event.ids) }, date: new Date() }
                : { type: 'reset', topic, payload: { reason: event.reason }, date: new Date() },
            ),
          onOpen: () => resolve({ data: null }),
          // Only the first settles the promise: react-admin's realtime methods have no other channel.
          onError: (error) => reject(toError(error)),
        });
        const byCallback = subscriptions.get(topic) ?? new Map<RealtimeCallback, (() => void)[]>();
        subscriptions.set(topic, byCallback);
        byCallback.set(callback, [...(byCallback.get(callback) ?? []), unsubscribe]);
      });
    },
    unsubscribe: (topic: string, callback: RealtimeCallback): Promise<{ data: null }> => {
      forget(topic, callback);
      return Promise.resolve({ data: null });
    },
  };
}

/** A data provider over the service's list and records API (docs/react-admin-and-refine.md). */
export function reactAdminDataProvider(options: ReactAdminOptions): ServiceDataProvider {
  const api = recordsApi(options, httpError);

  const list = async <R extends RaRecord>(
    resource: string,
    params: GetListParams,
    extra: FilterNode[] = [],
  ): Promise<GetListResult<R>> => {
    const { pagination, sort, filter, meta, signal } = params;
    const simple = options.simplePagination?.includes(resource) ?? false;
    const query: ListQuery = {
      filter: [...extra, ...filterFromReactAdmin(filter ?? {})],
      ...searchOf(filter),
      ...(sort?.field ? { sort: sort.order === 'DESC' ? `-${sort.field}` : sort.field } : {}),
      ...(pagination ? { page: pagination.page, per_page: pagination.perPage } : {}),
      ...(simple ? { pagination: 'simple' as const } : {}),
      ...loadQuery(meta),
    };
    const page = await api.list(resource, query, signal);
    const data = page.data as R[];
    return page.total === undefined
      ? { data, pageInfo: { hasNextPage: page.hasNextPage, hasPreviousPage: page.hasPreviousPage } }
      : { data, total: page.total };
  };

  return {
    getList: <R extends RaRecord>(resource: string, params: GetListParams) => list<R>(resource, params),

    getOne: async <R extends RaRecord>(resource: string, params: GetOneParams<R>) => ({
      data: (await api.one(resource, params.id, params.meta, params.signal)) as R,
    }),

    getMany: async <R extends RaRecord>(resource: string, params: GetManyParams<R>) => ({
      data: (await api.many(resource, params.ids, params.meta, params.signal)) as R[],
    }),

    getManyReference: <R extends RaRecord>(resource: string, params: GetManyReferenceParams) =>
      list<R>(resource, params, [{ name: params.target, value: scalar(params.id, params.target) }]),

    create: async <_, R extends RaRecord>(resource: string, params: CreateParams) => ({
      data: (await api.create(resource, params.data as RecordData)) as R,
    }),

    update: async <R extends RaRecord>(resource: string, params: UpdateParams<R>) => {
      const changes = changedFields(params.data as RecordData, params.previousData as RecordData);
      return { data: (await api.update(resource, params.id, changes)) as R };
    },

    updateMany: async <R extends RaRecord>(resource: string, params: UpdateManyParams<R>) => {
      const data = params.data as RecordData;
      await Promise.all(params.ids.map((id) => api.update(resource, id, data)));
      return { data: params.ids };
    },

    delete: async <R extends RaRecord>(resource: string, params: DeleteParams<R>) => {
      await api.remove(resource, params.id);
      return { data: (params.previousData ?? { id: params.id }) as R };
    },

    deleteMany: async <R extends RaRecord>(resource: string, params: DeleteManyParams<R>) => {
      await Promise.all(params.ids.map((id) => api.remove(resource, id)));
      return { data: params.ids };
    },

    restore: async <R extends RaRecord = RaRecord>(resource: string, params: RestoreParams) => ({
      data: (await api.restore(resource, params.id)) as R,
    }),

    exportList: (resource: string, { filter, sort, meta, signal }: ExportListParams, format: ExportFormat) =>
      api.exportList(
        resource,
        {
          filter: filterFromReactAdmin(filter ?? {}),
          ...searchOf(filter),
          ...(sort?.field ? { sort: sort.order === 'DESC' ? `-${sort.field}` : sort.field } : {}),
          ...loadQuery(meta),
        },
        format,
        signal,
      ),

    getAggregate: (resource: string, { filter, meta, signal, ...query }: GetAggregateParams) =>
      api.aggregate(
        resource,
        { ...query, filter: filterFromReactAdmin(filter ?? {}), ...searchOf(filter) },
        meta,
        signal,
      ),

    ...realtime(options),

    supportAbortSignal: true,
  };
}
