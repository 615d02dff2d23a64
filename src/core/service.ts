import { ConfigurationError } from '../errors/configuration-error.js';
import { RequestError } from '../errors/request-error.js';
import { createLiveService } from '../live/live-service.js';
import { buildOpenApi, type OpenApiDocument, type OpenApiEndpoint } from '../openapi/index.js';
import { checkDefaultFilters } from '../plan/authorize.js';
import { type CompiledEndpoint, compileEndpoint } from '../plan/endpoint.js';
import { titleFor } from '../resource/plurals.js';
import type { Action, ContextRequest, ServiceConfig } from '../resource/policy.js';
import { resolveResources } from '../resource/resolve.js';
import { labelFor } from '../resource/words.js';
import { titleColumnsOf } from '../schema/document.js';
import type { DetailCollection, DetailRelated, DetailRelation } from '../schema/types.js';
import { readCatalog } from '../sql/catalog.js';
import type { Connection } from '../sql/connect.js';
import { unheldColumns } from '../sql/operators.js';
import { type AccessCheck, accessChecks, mayDo } from './access.js';
import { answerError, fallbackLogger } from './answer.js';
import {
  json,
  type ServiceLogger,
  type ServiceRequest,
  type ServiceResponse,
  type ServiceRoute,
  taggedJson,
} from './exchange.js';
import { listHandlers, type OneRecord } from './list/handlers.js';
import { type LiveTarget, liveRoute } from './live-route.js';
import { andThen, isThenable, type NowOrLater } from './now-or-later.js';
import { linkBase } from './origin.js';
import { queryBodyLimit, queryFromBody } from './query-body.js';
import { etagOf, type RecordRoutes, recordRoutes, type WriteCall } from './records.js';
import { digestTag, withValidators } from './validators.js';

export interface CreateServiceOptions<Ctx = unknown> {
  config: ServiceConfig<Ctx>;
  connection: Connection;
  /** Where failures outside a request go (live streams' reads of the change log); default: the console. */
  log?: ServiceLogger;
}

/**
 * What a matched route does with the request, its context, the query string and, on a record's
 * routes, the id's path segment as it came (still escaped; empty on the paths served as they are).
 */
type Run = (
  request: ServiceRequest,
  ctx: unknown,
  rawQuery: string,
  segment: string,
) => NowOrLater<ServiceResponse>;

/** What a host adapter's handler adds: `close()` ends what outlives a request (`ResourceService.close`). */
export interface ServiceCloser {
  close(): Promise<void>;
}

/**
 * The service, free of any web framework: `handle` takes a request and gives the response, or
 * `undefined` when the request is not for one of its routes (the host serves it, or answers 404).
 */
export interface ResourceService<Ctx = unknown> {
  /** Every route, for hosts that register them in their own router. */
  readonly routes: readonly ServiceRoute[];
  /** The prefix of every route (`/api`). */
  readonly prefix: string;
  handle(request: ServiceRequest<Ctx>): Promise<ServiceResponse | undefined>;
  /**
   * `handle`'s answer, given at once when it is ready without waiting (a read-one on SQLite, a 405),
   * else its promise: for a host that writes the response as soon as it exists, saving the cheapest
   * requests a few turns of the microtask queue. It throws nothing: a failure is an answer.
   */
  respond(request: ServiceRequest<Ctx>): NowOrLater<ServiceResponse | undefined>;
  /** The OpenAPI document served at `<prefix>/openapi.json` (undefined with `openapi: false`). */
  readonly openapi: OpenApiDocument | undefined;
  /**
   * Ends what outlives a request: live streams (each told `shutdown`, so its client resumes
   * elsewhere). Resolved once their last frames are taken: a server closed then finds their
   * connections idle. The connection to the database stays open; its owner closes it.
   */
  close(): Promise<void>;
}

/** Reads the catalog, compiles the configuration (failing loudly on any inconsistency) and routes it. */
export async function createService<Ctx = unknown>(
  options: CreateServiceOptions<Ctx>,
): Promise<ResourceService<Ctx>> {
  // Inside, the context is opaque: every callback receives the value the same configuration's hook
  // (or the host's) produced, so the Ctx the definitions were typed with holds at run time.
  const config = options.config as unknown as ServiceConfig;
  const { connection } = options;
  const catalog =
    config.introspect === false
      ? undefined
      : await readCatalog(
          connection.db,
          config.resources.map((resource) => resource.table),
        ).catch((error: unknown) => {
          throw new ConfigurationError(
            `Could not read the database's catalog (${error instanceof Error ? error.message : String(error)}); set introspect: false to rely on the declared columns.`,
          );
        });
  const resources = resolveResources(config.resources, catalog);
  const endpoints = config.endpoints.map((policy) => compileEndpoint(policy, resources, config.limits));
  // After the policies (their mistakes are the configuration's alone), a kind this engine has no column of
  // (an array on SQLite): every filter on it would fail.
  const unheld = unheldColumns(resources.values(), connection.dialect);
  if (unheld.length > 0)
    throw new ConfigurationError(
      unheld.length === 1
        ? (unheld[0] as string)
        : `${unheld.length} columns are of kinds ${connection.dialect.label} has no columns of:\n${unheld.map((line) => `- ${line}`).join('\n')}`,
    );
  const paths = new Set<string>();
  for (const endpoint of endpoints) {
    if (paths.has(endpoint.path))
      throw new ConfigurationError(`Two endpoints are served at "${endpoint.path}".`);
    paths.add(endpoint.path);
    checkDefaultFilters(endpoint);
  }
  const prefix = (config.prefix ?? '/api').replace(/\/$/, '');
  const log = options.log ?? consoleLogger;
  const live = config.live
    ? await createLiveService(connection, config.live, resources.values(), (err, message) =>
        log.warn({ err }, message),
      )
    : undefined;
  /** The endpoints live topics name, by path. */
  const liveTargets = new Map<string, LiveTarget>();
  const identified = config.identified ?? ((ctx: unknown) => ctx !== undefined && ctx !== null);

  /** Every path the service serves, with the largest body one of its routes reads. */
  const bodyLimits = new Map<string, number>();
  const route = (path: string, bodyLimit: number) =>
    bodyLimits.set(path, Math.max(bodyLimits.get(path) ?? 0, bodyLimit));
  /** Paths served as they are (lists, schema documents, the index, create), by method. */
  const exact = new Map<string, Map<string, Run>>();
  const serve = (path: string, method: string, run: Run, bodyLimit = 0) => {
    const methods = exact.get(path) ?? new Map<string, Run>();
    exact.set(path, methods);
    if (methods.has(method)) throw new ConfigurationError(`Two routes are served at ${method} ${path}.`);
    methods.set(method, run);
    route(path, bodyLimit);
  };
  /** `<base>/:id` and `<base>/:id/restore`, by base path (the list's, and the form's when it differs). */
  const byId = new Map<string, RecordRouting>();
  /** Every list path, served or not: a request there is the service's (405 when nothing is enabled). */
  const listPaths = new Set<string>();
  /** The runs that answer a list: their answers depend on `Accept` (an export, or JSON). */
  const listRuns = new WeakSet<Run>();
  /** Paths of routes an endpoint does not enable (its aggregates'), with the 404 every method gets. */
  const notServed = new Map<string, ServiceResponse>();

  // What each resource's schema says of its records, for the relations of the others' documents.
  const schemaOf = new Map<string, { path: string; titleColumns: string[] }>();
  for (const endpoint of endpoints)
    if (endpoint.policy.schema && !schemaOf.has(endpoint.resource.name))
      schemaOf.set(endpoint.resource.name, {
        path: `${prefix}/v1/${endpoint.path}/schema`,
        titleColumns: titleColumnsOf(endpoint.policy.schema),
      });

  const withSchema: { endpoint: CompiledEndpoint; records: RecordRoutes }[] = [];
  const documented: OpenApiEndpoint[] = [];
  for (const endpoint of endpoints) {
    const path = `${prefix}/${endpoint.path}`;
    const { policy } = endpoint;
    const resource = endpoint.resource.name;
    const { list, one, aggregate } = listHandlers(endpoint, connection);
    const records = recordRoutes(
      endpoint,
      connection,
      prefix,
      relatedOf(endpoint, schemaOf),
      (related) => schemaOf.get(related)?.path ?? null,
      live?.capture(endpoint.resource),
    );
    const may = accessChecks(policy, resource, identified);
    liveTargets.set(endpoint.path, { endpoint, list: may.list, read: may.read });
    listPaths.add(path);
    route(path, 0);
    if (endpoint.actions.has('list')) {
      /** The list of a query string, once access is granted. */
      const listed = (request: ServiceRequest, ctx: unknown, rawQuery: string) =>
        list({
          rawQuery,
          url: `${linkBase(config, request)}${path}`,
          ctx,
          signal: request.signal,
          primary: readsPrimary(request),
          accept: request.headers.accept,
        });
      // Not `async`: an async function that returns a promise adopts it through extra turns of the
      // microtask queue, on every list request. A throw here is the caller's, who awaits in a `try`.
      const listRun: Run = (request, ctx, rawQuery) => {
        const access = may.list(ctx);
        return access ? access.then(() => listed(request, ctx, rawQuery)) : listed(request, ctx, rawQuery);
      };
      listRuns.add(listRun);
      serve(path, 'GET', listRun);
      // A query too long for a URL, in the body (core/query-body.ts): access is decided first, as for
      // the URL's, so that who may not list learns nothing from how the body is refused.
      const limit = queryBodyLimit(endpoint.limits.maxQueryLength);
      const bodyRun: Run = async (request, ctx, rawQuery) => {
        const access = may.list(ctx);
        if (access) await access;
        return listed(request, ctx, await queryFromBody(request, rawQuery, limit));
      };
      listRuns.add(bodyRun);
      serve(path, 'QUERY', bodyRun, limit);
      serve(`${path}/query`, 'POST', bodyRun, limit);
      // Aggregates reveal no more than the list: the list's access rule, filters and scopes.
      if (endpoint.aggregates) {
        const aggregated = (request: ServiceRequest, ctx: unknown, rawQuery: string) =>
          aggregate({ rawQuery, ctx, signal: request.signal, primary: readsPrimary(request) });
        serve(`${path}/aggregate`, 'GET', async (request, ctx, rawQuery) => {
          const access = may.list(ctx);
          if (access) await access;
          return aggregated(request, ctx, rawQuery);
        });
        serve(
          `${path}/aggregate/query`,
          'POST',
          async (request, ctx, rawQuery) => {
            const access = may.list(ctx);
            if (access) await access;
            return aggregated(request, ctx, await queryFromBody(request, rawQuery, limit));
          },
          limit,
        );
      }
    }

    if (records.schemaPath) {
      withSchema.push({ endpoint, records });
      const documentPath = records.schemaPath;
      serve(documentPath, 'GET', async (_request, ctx) => {
        await may.read(ctx);
        const actions: Action[] = [];
        for (const action of endpoint.actions) if (await mayDo(policy, action, ctx)) actions.push(action);
        return json(200, records.document(actions, !actions.includes('update')));
      });
    }
    const { formPath } = records;
    documented.push({ endpoint, formPath });
    if (endpoint.actions.has('create'))
      serve(
        formPath,
        'POST',
        async (request, ctx) => {
          await may.create(ctx);
          const created = await records.create(writeCall(request, ctx));
          const location = `${formPath}/${encodeURIComponent(String(created.id))}`;
          return json(201, created.answer, { etag: created.etag, location });
        },
        records.bodyLimit,
      );
    // `<list>/aggregate` is the aggregates' path on every endpoint, as `<list>/query` is the body
    // list's: where they are not served, every method there says so (404), rather than reading the
    // record whose id would be "aggregate" (a 404 naming a record, or a 422 about read-one's query).
    // A URL means the same whether or not aggregates are enabled.
    if (!(endpoint.aggregates && endpoint.actions.has('list'))) {
      const absent = aggregatesAbsent(path);
      for (const unserved of [`${path}/aggregate`, `${path}/aggregate/query`]) {
        notServed.set(unserved, absent);
        route(unserved, 0);
      }
    }
    const routing = recordRouting({ endpoint, records, one, may });
    for (const base of new Set([path, formPath])) {
      if (byId.has(base)) throw new ConfigurationError(`Two endpoints address records at ${base}/:id.`);
      byId.set(base, routing);
      route(`${base}/:id`, records.bodyLimit);
      route(`${base}/:id/restore`, 0);
    }
  }
  // The index a frontend starts from: the resources this context may read, and where.
  serve(`${prefix}/v1/schema`, 'GET', async (_request, ctx) => {
    const resources = [];
    for (const { endpoint } of withSchema)
      if (await mayDo(endpoint.policy, 'read', ctx))
        resources.push({
          resource: endpoint.resource.name,
          path: endpoint.path,
          title: endpoint.policy.schema?.title ?? titleFor(endpoint.resource.name),
          list: `${prefix}/${endpoint.path}`,
          schema: `${prefix}/v1/${endpoint.path}/schema`,
          key: endpoint.resource.keyColumns,
        });
    return json(200, { resources });
  });

  if (live) serve(`${prefix}/live`, 'GET', liveRoute(live, liveTargets));

  const openapi =
    config.openapi === false
      ? undefined
      : buildOpenApi({
          prefix,
          endpoints: documented,
          authenticated: config.context !== undefined,
          ...(config.openapi ? { options: config.openapi } : {}),
          ...(config.publicUrl ? { publicUrl: config.publicUrl } : {}),
          ...(live && {
            live: {
              paths: [...liveTargets.keys()],
              maxTopics: live.settings.maxTopics,
            },
          }),
        });
  if (openapi) {
    // The same document for every request: its ETag is made once, not digested per request.
    const text = JSON.stringify(openapi);
    const answer = taggedJson(text, digestTag(text));
    serve(`${prefix}/openapi.json`, 'GET', async () => answer);
  }

  const contextOf = (request: ServiceRequest): unknown => {
    if (request.context) return request.context();
    const hook = config.context;
    if (!hook) return undefined;
    const seen: ContextRequest = { method: request.method, url: request.url, headers: request.headers };
    return hook(seen);
  };

  /**
   * The record route a method and path name, or the 405 of a record path that does not enable the
   * method; `undefined` where the path is not a record's.
   */
  const matchRecord = (verb: string, pathname: string, restore: boolean, segment: string) => {
    const start = (restore ? pathname.length - RESTORE.length : pathname.length) - segment.length;
    const routing = byId.get(pathname.slice(0, start - 1));
    if (!routing || segment === '') return undefined;
    const runs = restore ? routing.restore : routing.record;
    return runs.byMethod.get(verb) ?? runs.notAllowed;
  };

  const routes: ServiceRoute[] = [...bodyLimits].map(([path, bodyLimit]) => ({ path, bodyLimit }));
  const respond = (request: ServiceRequest): NowOrLater<ServiceResponse | undefined> => {
    const index = request.url.indexOf('?');
    const pathname = index === -1 ? request.url : request.url.slice(0, index);
    const verb = request.method === 'HEAD' ? 'GET' : request.method;
    // A path served as it is wins over a record's (`<list>/query` over the record whose key is
    // "query"), as OpenAPI matches concrete paths before templated ones.
    const methods = exact.get(pathname);
    let run: Run | ServiceResponse | undefined;
    let segment = '';
    if (methods) run = methods.get(verb) ?? methodNotAllowed([...methods.keys()]);
    // A list path whose list is not enabled (and no create there): only 405 remains.
    else if (listPaths.has(pathname)) return methodNotAllowed([]);
    else {
      const restore = pathname.endsWith(RESTORE);
      segment = recordSegment(pathname, restore);
      // Compared first, so that a read-one's path costs no look-up here (`<list>/aggregate/query`
      // is no record's path: it comes to the look-up after the records').
      run =
        (segment === AGGREGATE && notServed.get(pathname)) || matchRecord(verb, pathname, restore, segment);
      if (!run) return notServed.get(pathname);
    }
    // Which methods a path has does not depend on who asks: a 405 needs no context (and so no
    // credentials: a bad Authorization header does not turn it into a 401).
    if (typeof run !== 'function') return run;
    const rawQuery = index === -1 ? '' : request.url.slice(index + 1);
    // A list's answer, refusals included, depends on Accept: a cache keeps one per Accept. An answer
    // that depends on who asks must not be served to someone else by a shared cache.
    const varies = listRuns.has(run) ? 'Accept' : undefined;
    const dependsOnCaller = request.context !== undefined || config.context !== undefined;
    let answered: NowOrLater<ServiceResponse>;
    try {
      const context = contextOf(request);
      // Without a context hook there is nothing to wait for, and waiting would still cost a turn.
      answered = isThenable(context)
        ? Promise.resolve(context).then((ctx) => run(request, ctx, rawQuery, segment))
        : run(request, context, rawQuery, segment);
    } catch (error) {
      return refusal(request, error, dependsOnCaller, varies);
    }
    // An answer made at once is given at once: no closure, no promise (a read-one on SQLite).
    if (!(answered instanceof Promise)) return withValidators(request, answered, dependsOnCaller, varies);
    return answered.then(
      (settled) => withValidators(request, settled, dependsOnCaller, varies),
      (error: unknown) => refusal(request, error, dependsOnCaller, varies),
    );
  };
  /** The answer of a failure (a refusal in the envelope, or a 500), with its validators. */
  const refusal = (
    request: ServiceRequest,
    error: unknown,
    dependsOnCaller: boolean,
    varies: string | undefined,
  ): Promise<ServiceResponse> =>
    answerError(error, connection, request.log, request.method).then((answered) =>
      withValidators(request, answered, dependsOnCaller, varies),
    );
  return {
    routes,
    prefix,
    openapi,
    respond,
    close: async () => {
      await live?.close();
    },
    // An async function: a throw of `respond` (none is expected) still becomes a rejection.
    handle: async (request) => respond(request),
  };
}

/** The log of a service given none: warnings to the console, as one line each. */
const consoleLogger: ServiceLogger = {
  warn: (details, message) => console.warn(message, details),
  error: (details, message) => console.error(message, details),
};

/** The methods of a record's routes, and the action each is. */
const recordMethods: readonly (readonly [string, Action])[] = [
  ['GET', 'read'],
  ['PATCH', 'update'],
  ['DELETE', 'delete'],
];
const restoreMethods: readonly (readonly [string, Action])[] = [['POST', 'restore']];

/** What a record route needs of its endpoint. */
interface RecordTarget {
  readonly endpoint: CompiledEndpoint;
  readonly records: RecordRoutes;
  readonly one: ReturnType<typeof listHandlers>['one'];
  readonly may: Readonly<Record<Action, AccessCheck>>;
}

/**
 * A record's routes, made once per endpoint: by method, what `<base>/:id` does (read, update,
 * delete) and what `<base>/:id/restore` does, or the 405 of a method the path does not enable.
 */
function recordRouting(target: RecordTarget): RecordRouting {
  const { endpoint, records, one, may } = target;
  const name = endpoint.resource.name;
  const { linkSets } = records;
  /** The record's answer: its text is both the body and what the ETag digests when it is stored. */
  const readAnswer = (found: OneRecord | undefined, ctx: unknown): NowOrLater<ServiceResponse> => {
    if (!found) throw RequestError.single(404, 'id', `No ${name} record with this id.`);
    // Some of its fields: the answer's own ETag (`withValidators`), which no write takes.
    if (!found.stored) return json(200, found.answer);
    // A form that sets many-to-many links: the ETag covers them too, as a write's does.
    if (linkSets) {
      const { stored, answer } = found;
      return linkSets(stored, ctx).then((sets) =>
        json(200, answer, { etag: etagOf(endpoint.resource, stored, undefined, sets) }),
      );
    }
    if (found.answer !== found.stored)
      return json(200, found.answer, { etag: etagOf(endpoint.resource, found.stored) });
    const text = JSON.stringify(found.stored);
    return taggedJson(text, etagOf(endpoint.resource, found.stored, text));
  };
  // Not `async`: read-one is the request a detail view and a poll make all day, and each async layer
  // costs it a promise and a resumption (docs/benchmarks.md).
  const read: Run = (request, ctx, rawQuery, segment) =>
    andThen(
      one({
        id: decodeSegment(segment, name),
        rawQuery,
        ctx,
        signal: request.signal,
        primary: readsPrimary(request),
      }),
      (found) => readAnswer(found, ctx),
    );
  const runs: Record<Action, Run | undefined> = {
    read,
    update: async (request, ctx, _rawQuery, segment) => {
      const updated = await records.update(writeCall(request, ctx, decodeSegment(segment, name)));
      return json(200, updated.answer, { etag: updated.etag });
    },
    delete: async (request, ctx, _rawQuery, segment) => {
      await records.remove(writeCall(request, ctx, decodeSegment(segment, name)));
      return { status: 204, headers: {}, body: '' };
    },
    restore: async (request, ctx, _rawQuery, segment) => {
      const restored = await records.restore(writeCall(request, ctx, decodeSegment(segment, name)));
      return json(200, restored.answer, { etag: restored.etag });
    },
    list: undefined,
    create: undefined,
  };
  const routing = (allowed: readonly (readonly [string, Action])[]): MethodRuns => {
    const enabled = allowed.filter(([, action]) => endpoint.actions.has(action));
    const byMethod = new Map<string, Run>();
    for (const [method, action] of enabled) {
      const run = runs[action] as Run;
      // Access is decided before the id is read: who may not read learns nothing from a 404.
      const check = may[action];
      byMethod.set(method, (request, ctx, rawQuery, segment) => {
        const access = check(ctx);
        return access
          ? access.then(() => run(request, ctx, rawQuery, segment))
          : run(request, ctx, rawQuery, segment);
      });
    }
    return { byMethod, notAllowed: methodNotAllowed(enabled.map(([method]) => method)) };
  };
  return { record: routing(recordMethods), restore: routing(restoreMethods) };
}

/** A record path's runs by method (GET for HEAD too), and the 405 of every other method. */
interface MethodRuns {
  readonly byMethod: ReadonlyMap<string, Run>;
  readonly notAllowed: ServiceResponse;
}

/** The runs of `<base>/:id` and of `<base>/:id/restore`. */
interface RecordRouting {
  readonly record: MethodRuns;
  readonly restore: MethodRuns;
}

const RESTORE = '/restore';
const AGGREGATE = 'aggregate';

/**
 * 404 at `<list>/aggregate` (and its body form) where the endpoint does not enable aggregates: the
 * route does not exist, whatever the method, and a record keyed "aggregate" is found through the list.
 */
function aggregatesAbsent(path: string): ServiceResponse {
  const message = `Aggregates are not enabled on ${path}.`;
  return json(404, { message, errors: { path: [message] } });
}

/** A record path's id segment, as it came: after the last `/` of `<base>/:id` (or `<base>/:id/restore`). */
function recordSegment(pathname: string, restore: boolean): string {
  const end = restore ? pathname.length - RESTORE.length : pathname.length;
  // A loop, not `lastIndexOf`: V8 runs that in C++ through a runtime call, which a profile of
  // read-one showed among its larger costs (docs/benchmarks.md).
  let slash = end - 1;
  while (slash >= 0 && pathname.charCodeAt(slash) !== SLASH) slash--;
  return pathname.slice(slash + 1, end);
}

const SLASH = 0x2f;

/** 405: the path exists, the method is not one of its enabled actions (hosts answer it for their own paths). */
export function methodNotAllowed(allow: readonly string[]): ServiceResponse {
  const verbs = allow.includes('GET') ? [...allow, 'HEAD'] : [...allow];
  const message = `This method is not allowed here${verbs.length > 0 ? ` (allowed: ${verbs.join(', ')})` : ''}.`;
  return json(405, { message, errors: { method: [message] } }, { allow: verbs.join(', ') });
}

/**
 * `Consistency: primary`: the client reads from the primary rather than a replica, to see its own
 * writes at once (replicas apply them a few milliseconds later). Without replicas it changes nothing.
 */
function readsPrimary(request: ServiceRequest): boolean {
  const value = request.headers.consistency;
  return (Array.isArray(value) ? value[0] : value)?.trim().toLowerCase() === 'primary';
}

/** The parts of a request every write takes, and the record's id for the writes at `:id`. */
function writeCall(request: ServiceRequest, ctx: unknown, id?: string): WriteCall {
  const header = (name: string) => {
    const value = request.headers[name];
    return Array.isArray(value) ? value[0] : value;
  };
  return {
    contentType: header('content-type'),
    body: request.body,
    ifMatch: header('if-match'),
    ctx,
    log: request.log ?? fallbackLogger,
    id,
  };
}

/**
 * What an endpoint's schema document says of its records' related records: the belongs-to relations
 * whose key is visible, and the to-many relations the endpoint includes, in the resource's order.
 */
function relatedOf(
  endpoint: CompiledEndpoint,
  schemaOf: ReadonlyMap<string, { path: string; titleColumns: string[] }>,
): DetailRelated {
  const relations: DetailRelation[] = [];
  const collections: DetailCollection[] = [];
  for (const relation of endpoint.resource.relations.values()) {
    const related = schemaOf.get(relation.target.name);
    const schema = related?.path ?? null;
    const titleColumns = related?.titleColumns ?? [];
    if (relation.kind === 'belongsTo' && endpoint.resource.columns.get(relation.parentKey)?.hidden === false)
      relations.push({
        key: relation.parentKey,
        name: relation.name,
        included: endpoint.allowedIncludes.has(relation.name),
        resource: relation.target.name,
        title: titleColumns[0] ?? null,
        titleColumns,
        schema,
      });
    else if (
      (relation.kind === 'hasMany' || relation.kind === 'belongsToMany') &&
      endpoint.allowedIncludes.has(relation.name)
    )
      collections.push({
        name: relation.name,
        label: labelFor(relation.name),
        resource: relation.target.name,
        schema,
        titleColumns,
        counted: endpoint.allowedCounts.has(relation.name),
        limit: endpoint.includeConstraints.get(relation.name)?.largestLimit ?? null,
      });
  }
  return { relations, collections };
}

/** A path segment as the client meant it; one that does not decode is an id no record has. */
function decodeSegment(segment: string, resource: string): string {
  // Most ids have no escape: decoding them would only cost a call and a try.
  if (!segment.includes('%')) return segment;
  try {
    return decodeURIComponent(segment);
  } catch {
    throw RequestError.single(404, 'id', `No ${resource} record with this id.`);
  }
}
