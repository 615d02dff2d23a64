import type { Expression, SqlBool } from 'kysely';
import type { Limits } from '../request/limits.js';
import type { SchemaDeclaration } from './schema-declaration.js';
import type {
  ConditionArgs,
  ContextCallback,
  CustomFilterCallback,
  DefaultFilterValue,
  ResourceDefinition,
} from './types.js';

export interface CustomFilter<Ctx = unknown> {
  readonly kind: 'custom';
  readonly name: string;
  readonly callback: CustomFilterCallback<Ctx>;
  /**
   * The JSON Schema of the values the callback takes, for the OpenAPI document (the callback still
   * checks them: a value it refuses is a 422). Without it the document says any value.
   */
  readonly schema?: Readonly<Record<string, unknown>>;
}

/** `Filter.custom(name, callback, { schema })`: the spec's `Filter::custom`. */
export const Filter = {
  custom<Ctx = unknown>(
    name: string,
    callback: CustomFilterCallback<Ctx>,
    options: { schema?: Readonly<Record<string, unknown>> } = {},
  ): CustomFilter<Ctx> {
    return { kind: 'custom', name, callback, ...(options.schema && { schema: options.schema }) };
  },
} as const;

export type AllowedFilter<Ctx = unknown> = string | CustomFilter<Ctx>;

/**
 * A default filter value, or a function of the request's context that gives one (`undefined`: no
 * default for this context). Called on every request.
 */
export type DefaultFilter<Ctx = unknown> =
  | DefaultFilterValue
  | ContextCallback<Ctx, DefaultFilterValue | undefined>;

/** May the request's context do this? Called on every request the action concerns. */
export type AccessRule<Ctx = unknown> = ContextCallback<Ctx, boolean | Promise<boolean>>;

/**
 * Who may do what on one endpoint. `list` (GET the list) and `read` (one record, the schema document)
 * are open when no rule is given; `create`, `update`, `delete` and `restore` are closed unless a rule
 * allows them. A denied request is 401 when the context has no identity (`ServiceConfig.identified`),
 * else 403.
 */
export interface AccessRules<Ctx = unknown> {
  list?: AccessRule<Ctx>;
  read?: AccessRule<Ctx>;
  create?: AccessRule<Ctx>;
  update?: AccessRule<Ctx>;
  delete?: AccessRule<Ctx>;
  restore?: AccessRule<Ctx>;
}

/** The actions of an endpoint, as `actions` and access rules name them. */
export type Action = keyof AccessRules;

/** The all-records mode's argument: a maximum record count, or `'unlimited'`. */
export type AllLimit = number | 'unlimited';

/**
 * How a length-aware page's `total` is found (docs/count-strategies.md): `'exact'` counts every
 * matching row; `{ exactUpTo: N }` counts up to N rows and, past N, reports the database planner's
 * estimate; `'estimated'` always reports the estimate; `'none'` reports no total. An estimate is
 * marked `total_is_estimate: true` in the envelope; SQLite has no planner estimate and always counts.
 */
export type TotalStrategy = 'exact' | 'estimated' | 'none' | { readonly exactUpTo: number };

/** A record as it leaves the database (columns normalized to JSON types). */
export type ResourceRecord = Record<string, unknown>;

/** What a client may ask for on one list endpoint. The property names are the spec's. */
export interface EndpointPolicy<Ctx = unknown> {
  /** Name of the resource this endpoint lists. */
  resource: string;
  /** URL segment after the prefix; defaults to the resource name (`/api/<path>`). */
  path?: string;
  allowedFilters?: AllowedFilter<Ctx>[];
  defaultFilters?: Record<string, DefaultFilter<Ctx>>;
  allowedIncludes?: string[];
  /**
   * The fields a client may name in `fields` (sparse fieldsets), spatie's form: `name` for a column
   * of the records, `<include path>.<column>` for one of an included relation's (`roles.name`).
   * Default: every visible column of the records and of each allowed include. The primary key is
   * always answered, whatever `fields` names.
   */
  allowedFields?: string[];
  allowedCounts?: string[];
  /**
   * What a client may constrain per include (`include_filter`, `include_sort`, `include_limit`), by
   * include path: each a to-many relation among `allowedIncludes`. Without an entry, an include takes
   * no constraint. `maxLimit` caps `include_limit` and, when the request gives none, limits the
   * include to it; a limited include adds `<relation>_total` to each parent record.
   */
  includeConstraints?: Record<string, IncludeConstraintPolicy>;
  allowedSorts?: string[];
  allowedSearch?: string[];
  allowAll?: AllLimit;
  /**
   * Exports (`format=csv`, `format=ndjson`, or `Accept`): at most this many records, or `'unlimited'`
   * (streamed in batches, memory flat at any size). Default: `allowAll`, so an endpoint without either
   * offers no export.
   */
  allowExport?: AllLimit;
  /** Order when the request gives none, in `sort` syntax; defaults to `-<primary key>`. */
  defaultSort?: string;
  /** Page size when the request gives none (15) and the largest a client may ask for (100). */
  perPage?: { default?: number; max?: number };
  /** How the length-aware paginator finds `total` (default `'exact'`; see `TotalStrategy`). */
  total?: TotalStrategy;
  /**
   * How long one statement of a list may run, in ms (default 5000): past it the database is told to
   * stop it and the client gets 503. PostgreSQL and MariaDB only (docs/faults-and-deadlines.md).
   */
  timeoutMs?: number;
  /**
   * A condition every query of this endpoint carries (visibility on this endpoint only; a tenant's
   * rows are better scoped on the resource, `ResourceDefinition.scope`, which applies everywhere).
   */
  baseQuery?: ContextCallback<ConditionArgs<Ctx>, Expression<SqlBool>>;
  /** The resource transformer: formats each record of the response (lists and PATCH). */
  response?(record: ResourceRecord, ctx: Ctx): unknown;
  /** Who may do each enabled action on this endpoint's records (see `AccessRules`). */
  access?: AccessRules<Ctx>;
  /**
   * The actions this endpoint serves (default: `list`, `read`, and `update` when the schema has a
   * form). A request for an action that is not here is 405 with an `Allow` header. `create` and
   * `update` need `schema.form`; `restore` needs the resource's soft-delete column.
   */
  actions?: Action[];
  /** PATCH and DELETE must carry `If-Match` (428 without it): no update can be made blind. */
  requireIfMatch?: boolean;
  /**
   * The schema document served at `/api/v1/<path>/schema`, and the form that PATCH `<endpoint>/<id>`
   * validates against. Without it, neither route exists.
   */
  schema?: SchemaDeclaration;
  /**
   * `GET <path>/aggregate` (docs/aggregates.md): metrics over the list's rows, grouped. Off unless
   * set; governed by the `list` access rule, with the list's filters, scopes and `baseQuery`.
   */
  aggregates?: AggregatePolicy;
  /** What the OpenAPI document says of this endpoint beyond what the policy tells (docs/openapi-and-types.md). */
  openapi?: {
    /** The JSON Schema of a record as the `response` transformer shapes it (default: any object). */
    record?: Record<string, unknown>;
    /** A description of the endpoint's operations. */
    description?: string;
  };
}

/**
 * What may be constrained on one include: names as in the endpoint's own `allowedFilters` and
 * `allowedSorts`, of the related resource's columns (and its relations and scopes, for filters).
 */
export interface IncludeConstraintPolicy {
  allowedFilters?: string[];
  allowedSorts?: string[];
  /** The largest `include_limit`, and the limit applied when the request gives none. */
  maxLimit?: number;
}

/** What an endpoint's aggregate route may compute (checked at start-up, `plan/aggregate.ts`). */
export interface AggregatePolicy {
  /**
   * The metrics a client may ask for: `count`, or `<metric>:<column>` with a metric among
   * `count_distinct`, `sum`, `avg`, `min`, `max` and a visible column of the records (`sum:balance`).
   */
  allowedAggregates?: string[];
  /**
   * The group keys a client may ask for: a visible column (`status`), a to-one relation path
   * (`department.name`), or a date bucket of a date or datetime column (`created_at:month`; units
   * `day`, `week` (ISO), `month`, `quarter`, `year`).
   */
  allowedGroupBy?: string[];
  /** The most groups one answer holds (default 1000): past it the answer is cut and says `truncated`. */
  maxGroups?: number;
  /** The most date buckets a request may span (default 1000): past it the request is refused (422). */
  maxBuckets?: number;
}

/** The request as the service's own `context` hook sees it (hosts may give their own hook instead). */
export interface ContextRequest {
  readonly method: string;
  /** Path and query string, as received. */
  readonly url: string;
  /** Header names in lower case. */
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
}

export interface ServiceConfig<Ctx = unknown> {
  resources: ResourceDefinition<Ctx>[];
  endpoints: EndpointPolicy<Ctx>[];
  /**
   * Who is asking: called once per request to the service's routes; its value reaches every callback.
   * A host adapter's own `context` option (which sees the host's request) takes its place. Throw a
   * `RequestError` (e.g. 401 for a bad token) to answer with it.
   */
  context?(request: ContextRequest): Ctx | Promise<Ctx>;
  /**
   * Whether a context carries an identity: a request whose access rule says no is 401 without one,
   * 403 with one. Default: the context is neither `undefined` nor `null`.
   */
  identified?: ContextCallback<Ctx, boolean>;
  /** Path prefix of the list endpoints; defaults to `/api`. */
  prefix?: string;
  /**
   * Absolute base URL used in pagination links (`https://example.com`). Without it, links are built
   * from the request's Host header, which must be a plain host[:port] (and one of `trustedHosts` when
   * given), or the request is refused with 400.
   */
  publicUrl?: string;
  /** Host names (without port) a request's Host header may name when `publicUrl` is not set. */
  trustedHosts?: string[];
  limits?: Partial<Limits>;
  /** Folder of the built admin UI (admin/dist), served at `/admin/`; absent: no admin UI. */
  adminDir?: string;
  /**
   * The OpenAPI 3.1 document at `<prefix>/openapi.json` (docs/openapi-and-types.md); `false` serves none.
   * Without `securitySchemes`, a configuration with a `context` hook documents an optional bearer token.
   */
  openapi?: false | OpenApiOptions;
  /**
   * Read column nullability from the database's catalog at start-up (default `true`). `false` relies on
   * the declarations alone (`nullable`), for databases whose catalog this user may not read.
   */
  introspect?: boolean;
  /**
   * Live streams (docs/live.md): `GET <prefix>/live?topic=resource/<path>[/<id>]` tells a client which
   * ids of its lists and records changed. Needs the change log (`resource-query-service live setup`).
   */
  live?: LiveOptions<Ctx>;
}

/** Live streams' settings; every one has a default (docs/live.md). */
export interface LiveOptions<Ctx = unknown> {
  /** The change log's table (default `live_changes`). */
  table?: string;
  /**
   * A Redis server (`redis://host:6379`) whose publish/subscribe wakes every instance when a write
   * commits: its changes reach all streams at once instead of at the next read of the log. Without it
   * (or while it is down) the log's reads every `pollMs` deliver everything, later.
   */
  redisUrl?: string;
  /** How often an instance with streams open reads the log (default 200 ms). */
  pollMs?: number;
  /** How long changes are kept, so a stream resumes with `Last-Event-ID` (default 1 hour). */
  retainMs?: number;
  /**
   * How long a missing sequence number is waited for (a write not yet committed) before the changes
   * after it are delivered (default 5000 ms); one recorded later resets its tables' topics.
   */
  gapMs?: number;
  /** The most topics one stream may carry (default 100): past it, 422. */
  maxTopics?: number;
  /**
   * The most streams one caller (`caller`) may hold open on one instance (default 10): past it, 429. A
   * context that names no caller is not counted per caller; `maxStreams` bounds every stream.
   */
  maxStreamsPerCaller?: number;
  /** The most streams one instance holds open (default 10,000): past it, 503 with Retry-After. */
  maxStreams?: number;
  /** The most events one stream gets per second (default 50): past it, a `reset` for the rest of the second. */
  maxEventsPerSecond?: number;
  /** How often an idle stream gets a comment, so proxies keep it open (default 15 s). */
  heartbeatMs?: number;
  /** Who holds a stream, for `maxStreamsPerCaller` (default: the context's `sub`; none: not counted per caller). */
  caller?: ContextCallback<Ctx, string | undefined>;
  /** When a context's credentials expire, in seconds since 1970 (default: its `exp`): its streams end then. */
  expiresAt?: ContextCallback<Ctx, number | undefined>;
}

/** The document's title, version and security (the rest comes from the definitions and policies). */
export interface OpenApiOptions {
  title?: string;
  version?: string;
  description?: string;
  /** Security Scheme Objects by name, as OpenAPI writes them. */
  securitySchemes?: Record<string, Record<string, unknown>>;
  /** Security Requirement Objects; default: any one of the schemes, or none (the context decides). */
  security?: Record<string, string[]>[];
}

/** Identity functions that give the definitions their types: `defineResource<MyContext>({...})`. */
export function defineResource<Ctx = unknown>(definition: ResourceDefinition<Ctx>): ResourceDefinition<Ctx> {
  return definition;
}

export function defineEndpoint<Ctx = unknown>(policy: EndpointPolicy<Ctx>): EndpointPolicy<Ctx> {
  return policy;
}
