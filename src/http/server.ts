import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest, type FastifyServerOptions } from 'fastify';
import { authorize, checkDefaultFilters } from '../plan/authorize.js';
import { type CompiledEndpoint, compileEndpoint } from '../plan/endpoint.js';
import { parseListQuery } from '../request/parse.js';
import { ErrorBag, RequestError } from '../respond/error-bag.js';
import { lengthAwarePage } from '../respond/length-aware.js';
import { rowReader } from '../respond/normalize.js';
import type { ServiceConfig } from '../resource/policy.js';
import { ConfigurationError, resolveResources } from '../resource/registry.js';
import type { Connection } from '../sql/connect.js';
import { ListCompiler } from '../sql/compile.js';

export interface ServiceOptions {
  config: ServiceConfig;
  connection: Connection;
  /** Fastify's logger option: `true` logs every request as JSON lines. */
  logger?: FastifyServerOptions['logger'];
}

function rawQueryOf(request: FastifyRequest): string {
  const url = request.raw.url ?? '';
  const index = url.indexOf('?');
  return index === -1 ? '' : url.slice(index + 1);
}

/** Compiles the configuration (failing loudly on any inconsistency) and builds the HTTP service. */
export async function buildService(options: ServiceOptions): Promise<FastifyInstance> {
  const { config, connection } = options;
  const resources = resolveResources(config.resources);
  const endpoints = config.endpoints.map((policy) => compileEndpoint(policy, resources, config.limits));
  const paths = new Set<string>();
  for (const endpoint of endpoints) {
    if (paths.has(endpoint.path)) throw new ConfigurationError(`Two endpoints are served at "${endpoint.path}".`);
    paths.add(endpoint.path);
    checkDefaultFilters(endpoint);
  }
  const prefix = (config.prefix ?? '/api').replace(/\/$/, '');

  const app = Fastify({
    logger: options.logger ?? false,
    // The list routes parse the raw query string themselves (qs, with limits that fail loudly);
    // Fastify's flat parser would only do work that is thrown away.
    routerOptions: { querystringParser: () => ({}) },
  });

  app.setErrorHandler((error: unknown, request, reply) => {
    if (error instanceof RequestError) return reply.status(error.status).send(error.envelope);
    const status = (error as { statusCode?: number }).statusCode;
    if (typeof status === 'number' && status >= 400 && status < 500)
      return reply.status(status).send({ message: (error as Error).message, errors: {} });
    request.log.error({ err: error }, 'request failed');
    return reply.status(500).send({ message: 'Internal server error.', errors: {} });
  });
  app.setNotFoundHandler((request, reply) =>
    reply.status(404).send({ message: `No route for ${request.method} ${request.url.split('?')[0]}.`, errors: {} }),
  );

  for (const endpoint of endpoints) {
    const read = rowReader(endpoint.resource);
    const transform = endpoint.policy.response;
    app.get(`${prefix}/${endpoint.path}`, async (request, reply) => {
      const rawQuery = rawQueryOf(request);
      const errors = new ErrorBag();
      const listRequest = parseListQuery(rawQuery, endpoint.limits, errors);
      const plan = authorize(listRequest, endpoint, errors);
      if (!plan) return reply.status(422).send(errors.toEnvelope());
      const compiler = new ListCompiler(connection.db, connection.dialect, plan, endpoint.policy);
      const offset = (plan.page - 1) * plan.perPage;
      const [countRow, rows] = await Promise.all([
        compiler.countQuery().executeTakeFirst(),
        compiler.pageQuery(plan.perPage, offset).execute(),
      ]);
      const records = rows.map(read);
      const data = transform ? records.map(transform) : records;
      return lengthAwarePage(data, {
        page: plan.page,
        perPage: plan.perPage,
        total: Number((countRow as { total: unknown } | undefined)?.total ?? 0),
        path: `${baseUrl(config, request)}${prefix}/${endpoint.path}`,
        rawQuery,
      });
    });
  }
  return app;
}

function baseUrl(config: ServiceConfig, request: FastifyRequest): string {
  return config.publicUrl?.replace(/\/$/, '') ?? `${request.protocol}://${request.host}`;
}

export type { CompiledEndpoint, FastifyReply };
