import { createServer, METHODS, type RequestListener, STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyCorsOptions } from '@fastify/cors';
import Fastify, {
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  type FastifyServerFactory,
  type FastifyServerOptions,
} from 'fastify';
import { answerError } from '../core/answer.js';
import { createService, methodNotAllowed } from '../core/service.js';
import { sendResponse, serveRoutes } from '../hosts/fastify.js';
import type { ServiceConfig } from '../resource/policy.js';
import type { Connection } from '../sql/connect.js';
import { registerAdmin } from './admin.js';
import { directReads } from './direct.js';
import { registerHealth } from './health.js';

export interface ServiceOptions<Ctx = unknown> {
  config: ServiceConfig<Ctx>;
  connection: Connection;
  /** Fastify's logger option: `true` logs every request as JSON lines. */
  logger?: FastifyServerOptions['logger'];
  /** CORS (`@fastify/cors` options); off when absent. */
  cors?: FastifyCorsOptions;
  /**
   * Answer the service's GET requests from Node's HTTP server without Fastify's per-request objects
   * (`server/direct.ts`), when Fastify would add nothing to them: no CORS and a logger that does not log
   * requests (a level above `info`). Only for a server no application adds hooks to, as those would
   * not run for these requests: the CLI's. Default false.
   */
  directReads?: boolean;
}

/**
 * The standalone server: a Fastify application that serves only the service (the plugin, at the
 * configuration's prefix) and the admin UI, with every error before routing in the envelope too.
 */
export async function buildService<Ctx = unknown>(options: ServiceOptions<Ctx>): Promise<FastifyInstance> {
  const { config, connection } = options;
  /** What serves each request: Fastify's handler, or the direct reads once they are known to apply. */
  let serve: RequestListener | undefined;
  let fastifyHandler: RequestListener | undefined;
  const serverFactory: FastifyServerFactory = (handler, settings) => {
    fastifyHandler = handler;
    const server = createServer((request, response) => (serve ?? handler)(request, response));
    // What Fastify sets on a server it makes itself (it sets none on one it is given).
    const number = (name: string) =>
      typeof settings[name] === 'number' ? (settings[name] as number) : undefined;
    server.keepAliveTimeout = number('keepAliveTimeout') ?? server.keepAliveTimeout;
    server.requestTimeout = number('requestTimeout') ?? server.requestTimeout;
    server.setTimeout(number('connectionTimeout') ?? 0);
    server.maxRequestsPerSocket = number('maxRequestsPerSocket') ?? 0;
    return server;
  };
  const app = Fastify({
    ...(options.directReads && { serverFactory }),
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
    // The core parses the raw query string itself (qs, with limits that fail loudly); Fastify's flat
    // parser would only do work that is thrown away.
    routerOptions: { querystringParser: () => ({}) },
  });
  // Every method Node's parser reads reaches the routes, so that a path answers 405 with Allow for the
  // ones it does not serve rather than 404 (Fastify knows only the common ones by default). CONNECT
  // names a host, never a path.
  for (const method of METHODS)
    if (method !== 'CONNECT' && !app.supportedMethods.includes(method)) app.addHttpMethod(method);
  // Routes an application adds to this server (and errors past the service's own handling) answer in
  // the envelope too, database refusals included.
  app.setErrorHandler(async (error: unknown, request, reply) =>
    sendResponse(reply, await answerError(error, connection, request.log)),
  );
  app.setNotFoundHandler((request, reply) =>
    reply
      .status(404)
      .send({ message: `No route for ${request.method} ${request.url.split('?')[0]}.`, errors: {} }),
  );
  const service = await createService({ config: config as ServiceConfig, connection });
  await app.register(async (instance) =>
    serveRoutes(instance, service, { ...(options.cors && { cors: options.cors }) }),
  );
  if (options.directReads && fastifyHandler && !options.cors && !requestLogLevels.has(app.log.level)) {
    serve = directReads(service, app.log, fastifyHandler);
    // Closing, Fastify answers what still arrives with 503 and Connection: close: it takes them all back.
    app.addHook('preClose', (done) => {
      serve = undefined;
      done();
    });
  }
  // Closing: server.close() ends the connections that are idle then, but one whose request was in flight
  // stays open after its answer for the keep-alive timeout (Fastify's 72 s), past an orchestrator's grace
  // period, and the process waits for it. Now such a connection ends a moment after its answer (Node
  // adds a second to the timeout it reads when a response ends), and nothing per request is added.
  app.addHook('preClose', (done) => {
    app.server.keepAliveTimeout = 1;
    done();
  });
  registerHealth(app, connection);
  const readOnly = ['/health/live', '/health/ready'];
  if (config.adminDir) {
    await registerAdmin(app, config.adminDir, (config.prefix ?? '/api').replace(/\/$/, ''));
    readOnly.push('/admin', '/admin/*');
  }
  // The probes and the admin UI's files are read-only: any other method there is a 405, as on the
  // service's own paths.
  const refuse = async (_request: FastifyRequest, reply: FastifyReply) =>
    sendResponse(reply, methodNotAllowed(['GET']));
  for (const url of readOnly)
    app.route({
      method: app.supportedMethods.filter((method) => method !== 'GET' && method !== 'HEAD'),
      url,
      // Before the body is read: its size or type must not turn the 405 into a 413 or 400.
      onRequest: refuse,
      handler: refuse,
    });
  return app;
}

/** The levels at which Fastify writes its two lines per request. */
const requestLogLevels = new Set(['trace', 'debug', 'info']);

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
