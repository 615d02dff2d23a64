import { Readable } from 'node:stream';
import fastifyCors, { type FastifyCorsOptions } from '@fastify/cors';
import type { FastifyInstance, FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { type BodyReader, closedBeforeAnswer, type ServiceResponse } from '../core/exchange.js';
import { type CreateServiceOptions, createService, type ResourceService } from '../core/service.js';
import { readNodeBody } from './body.js';

export interface FastifyPluginOptions<Ctx = unknown> extends CreateServiceOptions<Ctx> {
  /**
   * The request's context from Fastify's request (what the application's auth plugin or hook set:
   * `request.user`). Without it the configuration's `context` hook runs.
   */
  context?: (request: FastifyRequest) => Ctx | Promise<Ctx>;
  /** CORS for the service's routes (`@fastify/cors` options); off when absent. */
  cors?: FastifyCorsOptions;
  /** Where the service is served; Fastify's own `prefix` option. Default: the configuration's (`/api`). */
  prefix?: string;
}

/** Writes the core's response through Fastify (its hooks, its logger and its error handler apply). */
export function sendResponse(reply: FastifyReply, response: ServiceResponse): FastifyReply {
  const { vary, ...headers } = response.headers;
  reply.status(response.status).headers(headers);
  // Merged, not replaced: CORS has already added `Origin` to Vary.
  if (vary) {
    const before = reply.getHeader('vary');
    reply.header('vary', before ? `${String(before)}, ${vary}` : vary);
  }
  // No payload at all for a bodiless status: with an empty one Fastify would describe it (text/plain, 0).
  if (response.status === 204 || response.status === 304) return reply.send();
  return reply.send(typeof response.body === 'string' ? response.body : Readable.from(response.body));
}

/**
 * The service as a Fastify plugin: `app.register(resourceQueryPlugin, { config, connection, prefix })`.
 * Its routes live in their own encapsulated context, so they coexist with the application's routes,
 * hooks (authentication in `onRequest` runs before them) and content-type parsers.
 */
export const resourceQueryPlugin: FastifyPluginAsync<FastifyPluginOptions> = async (instance, options) => {
  // Fastify's `prefix` is where the routes are; the documents and links must name it too.
  const mounted = instance.prefix;
  const config = mounted ? { ...options.config, prefix: mounted } : options.config;
  await serveRoutes(instance, await createService({ config, connection: options.connection }), options);
};

/**
 * A service's routes on a Fastify instance (the plugin's own context, or the one the standalone server
 * registers for the service it also answers without Fastify).
 */
export async function serveRoutes(
  instance: FastifyInstance,
  service: ResourceService,
  options: Pick<FastifyPluginOptions, 'context' | 'cors'>,
): Promise<void> {
  const mounted = instance.prefix;
  // Before the server stops taking connections: an open live stream would keep `close()` waiting.
  instance.addHook('preClose', async () => {
    await service.close();
  });
  if (options.cors) await instance.register(fastifyCors, { ...serviceCors, ...options.cors });
  // The core reads bodies itself (as JSON, with each route's limit, the same on every host).
  instance.removeAllContentTypeParsers();
  instance.addContentTypeParser('*', { parseAs: 'string' }, (_request, body, done) => done(null, body));
  // Errors Fastify raises on these routes before the handler (a body over the limit): the envelope.
  instance.setErrorHandler((error: { statusCode?: number; message?: string }, request, reply) => {
    const status =
      error.statusCode && error.statusCode >= 400 && error.statusCode < 500 ? error.statusCode : 500;
    if (status === 500) request.log.error({ err: error }, 'request failed');
    const message = status === 500 ? 'Internal server error.' : (error.message ?? 'Bad request.');
    return reply.status(status).send({ message, errors: status === 413 ? { body: [message] } : {} });
  });
  const { context } = options;
  /** The body Fastify parsed (as text, by the parser above) for the routes it hands over. */
  const parsedBody =
    (request: FastifyRequest): BodyReader =>
    async () =>
      typeof request.body === 'string' ? request.body : '';
  const handle = async (request: FastifyRequest, reply: FastifyReply, body = parsedBody(request)) => {
    const response = await service.handle({
      method: request.method,
      url: request.url,
      headers: request.headers,
      protocol: request.protocol,
      body,
      context: context ? () => context(request) : undefined,
      signal: closedBeforeAnswer(reply.raw),
      log: request.log,
    });
    if (!response) return reply.callNotFound();
    return sendResponse(reply, response);
  };
  // Any other method (TRACE, OPTIONS, QUERY…) goes to the core before Fastify looks at the body: a
  // path that does not serve it is a 405 whatever the request carries (QUERY without a Content-Type
  // would be Fastify's 400, a large PUT its 413), and a list's QUERY reads its body itself, with its
  // limit and its 415 as on every other host.
  instance.addHook('onRequest', async (request, reply) => {
    if (!servedMethods.has(request.method))
      return handle(request, reply, (limit) => readNodeBody(request.raw, limit));
  });
  for (const route of service.routes)
    instance.route({
      // Every method the application's Fastify routes (TRACE, OPTIONS, QUERY… included): the core
      // answers the ones a path does not serve with 405 and `Allow`. HEAD comes with GET.
      method: instance.supportedMethods.filter((method) => method !== 'HEAD'),
      url: route.path.slice(mounted.length),
      ...(route.bodyLimit > 0 && { bodyLimit: route.bodyLimit }),
      handler: handle,
    });
}

/**
 * CORS for the service's routes, unless the options say otherwise: its methods (@fastify/cors's
 * default leaves out PATCH and DELETE), and the headers a page's script must read: a record's ETag
 * (sent back as If-Match), a created record's Location, and an export's Content-Disposition (the
 * name to save it under).
 */
export const serviceCors: FastifyCorsOptions = {
  methods: ['GET', 'HEAD', 'POST', 'PATCH', 'DELETE'],
  exposedHeaders: ['ETag', 'Location', 'Content-Disposition'],
};

/** The methods some route of the core may serve; any other is its 405 on every path. */
const servedMethods = new Set(['GET', 'HEAD', 'POST', 'PATCH', 'DELETE']);
