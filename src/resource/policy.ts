import type { Expression, SqlBool } from 'kysely';
import type { Limits } from '../request/limits.js';
import type { SchemaDeclaration } from '../schema/types.js';
import type { Connection } from '../sql/connect.js';
import type { ConditionContext, CustomFilterCallback, ResourceDefinition } from './types.js';

export interface CustomFilter {
  readonly kind: 'custom';
  readonly name: string;
  readonly callback: CustomFilterCallback;
}

/** `Filter.custom(name, callback)`: the spec's `Filter::custom`. */
export const Filter = {
  custom(name: string, callback: CustomFilterCallback): CustomFilter {
    return { kind: 'custom', name, callback };
  },
} as const;

export type AllowedFilter = string | CustomFilter;

type Scalar = string | number | boolean;
/**
 * A default filter value, written as a client would send it: a scalar for equality, or a map from
 * operator to value (`{ gte: 10 }`, `{ in: ['a', 'b'] }`).
 */
export type DefaultFilterValue = Scalar | Record<string, Scalar | Scalar[]>;

/** The all-records mode's argument: a maximum record count, or `'unlimited'`. */
export type AllLimit = number | 'unlimited';

/** A record as it leaves the database (columns normalized to JSON types). */
export type ResourceRecord = Record<string, unknown>;

/** What a client may ask for on one list endpoint. The property names are the spec's. */
export interface EndpointPolicy {
  /** Name of the resource this endpoint lists. */
  resource: string;
  /** URL segment after the prefix; defaults to the resource name (`/api/<path>`). */
  path?: string;
  allowedFilters?: AllowedFilter[];
  defaultFilters?: Record<string, DefaultFilterValue>;
  allowedIncludes?: string[];
  allowedCounts?: string[];
  allowedSorts?: string[];
  allowedSearch?: string[];
  allowAll?: AllLimit;
  /** Order when the request gives none, in `sort` syntax; defaults to `-<primary key>`. */
  defaultSort?: string;
  /** Page size when the request gives none (15) and the largest a client may ask for (100). */
  perPage?: { default?: number; max?: number };
  /**
   * How long one statement of a list may run, in ms (default 5000): past it the database is told to
   * stop it and the client gets 503. PostgreSQL and MariaDB only (README, "Timeouts").
   */
  timeoutMs?: number;
  /** A condition every query of this endpoint carries (tenant scoping, visibility). */
  baseQuery?: (ctx: Omit<ConditionContext<undefined>, 'value'>) => Expression<SqlBool>;
  /** The resource transformer: formats each record of the response (lists and PATCH). */
  response?: (record: ResourceRecord) => unknown;
  /**
   * The schema document served at `/api/v1/<path>/schema`, and the form that PATCH `<endpoint>/<id>`
   * validates against. Without it, neither route exists.
   */
  schema?: SchemaDeclaration;
}

export interface ServiceConfig {
  resources: ResourceDefinition[];
  endpoints: EndpointPolicy[];
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
  /** Request paths (with query strings) printed at start-up as examples. */
  examples?: string[];
  /** Runs once when the service starts, before it listens (create tables, load demo data). */
  setup?: (connection: Connection) => Promise<void>;
  /** Folder of the built admin UI (admin/dist), served at `/admin/`; absent: no admin UI. */
  adminDir?: string;
  /**
   * Read column nullability from the database's catalog at start-up (default `true`). `false` relies on
   * the declarations alone (`nullable`), for databases whose catalog this user may not read.
   */
  introspect?: boolean;
}

export function defineResource(definition: ResourceDefinition): ResourceDefinition {
  return definition;
}

export function defineEndpoint(policy: EndpointPolicy): EndpointPolicy {
  return policy;
}

export function defineConfig(config: ServiceConfig): ServiceConfig {
  return config;
}
