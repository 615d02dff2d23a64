import { checkDefaultFilters } from '../plan/authorize.js';
import { type CompiledEndpoint, compileEndpoint } from '../plan/endpoint.js';
import type { ContextRequest, ServiceConfig } from '../resource/policy.js';
import { ConfigurationError, resolveResources } from '../resource/registry.js';
import { RequestError } from '../respond/error-bag.js';
import { readCatalog } from '../sql/catalog.js';
import type { Connection } from '../sql/connect.js';
import { mayDo, requireAccess } from './access.js';
import { answerError, fallbackLogger } from './answer.js';
import { json, type ServiceRequest, type ServiceResponse, type ServiceRoute } from './exchange.js';
import { listHandler } from './list.js';
import { linkBase } from './origin.js';
import { type RecordRoutes, recordRoutes } from './records.js';

export interface CreateServiceOptions<Ctx = unknown> {
  config: ServiceConfig<Ctx>;
  connection: Connection;
}

/** What a matched route does with the request, its context and the query string. */
type Run = (request: ServiceRequest, ctx: unknown, rawQuery: string) => Promise<ServiceResponse>;

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
  const paths = new Set<string>();
  for (const endpoint of endpoints) {
    if (paths.has(endpoint.path))
      throw new ConfigurationError(`Two endpoints are served at "${endpoint.path}".`);
    paths.add(endpoint.path);
    checkDefaultFilters(endpoint);
  }
  const prefix = (config.prefix ?? '/api').replace(/\/$/, '');
  const identified = config.identified ?? ((ctx: unknown) => ctx !== undefined && ctx !== null);

  const gets = new Map<string, Run>();
  const patches = new Map<string, { records: RecordRoutes; endpoint: CompiledEndpoint }>();
  const routes: ServiceRoute[] = [];
  const addGet = (path: string, run: Run) => {
    if (gets.has(path)) throw new ConfigurationError(`Two routes are served at GET ${path}.`);
    gets.set(path, run);
    routes.push({ method: 'GET', path, bodyLimit: 0 });
  };

  const withRecords: { endpoint: CompiledEndpoint; records: RecordRoutes }[] = [];
  for (const endpoint of endpoints) {
    const path = `${prefix}/${endpoint.path}`;
    const resource = endpoint.resource.name;
    const list = listHandler(endpoint, connection);
    addGet(path, async (request, ctx, rawQuery) => {
      await requireAccess(endpoint.policy, 'list', resource, ctx, identified);
      return list({ rawQuery, url: `${linkBase(config, request)}${path}`, ctx, signal: request.signal });
    });
    const records = recordRoutes(endpoint, connection, prefix);
    if (!records) continue;
    withRecords.push({ endpoint, records });
    addGet(records.schemaPath, async (_request, ctx) => {
      await requireAccess(endpoint.policy, 'read', resource, ctx, identified);
      return json(200, records.document(await mayDo(endpoint.policy, 'update', ctx)));
    });
    if (patches.has(records.formPath))
      throw new ConfigurationError(`Two forms update records at ${records.formPath}/:id.`);
    patches.set(records.formPath, { records, endpoint });
    routes.push({ method: 'PATCH', path: `${records.formPath}/:id`, bodyLimit: records.bodyLimit });
  }
  // The index a frontend starts from: the resources this context may read, and where.
  addGet(`${prefix}/v1/schema`, async (_request, ctx) => {
    const resources = [];
    for (const { endpoint } of withRecords)
      if (await mayDo(endpoint.policy, 'read', ctx))
        resources.push({
          resource: endpoint.resource.name,
          path: endpoint.path,
          title: endpoint.policy.schema?.title ?? endpoint.resource.name,
          list: `${prefix}/${endpoint.path}`,
          schema: `${prefix}/v1/${endpoint.path}/schema`,
        });
    return json(200, { resources });
  });

  const contextOf = (request: ServiceRequest): unknown => {
    if (request.context) return request.context();
    const hook = config.context;
    if (!hook) return undefined;
    const seen: ContextRequest = { method: request.method, url: request.url, headers: request.headers };
    return hook(seen);
  };

  /** The route a method and path name, with its run (PATCH: the id segment bound). */
  const match = (method: string, pathname: string): Run | undefined => {
    if (method === 'GET' || method === 'HEAD') return gets.get(pathname);
    if (method !== 'PATCH') return undefined;
    const cut = pathname.lastIndexOf('/');
    const target = patches.get(pathname.slice(0, cut));
    const segment = pathname.slice(cut + 1);
    if (!target || segment === '') return undefined;
    const { records, endpoint } = target;
    return async (request, ctx) => {
      await requireAccess(endpoint.policy, 'update', endpoint.resource.name, ctx, identified);
      const contentType = request.headers['content-type'];
      const updated = await records.update({
        id: decodeSegment(segment, endpoint.resource.name),
        contentType: Array.isArray(contentType) ? contentType[0] : contentType,
        body: request.body,
        ctx,
        log: request.log ?? fallbackLogger,
      });
      return json(200, updated);
    };
  };

  return {
    routes,
    prefix,
    async handle(request) {
      const index = request.url.indexOf('?');
      const pathname = index === -1 ? request.url : request.url.slice(0, index);
      const run = match(request.method, pathname);
      if (!run) return undefined;
      const response = await (async () => {
        try {
          const ctx = await contextOf(request);
          return await run(request, ctx, index === -1 ? '' : request.url.slice(index + 1));
        } catch (error) {
          return answerError(error, connection, request.log);
        }
      })();
      // An answer that depends on who asks must not be served to someone else by a shared cache.
      return request.context || config.context
        ? { ...response, headers: { ...response.headers, ...personal } }
        : response;
    },
  };
}

/**
 * Headers of every answer when a context is in use: the context usually comes from the Authorization
 * header or a cookie, and rows, totals and the schema's form differ by it.
 */
const personal = { vary: 'Authorization, Cookie', 'cache-control': 'private' } as const;

/** A path segment as the client meant it; one that does not decode is an id no record has. */
function decodeSegment(segment: string, resource: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw RequestError.single(404, 'id', `No ${resource} record with this id.`);
  }
}
