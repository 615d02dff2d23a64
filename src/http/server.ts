import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import Fastify, {
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  type FastifyServerOptions,
} from 'fastify';
import { checkDefaultFilters } from '../plan/authorize.js';
import { compileEndpoint } from '../plan/endpoint.js';
import type { ServiceConfig } from '../resource/policy.js';
import { ConfigurationError, resolveResources } from '../resource/registry.js';
import { RequestError } from '../respond/error-bag.js';
import { refusalError, timeoutError } from '../respond/refusal.js';
import { readCatalog } from '../sql/catalog.js';
import type { Connection } from '../sql/connect.js';
import { QueryCancelled, QueryTimeout } from '../sql/dialect.js';
import { registerAdmin } from './admin.js';
import { listRoute } from './list-route.js';
import { registerResourceRoutes } from './resource-routes.js';

export interface ServiceOptions {
  config: ServiceConfig;
  connection: Connection;
  /** Fastify's logger option: `true` logs every request as JSON lines. */
  logger?: FastifyServerOptions['logger'];
}

/** Compiles the configuration (failing loudly on any inconsistency) and builds the HTTP service. */
export async function buildService(options: ServiceOptions): Promise<FastifyInstance> {
  const { config, connection } = options;
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

  const app = Fastify({
    logger: options.logger ?? false,
    clientErrorHandler: answerClientError,
    // Errors Fastify finds before routing (a URL that does not decode): the same envelope as ours.
    frameworkErrors: (error, _request, reply) => {
      const status = (error as { statusCode?: number }).statusCode ?? 400;
      const message =
        status === 400 ? 'The request URL is malformed (an escape that does not decode).' : error.message;
      // The reply's generic types depend on route schemas this hook has none of.
      (reply as FastifyReply).status(status).send({ message, errors: { url: [message] } });
    },
    // The list routes parse the raw query string themselves (qs, with limits that fail loudly);
    // Fastify's flat parser would only do work that is thrown away.
    routerOptions: { querystringParser: () => ({}) },
  });

  app.setErrorHandler(async (error: unknown, request, reply) => {
    if (error instanceof RequestError)
      return reply.status(error.status).headers(error.headers).send(error.envelope);
    const status = (error as { statusCode?: number }).statusCode;
    if (typeof status === 'number' && status >= 400 && status < 500)
      return reply.status(status).send({ message: (error as Error).message, errors: {} });
    if (error instanceof QueryTimeout || error instanceof QueryCancelled) {
      // The database was told to stop the statement: past the endpoint's timeout, or for a client that left.
      request.log.warn({ err: error }, error.message);
      const answer = timeoutError(error instanceof QueryTimeout ? error.ms : undefined);
      return reply.status(answer.status).headers(answer.headers).send(answer.envelope);
    }
    // A refusal of the database is the client's answer (503, 409, 422); its cause goes to the log only.
    const refusal = await connection.dialect.refusal(error, connection.db).catch(() => undefined);
    if (refusal) {
      request.log.warn({ err: error }, `database refused the request (${refusal.kind})`);
      const answer = refusalError(refusal);
      return reply.status(answer.status).headers(answer.headers).send(answer.envelope);
    }
    request.log.error({ err: error }, 'request failed');
    return reply.status(500).send({ message: 'Internal server error.', errors: {} });
  });
  app.setNotFoundHandler((request, reply) =>
    reply
      .status(404)
      .send({ message: `No route for ${request.method} ${request.url.split('?')[0]}.`, errors: {} }),
  );

  for (const endpoint of endpoints) {
    const path = `${prefix}/${endpoint.path}`;
    app.get(
      path,
      listRoute(endpoint, connection, (request) => `${baseUrl(config, request)}${path}`),
    );
    registerResourceRoutes(app, endpoint, connection, prefix);
  }
  // The index a frontend starts from: which resources have a schema, and where.
  const index = endpoints
    .filter((endpoint) => endpoint.policy.schema)
    .map((endpoint) => ({
      resource: endpoint.resource.name,
      path: endpoint.path,
      title: endpoint.policy.schema?.title ?? endpoint.resource.name,
      list: `${prefix}/${endpoint.path}`,
      schema: `${prefix}/v1/${endpoint.path}/schema`,
    }));
  app.get(`${prefix}/v1/schema`, async () => ({ resources: index }));
  if (config.adminDir) await registerAdmin(app, config.adminDir, prefix);
  return app;
}

/**
 * A host name (underscores allowed: container names have them), an IPv4 address or a bracketed IPv6
 * address, with an optional port: nothing else.
 */
const hostHeader =
  /^(?:[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?(?:\.[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?)*|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/;

/**
 * The base of page links. Without `publicUrl` it comes from the Host header, which the client writes:
 * a value that is not a plain host[:port] (`evil.example:1@x`), or a host outside `trustedHosts`, is
 * refused rather than copied into every link of the answer.
 */
/**
 * What Node's HTTP parser refuses before Fastify sees a request (a request line or headers over the
 * limit, bytes that are not HTTP): the envelope, and `Connection: close` so that a keep-alive client
 * knows the connection ends, rather than finding it reset at its next request.
 */
function answerClientError(error: Error, socket: Socket): void {
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  const code = (error as { code?: string }).code;
  const status = code === 'HPE_HEADER_OVERFLOW' ? 431 : code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : 400;
  const message =
    status === 431
      ? 'The request line or headers are too long.'
      : status === 408
        ? 'The request took too long to arrive.'
        : 'The request is not valid HTTP.';
  const body = JSON.stringify({ message, errors: { request: [message] } });
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

function baseUrl(config: ServiceConfig, request: FastifyRequest): string {
  if (config.publicUrl) return config.publicUrl.replace(/\/$/, '');
  const host = request.host;
  const name = host.replace(/:\d+$/, '').toLowerCase();
  if (!hostHeader.test(host))
    throw RequestError.single(400, 'host', 'The Host header must be a host name with an optional port.');
  if (config.trustedHosts && !config.trustedHosts.some((trusted) => trusted.toLowerCase() === name))
    throw RequestError.single(400, 'host', `The host "${name}" is not served here.`);
  return `${request.protocol}://${host}`;
}
