import type { CompiledEndpoint } from '../plan/endpoint.js';
import type { Action, OpenApiOptions } from '../resource/policy.js';
import { buildSchemaDocument } from '../schema/document.js';
import type { SchemaDocument } from '../schema/types.js';
import {
  aggregateSchema,
  bodySchema,
  boundSchema,
  columnSchema,
  errorEnvelope,
  filterSchema,
  havingSchema,
  type JsonSchema,
  pageSchemas,
  recordSchema,
} from './schemas.js';

/** One endpoint as the service routes it. */
export interface OpenApiEndpoint {
  readonly endpoint: CompiledEndpoint;
  /** Where records are created and addressed by id (the form's endpoint, else the list's path). */
  readonly formPath: string;
}

export interface OpenApiInput {
  readonly prefix: string;
  readonly endpoints: readonly OpenApiEndpoint[];
  readonly options?: OpenApiOptions;
  /** A `context` hook is configured: a bearer token is documented unless `options` names schemes. */
  readonly authenticated: boolean;
  /** `ServiceConfig.publicUrl`: the document's server. */
  readonly publicUrl?: string;
  /** Live streams, when configured: the endpoints whose topics a stream takes, and how many at most. */
  readonly live?: { readonly paths: readonly string[]; readonly maxTopics: number };
}

/**
 * What the typed client needs of each endpoint, under the document's `x-resources` (read by
 * `renderTypes`, so types can be made from any copy of the document).
 */
export interface ResourceSummary {
  readonly list: string;
  readonly records: string;
  readonly actions: readonly Action[];
  /** Names under `components.schemas`. */
  readonly schemas: { record: string; filter: string; create?: string; update?: string; id: string };
  readonly include: readonly string[];
  readonly count: readonly string[];
  readonly sort: readonly string[];
  /**
   * The includes a request may filter, sort and limit, by include path: the name of their filter's
   * schema under `components.schemas`, and the sorts `include_sort[<path>]` takes.
   */
  readonly includeConstraints?: Readonly<Record<string, { filter: string; sort: readonly string[] }>>;
  /** `GET <list>/aggregate`, where the endpoint has it: its answer's schema and what it may name. */
  readonly aggregate?: {
    readonly schema: string;
    readonly metrics: readonly string[];
    readonly groupBy: readonly string[];
  };
}

export type OpenApiDocument = JsonSchema & {
  openapi: '3.1.0';
  paths: Record<string, Record<string, JsonSchema>>;
  components: { schemas: Record<string, JsonSchema> } & JsonSchema;
  'x-resources': Record<string, ResourceSummary>;
};

const json = (schema: JsonSchema, extra: JsonSchema = {}) => ({
  content: { 'application/json': { schema, ...extra } },
});
const ref = (kind: 'schemas' | 'responses' | 'parameters', name: string) => ({
  $ref: `#/components/${kind}/${name}`,
});

/** The error responses, by status; each is the error envelope. */
const errorResponses: Record<number, [string, string]> = {
  400: ['BadRequest', 'The request cannot be read (a body that is not JSON, an untrusted Host header).'],
  401: [
    'Unauthorized',
    'An Authorization header that is malformed, invalid or expired (any operation), or no identity where the access rule of this action wants one.',
  ],
  403: ['Forbidden', 'The access rule of this action refuses this identity.'],
  404: ['NotFound', 'No record with this id is visible here.'],
  405: [
    'MethodNotAllowed',
    'The path exists but the method (any other: PUT, TRACE, OPTIONS, QUERY…) is not one of its enabled actions (see Allow). Answered before credentials are read.',
  ],
  409: ['Conflict', 'A unique value is taken, or other records still reference this one.'],
  412: ['PreconditionFailed', 'If-Match names an ETag the record no longer has.'],
  413: ['PayloadTooLarge', 'The body is larger than this route accepts.'],
  415: ['UnsupportedMediaType', 'The body must be sent as application/json.'],
  422: ['Unprocessable', 'Invalid parameters or fields: every problem, by parameter or field.'],
  428: ['PreconditionRequired', 'This endpoint refuses writes without If-Match.'],
  429: [
    'TooManyRequests',
    'Too many of these are open or asked for by this caller; retry after Retry-After.',
  ],
  503: ['Unavailable', 'The database is unavailable or the statement took too long; retry later.'],
};

/** `$ref`s to the error responses of these statuses, in order. */
function responsesFor(statuses: readonly number[]): Record<string, JsonSchema> {
  return Object.fromEntries(
    [...new Set(statuses)]
      .sort((a, b) => a - b)
      .map((status) => [String(status), ref('responses', errorResponses[status]?.[0] ?? '')]),
  );
}

/** A regular expression's text matching `text` literally. */
const literally = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** `GET <prefix>/live` (src/core/live-route.ts, docs/live.md): one SSE stream of many topics. */
function liveOperation(live: NonNullable<OpenApiInput['live']>, identifies: boolean): JsonSchema {
  const lists = live.paths.map((path) => `resource/${path}`);
  const records = `^resource/(${live.paths.map(literally).join('|')})/[^/]+$`;
  return {
    tags: ['service'],
    summary: 'Live changes of lists and records, as Server-Sent Events',
    description:
      'One stream carries every topic of a page. Events name ids and a type, never row data: refetch through the list and read-one routes. `event: change` data `{topic, type: created|updated|deleted, ids}`; `event: reset` data `{topics, reason: expired|rate|late}` (refetch what those topics show); `event: end` data `{reason: expired|shutdown}` (reconnect, with Last-Event-ID). Each topic is checked as its list (a list topic) or its read (a record topic) would be.',
    operationId: 'live',
    parameters: [
      {
        name: 'topic',
        in: 'query',
        required: true,
        description: `A list's topic (resource/<endpoint>) or one record's (resource/<endpoint>/<id>, the id escaped as in its URL). At most ${live.maxTopics}.`,
        style: 'form',
        explode: true,
        schema: {
          type: 'array',
          minItems: 1,
          maxItems: live.maxTopics,
          items: { anyOf: [{ enum: lists }, { type: 'string', pattern: records }] },
        },
      },
      {
        name: 'last_event_id',
        in: 'query',
        description: 'The id of the last event received, to resume from (as the Last-Event-ID header).',
        schema: { type: 'integer', minimum: 0 },
      },
      {
        name: 'Last-Event-ID',
        in: 'header',
        description: 'The id of the last event received, to resume from.',
        schema: { type: 'string', pattern: '^[0-9]+$' },
      },
    ],
    responses: {
      '200': {
        description:
          'The stream, open until the client leaves, its credentials expire or the instance stops.',
        content: { 'text/event-stream': { schema: { type: 'string' } } },
      },
      ...responsesFor([...(identifies ? [401, 403] : [403]), 422, 429, 503]),
    },
  };
}

/** `users-loaded` → `UsersLoaded`. */
function pascal(text: string): string {
  const words = text.split(/[^A-Za-z0-9]+/).filter((word) => word !== '');
  const name = words.map((word) => word.charAt(0).toUpperCase() + word.slice(1)).join('');
  return /^[A-Za-z]/.test(name) ? name : `E${name}`;
}

const etagHeader = {
  ETag: { description: 'The version of the record, for If-Match.', schema: { type: 'string' } },
};

/**
 * Every read's validators (src/core/validators.ts): its 200 carries an ETag and Cache-Control, and
 * If-None-Match naming that ETag is answered 304 without a body.
 */
function conditional(get: JsonSchema): JsonSchema {
  const { parameters = [], responses = {} } = get as { parameters?: JsonSchema[]; responses?: JsonSchema };
  const ok = (responses as Record<string, JsonSchema>)['200'] as { headers?: JsonSchema } | undefined;
  const validator = {
    ETag: {
      description:
        (ok?.headers as { ETag?: { description: string } } | undefined)?.ETag?.description ??
        'A digest of the answer, for If-None-Match (none on an unlimited all=true, which is streamed).',
      schema: { type: 'string' },
    },
    'Cache-Control': {
      description:
        'no-cache: a cache asks again each time, with the ETag; private, no-cache where the answer depends on the caller.',
      schema: { type: 'string' },
    },
  };
  return {
    ...get,
    parameters: [
      ...parameters,
      {
        name: 'If-None-Match',
        in: 'header',
        required: false,
        description:
          'ETags of answers held: 304 without a body when the answer still has one of them (or *).',
        schema: { type: 'string' },
      },
    ],
    responses: {
      ...responses,
      ...(ok ? { '200': { ...ok, headers: { ...ok.headers, ...validator } } } : {}),
      '304': {
        description: 'Not modified: the answer still has the ETag sent in If-None-Match.',
        headers: validator,
      },
    },
  };
}

/**
 * The schema document's `detail`, as far as the document describes it: the to-many relations a record
 * page lists (src/schema/types.ts `DetailCollection`). Its other members are left open.
 */
const detailSchema: JsonSchema = {
  type: 'object',
  required: ['collections'],
  properties: {
    collections: {
      type: 'array',
      description: 'The to-many relations the endpoint includes, in the resource’s order.',
      items: {
        type: 'object',
        properties: {
          name: { type: 'string', description: 'The relation, as include= takes it.' },
          label: { type: 'string' },
          resource: { type: 'string', description: 'The related resource.' },
          schema: {
            type: ['string', 'null'],
            description: 'The related resource’s schema document path, when an endpoint serves one.',
          },
          titleColumns: {
            type: 'array',
            items: { type: 'string' },
            description: 'The columns of the related schema’s record title (empty: none).',
          },
          counted: { type: 'boolean', description: 'Whether count=<name> is allowed (<name>_count).' },
          limit: {
            type: ['integer', 'null'],
            minimum: 1,
            description:
              'The largest include_limit[<name>] taken, or null when the include takes no limit (read whole).',
          },
        },
        required: ['name', 'label', 'resource', 'schema', 'titleColumns', 'counted', 'limit'],
        additionalProperties: false,
      },
    },
  },
};

/**
 * The OpenAPI 3.1 document of a service, built once at start-up from the compiled endpoints and the
 * same schema document the `/v1/<path>/schema` routes serve: nothing in it is written by hand.
 */
export function buildOpenApi(input: OpenApiInput): OpenApiDocument {
  const { prefix, options } = input;
  // Credentials are read before any route runs (the context hook, or the host's own context when it
  // declares its schemes): a malformed or refused Authorization header is a 401 on every operation.
  const identifies = input.authenticated || options?.securitySchemes !== undefined;
  const schemas: Record<string, JsonSchema> = { ErrorEnvelope: errorEnvelope };
  const paths: Record<string, Record<string, JsonSchema>> = {};
  const resources: Record<string, ResourceSummary> = {};
  // TimeZone: the zones an aggregate's tz takes, once for every aggregate operation (several hundred names).
  const taken = new Set<string>(['ErrorEnvelope', 'TimeZone']);
  const timeZone = () => {
    schemas.TimeZone ??= {
      type: 'string',
      enum: timeZones(),
      description: 'An IANA time zone of the runtime that serves this document.',
    };
    return ref('schemas', 'TimeZone');
  };
  const operation = (path: string, method: string, value: JsonSchema) => {
    paths[path] ??= {};
    (paths[path] as Record<string, JsonSchema>)[method] = value;
  };

  for (const { endpoint, formPath } of input.endpoints) {
    let base = pascal(endpoint.path);
    for (let n = 2; taken.has(`${base}Record`); n++) base = `${pascal(endpoint.path)}${n}`;
    const names = {
      record: `${base}Record`,
      filter: `${base}Filter`,
      create: `${base}Create`,
      update: `${base}Update`,
      id: `${base}Id`,
      lengthAware: `${base}LengthAwarePage`,
      simple: `${base}SimplePage`,
      cursor: `${base}CursorPage`,
      aggregate: `${base}Aggregate`,
    };
    for (const name of Object.values(names)) taken.add(name);
    const listPath = `${prefix}/${endpoint.path}`;
    const declaration = endpoint.policy.schema ?? { table: { columns: [] } };
    const document: SchemaDocument = buildSchemaDocument(endpoint, declaration, listPath);
    const { actions, resource, policy } = endpoint;
    const key = resource.primaryKey === undefined ? undefined : resource.columns.get(resource.primaryKey);
    schemas[names.record] = recordSchema(endpoint);
    schemas[names.filter] = filterSchema(endpoint, document.table.filters, names.filter);
    // One filter schema per constrainable include: the related resource's filters, as the list's are.
    const includeFilters = new Map<string, string>();
    for (const [path, constraint] of endpoint.includeConstraints) {
      let name = `${base}${pascal(path)}IncludeFilter`;
      for (let n = 2; taken.has(name); n++) name = `${base}${pascal(path)}IncludeFilter${n}`;
      taken.add(name);
      includeFilters.set(path, name);
      schemas[name] = filterSchema(constraint, document.table.includeConstraints[path]?.filters ?? [], name);
    }
    schemas[names.id] = key
      ? columnSchema(key)
      : {
          type: 'string',
          description: `The key's values (${resource.keyColumns.join(', ')}) joined by commas, in that order.`,
        };
    const pages = pageSchemas(ref('schemas', names.record), endpoint.total);
    schemas[names.lengthAware] = pages.lengthAware;
    schemas[names.simple] = pages.simple;
    schemas[names.cursor] = pages.cursor;
    const hasForm = document.form.inputs.length > 0 || policy.schema?.form !== undefined;
    if (hasForm && actions.has('create')) schemas[names.create] = bodySchema(endpoint, document, 'create');
    if (hasForm && actions.has('update')) schemas[names.update] = bodySchema(endpoint, document, 'update');

    const include = [...endpoint.allowedIncludes];
    const count = [...endpoint.allowedCounts.keys()];
    const sort = [...endpoint.allowedSorts.keys()].flatMap((column) => [column, `-${column}`]);
    resources[endpoint.path] = {
      list: listPath,
      records: formPath,
      actions: [...actions],
      schemas: {
        record: names.record,
        filter: names.filter,
        id: names.id,
        ...(schemas[names.create] ? { create: names.create } : {}),
        ...(schemas[names.update] ? { update: names.update } : {}),
      },
      include,
      count,
      ...(includeFilters.size > 0 && {
        includeConstraints: Object.fromEntries(
          [...endpoint.includeConstraints].map(([path, constraint]) => [
            path,
            {
              filter: includeFilters.get(path) as string,
              sort: [...constraint.allowedSorts].flatMap((column) => [column, `-${column}`]),
            },
          ]),
        ),
      }),
      sort,
      ...(endpoint.aggregates &&
        actions.has('list') && {
          aggregate: {
            schema: names.aggregate,
            metrics: [...endpoint.aggregates.metrics.keys()],
            groupBy: [...endpoint.aggregates.groups.keys()],
          },
        }),
    };

    const tag = endpoint.path;
    const guarded = (action: Action) =>
      input.authenticated ||
      policy.access?.[action] !== undefined ||
      !(action === 'list' || action === 'read');
    const errors = (action: Action, ...statuses: number[]) =>
      responsesFor([...(guarded(action) ? [401, 403] : identifies ? [401] : []), ...statuses, 503]);
    const csv = (name: string, values: string[], description: string) => ({
      name,
      in: 'query',
      description: `${description} Comma-separated.`,
      style: 'form',
      explode: false,
      schema: { type: 'array', items: { enum: values }, uniqueItems: true },
      example: values.slice(0, 2).join(','),
    });
    // One parameter per owner and per include path (`fields[roles]`, `include_limit[posts]`): each
    // named as a URL writes it, so that its schema is that owner's or that include's alone — a list of
    // the allowed names, a filter object, a number — and a client or tester made from the document
    // sends exactly what the service reads.
    const fieldsParams = [...endpoint.allowedFields].map(([owner, names]) => {
      const written = owner === '' ? resource.name : owner;
      return {
        name: `fields[${written}]`,
        in: 'query',
        style: 'form',
        explode: false,
        description:
          owner === ''
            ? `Sparse fieldset of the records: only these fields (and the key) are answered (also written fields=<field>,…). Another name is a 422 keyed fields.${written}.`
            : `Sparse fieldset of the included ${owner}: only these fields (and its key). Only with include=${owner} (or an include below it) in the same request, else a 422 keyed fields.${written}.`,
        schema: { type: 'array', items: { enum: [...names] }, minItems: 1, uniqueItems: true },
        example: [...names].slice(0, 2).join(','),
      };
    });
    const constrainable = [...endpoint.includeConstraints.values()];
    const needsInclude = (param: string, path: string) =>
      `Only with include=${path} in the same request, else a 422 keyed ${param}.${path}.`;
    const includeParams = constrainable.flatMap((c) => [
      {
        name: `include_filter[${c.path}]`,
        in: 'query',
        style: 'deepObject',
        explode: true,
        description: `Filters of the included ${c.path}, as filter takes them: include_filter[${c.path}][<name>]=<value> or include_filter[${c.path}][<name>][<operator>]=<value>. ${needsInclude('include_filter', c.path)} Another name is a 422 keyed include_filter.${c.path}.<name>.`,
        schema: ref('schemas', includeFilters.get(c.path) as string),
      },
      {
        name: `include_sort[${c.path}]`,
        in: 'query',
        style: 'form',
        explode: false,
        description: `Order of the included ${c.path}: -column for descending; the key last, in the last term's direction. ${needsInclude('include_sort', c.path)}`,
        schema: {
          type: 'array',
          items: { enum: [...c.allowedSorts].flatMap((column) => [column, `-${column}`]) },
          minItems: 1,
          uniqueItems: true,
        },
      },
      {
        name: `include_limit[${c.path}]`,
        in: 'query',
        description: `At most this many of the included ${c.path} per record; each record then carries ${c.path.split('.').at(-1)}_total, the number its filter matches.${c.maxLimit !== undefined ? ` Absent: ${c.maxLimit} (maxLimit).` : ''} ${needsInclude('include_limit', c.path)}`,
        schema: { type: 'integer', minimum: 1, maximum: c.largestLimit },
      },
    ]);
    const shapeParams = [
      ...fieldsParams,
      ...(include.length > 0 ? [csv('include', include, 'Relations to load into each record.')] : []),
      ...includeParams,
      ...(count.length > 0 ? [csv('count', count, 'Relations to count, as `<relation>_count`.')] : []),
    ];
    const filterExample = exampleFilter(document);
    const filterParam = {
      name: 'filter',
      in: 'query',
      style: 'deepObject',
      explode: true,
      description:
        'filter[<name>]=<value> (equality) or filter[<name>][<operator>]=<value>; groups as filter[or][0][<name>]=…. Lists and pairs also as one comma-separated value.',
      schema: ref('schemas', names.filter),
      ...(filterExample ? { example: filterExample } : {}),
    };
    const description = policy.openapi?.description;
    const about = (summary: string) => ({ tags: [tag], summary, ...(description ? { description } : {}) });

    if (actions.has('list')) {
      const allowAll = endpoint.allowAll !== undefined;
      const exportsOffered = endpoint.allowExport !== undefined;
      // With all=true every paging parameter is refused (422); the description says so where it applies.
      const withAll = allowAll ? '; not with all=true, 422' : '';
      const page = (name: string, schema: JsonSchema, text: string) => ({
        name,
        in: 'query',
        description: text,
        schema,
      });
      const listOf = [
        ref('schemas', names.lengthAware),
        ref('schemas', names.simple),
        ref('schemas', names.cursor),
        ...(endpoint.allowAll !== undefined ? [{ type: 'array', items: ref('schemas', names.record) }] : []),
      ];
      // The exports (format=csv|ndjson, or Accept): the same 200 in two more media types, as a download.
      const exported = (ok: { description: string; content: JsonSchema }) =>
        exportsOffered
          ? {
              ...ok,
              description: `${ok.description} With format=csv or format=ndjson (or Accept: text/csv, application/x-ndjson), every matching record as a download${endpoint.allowExport === 'unlimited' ? ', streamed' : `, at most ${endpoint.allowExport}`}.`,
              content: {
                ...ok.content,
                'text/csv': {
                  schema: {
                    type: 'string',
                    description:
                      "RFC 4180 CSV, UTF-8, CRLF: a header row (the visible or selected columns, <relation>_count, to-one includes as relation.column), then one row per record; to-many includes as one cell of JSON; a text cell starting with = + - @ tab or CR prefixed with '.",
                  },
                },
                'application/x-ndjson': {
                  schema: {
                    type: 'string',
                    description: 'One record per line, each as the JSON list answers it.',
                  },
                },
              },
              headers: {
                'Content-Disposition': {
                  description: 'With an export: attachment; filename="<endpoint path>-<UTC date>.<format>".',
                  schema: { type: 'string' },
                },
                Vary: {
                  description: 'Accept: the answer depends on it.',
                  schema: { type: 'string' },
                },
              },
            }
          : ok;
      const listParameters: JsonSchema[] = [
        ...(document.table.filters.length > 0 ? [filterParam] : []),
        ...shapeParams,
        ...(sort.length > 0
          ? [
              csv(
                'sort',
                sort,
                'Order: a name ascending, -name descending; names are columns, columns of to-one relations (department.name) and relation counts (posts_count).',
              ),
            ]
          : []),
        ...(endpoint.searchTargets.length > 0
          ? [
              page(
                'search',
                { type: 'string', maxLength: 200 },
                'Records where any searchable column contains this text.',
              ),
            ]
          : []),
        page(
          'page',
          { type: 'integer', minimum: 1 },
          `Page number (length-aware and simple pagination; not with pagination=cursor${withAll}).`,
        ),
        page(
          'per_page',
          { type: 'integer', minimum: 1, maximum: endpoint.perPage.max, default: endpoint.perPage.default },
          `Records per page.${allowAll ? ` With all=true only its default (${endpoint.perPage.default}), which changes nothing; any other value is a 422.` : ''}`,
        ),
        page(
          'pagination',
          { enum: ['simple', 'cursor'] },
          `The envelope: absent for length-aware (with total), simple (no total), cursor (keyset)${withAll}.`,
        ),
        page(
          'cursor',
          { type: 'string' },
          `With pagination=cursor: next_cursor or prev_cursor of a page${withAll}.`,
        ),
        ...(allowAll
          ? [
              page(
                'all',
                { type: 'boolean' },
                `Every matching record as a plain array${endpoint.allowAll === 'unlimited' ? '' : ` (at most ${endpoint.allowAll}, else 422)`}. Not combined with page, pagination, cursor, or per_page other than its default (422 keyed by that parameter).`,
              ),
            ]
          : []),
        ...(exportsOffered
          ? [
              page(
                'format',
                { enum: ['csv', 'ndjson'] },
                `An export: every matching record (${endpoint.allowExport === 'unlimited' ? 'streamed' : `at most ${endpoint.allowExport}, else 422 keyed format`}) as CSV or NDJSON, a download. Wins over Accept (text/csv, application/x-ndjson). Not combined with page, per_page, pagination or cursor (422 keyed by that parameter)${allowAll ? '; all, when sent beside it, must be true (422 keyed all)' : ''}; another value is a 422 keyed format.`,
              ),
            ]
          : []),
      ];
      operation(listPath, 'get', {
        ...about(`List ${resource.name}`),
        operationId: `list${base}`,
        parameters: listParameters,
        responses: {
          '200': exported({
            description:
              'A length-aware page (the default), a simple page (pagination=simple), a cursor page (pagination=cursor) or, with all=true, an array.',
            ...json({ oneOf: listOf }),
          }),
          ...errors('list', 400, 422),
        },
      });
      const queryString = queryStringSchema(
        listParameters,
        endpoint.limits.maxQueryLength,
        `GET ${listPath}`,
      );
      const queryBody = {
        type: 'object',
        properties: { query: queryString },
        required: ['query'],
        additionalProperties: false,
      };
      // OpenAPI 3.1 has no QUERY operation (3.2 adds one): described as an extension of the path.
      operation(listPath, 'x-query', {
        ...about(`List ${resource.name} with the QUERY method`),
        operationId: `queryMethod${base}`,
        description:
          'The same list as GET, the query string as the body (application/x-www-form-urlencoded) or as JSON ({"query": …}); the URL without one. Its 200 has the validators of a GET.',
        requestBody: {
          required: true,
          content: {
            'application/x-www-form-urlencoded': { schema: queryString },
            'application/json': { schema: queryBody },
          },
        },
        responses: {
          '200': exported({
            description: 'The same answer as GET with this query string.',
            ...json({ oneOf: listOf }),
          }),
          ...errors('list', 400, 413, 415, 422),
        },
      });
      operation(`${listPath}/query`, 'post', {
        ...about(`List ${resource.name}, the query in the body`),
        operationId: `query${base}`,
        description:
          'The same list as GET, for a query string too long for a URL: the query string as JSON, the URL without one. QUERY on the list path takes the same body, or the query string itself as application/x-www-form-urlencoded.',
        requestBody: { required: true, ...json(queryBody) },
        responses: {
          '200': exported({
            description: 'The same answer as GET with this query string.',
            ...json({ oneOf: listOf }),
          }),
          ...errors('list', 400, 413, 415, 422),
        },
      });
    }

    const aggregates = endpoint.aggregates;
    if (aggregates && actions.has('list')) {
      schemas[names.aggregate] = aggregateSchema(aggregates);
      const metrics = [...aggregates.metrics.keys()];
      const groupBy = [...aggregates.groups.keys()];
      const text = (name: string, schema: JsonSchema, description: string) => ({
        name,
        in: 'query',
        description,
        schema,
      });
      const answer = {
        '200': {
          description: 'The groups, in the requested order; meta.truncated when more matched than limit.',
          ...json(ref('schemas', names.aggregate)),
        },
        ...errors('list', 400, 422),
      };
      const buckets = [...aggregates.groups.values()].filter((group) => group.kind === 'bucket');
      const dateOnly = buckets.length > 0 && buckets.every((group) => group.column.type === 'date');
      // What needs a date bucket, and what a date bucket needs: OpenAPI has no words for a dependency
      // between parameters, so each says it, and the service answers its breach with the 422 below.
      const bound =
        buckets.length === 0
          ? 'This endpoint has no date buckets: any value is a 422 keyed by this parameter.'
          : `Only with a date bucket in group_by (${buckets.map((group) => group.name).join(', ')}), and then required; without one, a 422 keyed by this parameter. Between from and to, at most ${aggregates.maxBuckets} buckets (maxBuckets), else a 422 keyed group_by.`;
      const aggregateParameters: JsonSchema[] = [
        ...(document.table.filters.length > 0 ? [filterParam] : []),
        ...(endpoint.searchTargets.length > 0
          ? [
              text(
                'search',
                { type: 'string', maxLength: 200 },
                'Rows where any searchable column contains this text.',
              ),
            ]
          : []),
        {
          ...csv('metrics', metrics, 'The metrics (absent: count).'),
          schema: { type: 'array', items: { enum: metrics }, minItems: 1, uniqueItems: true },
          example: metrics.slice(0, 2).join(','),
        },
        ...(groupBy.length > 0
          ? [csv('group_by', groupBy, 'The group keys; at most one date bucket (else a 422 keyed group_by).')]
          : []),
        text(
          'tz',
          { ...timeZone(), default: 'UTC' },
          'The IANA time zone date buckets are made in (Europe/Berlin): the zones of the runtime that serves the document. Another name is a 422 keyed tz (aliases the runtime knows, such as US/Eastern, are taken too).',
        ),
        text(
          'from',
          boundSchema(dateOnly),
          `The first instant counted: a date (midnight in tz)${dateOnly ? '' : ' or an instant with Z or an offset'}. ${bound}`,
        ),
        text('to', boundSchema(dateOnly), `The end of the range, exclusive, written as from. ${bound}`),
        csv(
          'sort',
          [...metrics, ...groupBy].flatMap((name) => [name, `-${name}`]),
          'Order of the groups by requested metrics or group keys (-name descending); then by every group key ascending. Only names this request asks for in metrics (count when it names none) or group_by, else a 422 keyed sort.',
        ),
        text(
          'limit',
          { type: 'integer', minimum: 1, maximum: aggregates.maxGroups, default: aggregates.maxGroups },
          'The most groups answered; past it meta.truncated is true.',
        ),
        {
          name: 'having',
          in: 'query',
          style: 'deepObject',
          explode: true,
          description:
            'having[<metric>][<op>]=<value>: keeps the groups whose metric compares so (eq, neq, gt, gte, lt, lte; not on avg). Only metrics this request asks for in metrics (count when it names none), else a 422 keyed having.<metric>.',
          schema: havingSchema(aggregates),
        },
      ];
      operation(`${listPath}/aggregate`, 'get', {
        ...about(`Aggregate ${resource.name}`),
        operationId: `aggregate${base}`,
        description:
          'Metrics over the rows the list would show (its filters, search, scopes and access rule), grouped. Buckets are computed in tz and need from and to; empty buckets are answered with count 0. Parameters that page or shape records (page, per_page, cursor, include, fields, all) are a 422 keyed by the parameter. metrics, group_by and sort are lists: given twice (metrics=count&metrics=sum:x) or in an array form (metrics[]=count&metrics[]=sum:x) each reads as its comma-separated list, in the order given; any other parameter given twice (tz, from, to, limit, search, one having[<metric>][<op>]) is a 422 keyed by it (having.<metric>).',
        parameters: aggregateParameters,
        responses: answer,
      });
      const aggregateQuery = queryStringSchema(
        aggregateParameters,
        endpoint.limits.maxQueryLength,
        `GET ${listPath}/aggregate`,
      );
      operation(`${listPath}/aggregate/query`, 'post', {
        ...about(`Aggregate ${resource.name}, the query in the body`),
        operationId: `aggregateQuery${base}`,
        description:
          'The same answer as GET <list>/aggregate, the query string as JSON, the URL without one.',
        requestBody: {
          required: true,
          ...json({
            type: 'object',
            properties: { query: aggregateQuery },
            required: ['query'],
            additionalProperties: false,
          }),
        },
        responses: { ...answer, ...errors('list', 400, 413, 415, 422) },
      });
    }

    const idParam = { name: 'id', in: 'path', required: true, schema: ref('schemas', names.id) };
    const recordPath = `${formPath}/{id}`;
    const ifMatch = {
      name: 'If-Match',
      in: 'header',
      required: policy.requireIfMatch === true,
      description: 'The ETag the change was made from (or *): 412 when the record has changed since.',
      schema: { type: 'string' },
    };
    const recordResponse = (status: string, text: string, extra: JsonSchema = {}) => ({
      [status]: {
        description: text,
        headers: { ...etagHeader, ...extra },
        ...json(ref('schemas', names.record)),
      },
    });
    const withIfMatch = policy.requireIfMatch ? [428] : [];
    if (actions.has('read')) {
      const trashed = endpoint.exactFilters.has('trashed') && resource.softDeleteColumn !== undefined;
      operation(recordPath, 'get', {
        ...about(`Read one ${resource.name} record`),
        operationId: `read${base}`,
        parameters: [
          idParam,
          ...shapeParams,
          ...(trashed
            ? [
                {
                  name: 'filter',
                  in: 'query',
                  style: 'deepObject',
                  explode: true,
                  description: 'filter[trashed]=true also finds a soft-deleted record.',
                  schema: {
                    type: 'object',
                    properties: { trashed: { type: 'boolean' } },
                    additionalProperties: false,
                  },
                },
              ]
            : []),
        ],
        responses: { ...recordResponse('200', 'The record.'), ...errors('read', 404, 422) },
      });
    }
    if (schemas[names.create])
      operation(formPath, 'post', {
        ...about(`Create a ${resource.name} record`),
        operationId: `create${base}`,
        requestBody: { required: true, ...json(ref('schemas', names.create)) },
        responses: {
          ...recordResponse('201', 'The record as stored.', {
            Location: { description: "The new record's URL.", schema: { type: 'string' } },
          }),
          ...errors('create', 400, 409, 413, 415, 422),
        },
      });
    if (schemas[names.update])
      operation(recordPath, 'patch', {
        ...about(`Update a ${resource.name} record`),
        operationId: `update${base}`,
        parameters: [idParam, ifMatch],
        requestBody: { required: true, ...json(ref('schemas', names.update)) },
        responses: {
          ...recordResponse('200', 'The record as stored.'),
          ...errors('update', 400, 404, 409, 412, 413, 415, 422, ...withIfMatch),
        },
      });
    if (actions.has('delete'))
      operation(recordPath, 'delete', {
        ...about(`Delete a ${resource.name} record${resource.softDeleteColumn ? ' (soft delete)' : ''}`),
        operationId: `delete${base}`,
        parameters: [idParam, ifMatch],
        responses: { '204': { description: 'Deleted.' }, ...errors('delete', 404, 409, 412, ...withIfMatch) },
      });
    if (actions.has('restore'))
      operation(`${recordPath}/restore`, 'post', {
        ...about(`Restore a soft-deleted ${resource.name} record`),
        operationId: `restore${base}`,
        parameters: [idParam, { ...ifMatch, required: false }],
        responses: { ...recordResponse('200', 'The record, restored.'), ...errors('restore', 404, 412) },
      });
    if (policy.schema)
      operation(`${prefix}/v1/${endpoint.path}/schema`, 'get', {
        ...about(`The schema document of ${endpoint.path}`),
        operationId: `schema${base}`,
        responses: {
          '200': {
            description: 'Table, form and detail descriptions for a frontend (the admin UI reads it).',
            ...json({
              type: 'object',
              required: ['table', 'form', 'detail'],
              properties: { detail: detailSchema },
            }),
          },
          ...errors('read'),
        },
      });
  }

  const entry = {
    type: 'object',
    properties: {
      ...Object.fromEntries(
        ['resource', 'path', 'title', 'list', 'schema'].map((name) => [name, { type: 'string' }]),
      ),
      key: {
        type: 'array',
        items: { type: 'string' },
        minItems: 1,
        description: 'The primary key’s columns; a composite key’s record path joins their values by commas.',
      },
    },
    required: ['resource', 'path', 'title', 'list', 'schema', 'key'],
    additionalProperties: false,
  };
  operation(`${prefix}/v1/schema`, 'get', {
    tags: ['service'],
    summary: 'The resources whose schema document this context may read',
    operationId: 'schemaIndex',
    responses: {
      '200': {
        description: 'The index.',
        ...json({
          type: 'object',
          properties: { resources: { type: 'array', items: entry } },
          required: ['resources'],
          additionalProperties: false,
        }),
      },
      ...responsesFor([...(identifies ? [401] : []), 503]),
    },
  });
  operation(`${prefix}/openapi.json`, 'get', {
    tags: ['service'],
    summary: 'This document',
    operationId: 'openapi',
    responses: {
      '200': { description: 'The OpenAPI 3.1 document.', ...json({ type: 'object' }) },
      // The document is the same for everyone, but the credentials are read first (503: an identity
      // provider's keys could not be fetched).
      ...(identifies ? responsesFor([401, 503]) : {}),
    },
  });

  if (input.live) operation(`${prefix}/live`, 'get', liveOperation(input.live, identifies));

  for (const operations of Object.values(paths))
    if (operations.get && operations.get !== paths[`${prefix}/live`]?.get)
      operations.get = conditional(operations.get);

  const schemes =
    options?.securitySchemes ?? (input.authenticated ? { bearerAuth: bearerScheme } : undefined);
  // Without a requirement of its own, a scheme is optional: the access rules decide per action.
  const security =
    options?.security ??
    (schemes ? [...Object.keys(schemes).map((name) => ({ [name]: [] })), {}] : undefined);
  const responses = Object.fromEntries(
    Object.values(errorResponses).map(([name, text]) => [
      name,
      {
        description: text,
        ...(name === 'Unavailable'
          ? { headers: { 'Retry-After': { description: 'Seconds to wait.', schema: { type: 'integer' } } } }
          : {}),
        ...(name === 'MethodNotAllowed'
          ? { headers: { Allow: { description: 'The enabled methods.', schema: { type: 'string' } } } }
          : {}),
        ...json(ref('schemas', 'ErrorEnvelope')),
      },
    ]),
  );
  return {
    openapi: '3.1.0',
    jsonSchemaDialect: 'https://spec.openapis.org/oas/3.1/dialect/base',
    info: {
      title: options?.title ?? 'Resource API',
      version: options?.version ?? '1.0.0',
      description:
        options?.description ??
        'List endpoints shaped by the query string behind server-side whitelists, and their records. A method a path does not enable is answered 405 (components.responses.MethodNotAllowed).',
    },
    ...(input.publicUrl ? { servers: [{ url: input.publicUrl.replace(/\/$/, '') }] } : {}),
    tags: [
      ...input.endpoints.map(({ endpoint }) => ({ name: endpoint.path })),
      { name: 'service', description: 'The index and this document.' },
    ],
    paths,
    components: {
      schemas,
      responses,
      ...(schemes ? { securitySchemes: schemes } : {}),
    },
    ...(security ? { security } : {}),
    'x-resources': resources,
  };
}

const bearerScheme = {
  type: 'http',
  scheme: 'bearer',
  bearerFormat: 'JWT',
  description: "A token whose claims become the request's context.",
};

/** An example `filter` value for the parameter: the first filter and an operator with a plain value. */
function exampleFilter(document: SchemaDocument): Record<string, unknown> | undefined {
  const samples: Record<string, unknown> = {
    string: 'text',
    integer: 10,
    decimal: 10.5,
    date: '2024-01-31',
    datetime: '2024-01-31',
    boolean: true,
  };
  for (const filter of document.table.filters) {
    const sample = filter.options?.[0]?.value ?? samples[filter.value];
    if (sample === undefined) continue;
    const op = filter.operators.find((name) => name === 'gte') ?? 'eq';
    return { [filter.name]: op === 'eq' ? sample : { [op]: sample } };
  }
  return undefined;
}

/** The IANA zones `tz` takes: this runtime's (`Intl`, which checks them), and UTC. */
function timeZones(): string[] {
  return ['UTC', ...Intl.supportedValuesOf('timeZone').filter((zone) => zone !== 'UTC')];
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * The query string of an operation sent in a body (`POST <list>/query`, `QUERY <list>`,
 * `POST <list>/aggregate/query`): `name=value` pairs joined by `&`, each name one of the operation's
 * query parameters (with its `[…]` keys), written and checked as there.
 */
function queryStringSchema(parameters: readonly JsonSchema[], maxLength: number, of: string): JsonSchema {
  const names = [
    ...new Set(parameters.filter((p) => p.in === 'query').map((p) => String(p.name).replace(/\[.*$/, ''))),
  ];
  const pair = `(?:${names.map(escapeRegExp).join('|')})(?:(?:\\[|%5[Bb])[^=&]*)?(?:=[^&]*)?`;
  return {
    type: 'string',
    maxLength,
    pattern: `^\\??(?:${pair})?(?:&(?:${pair})?)*$`,
    description: `The query string of ${of}, as it would follow "?" in the URL: its parameters (${names.join(', ')}), each written and read as that operation documents it. A name it does not take, or a value or combination it refuses, is answered as it answers it: a 422 keyed by that parameter.`,
  };
}
