import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { json, type ServiceLogger, type ServiceResponse } from '../core/exchange.js';
import type { NowOrLater } from '../core/now-or-later.js';
import type { ResourceService } from '../core/service.js';
import { fromNodeRequest, writeNodeResponse } from '../hosts/node.js';
import { QueryCancelled } from '../sql/dialect.js';

/**
 * Errors of an answer whose client went away: its connection closed under the stream, or its
 * statements were stopped because it left. Nothing failed on the service's side.
 */
const departed = (error: unknown): boolean =>
  error instanceof QueryCancelled ||
  ['ERR_STREAM_PREMATURE_CLOSE', 'ECONNRESET', 'EPIPE'].includes((error as { code?: string })?.code ?? '');

/**
 * The standalone server's short way for the service's reads: a GET under the service's prefix goes
 * from Node's HTTP server straight to the core, without Fastify's request, reply, route lookup and
 * child logger — about a seventh of a read-one's CPU time (docs/benchmarks.md). Everything else, and
 * any path the core does not answer, goes to `next` (Fastify), as does a path with an escape (Fastify
 * answers one that does not decode). The caller takes it only where Fastify would add nothing to
 * these answers (no request log, no CORS, no hooks of an application).
 */
export function directReads(
  service: ResourceService,
  log: ServiceLogger,
  next: RequestListener,
): RequestListener {
  const prefix = `${service.prefix.replace(/\/$/, '')}/`;
  /**
   * A failed answer: a client that left while its answer streamed is no failure; anything else is
   * logged. A body that fails after its headers (a stream's later batch) can only be broken off: the
   * pipeline has destroyed the response already, and the log says why, in Fastify's words and at its
   * level.
   */
  const failed = (response: ServerResponse, error: unknown) => {
    if (departed(error)) return;
    if (response.headersSent) {
      log.warn({ err: error }, 'response terminated with an error with headers already sent');
      return void response.destroy();
    }
    log.error({ err: error }, 'answering a read failed');
    // Destroyed before its headers went out: there is no one to answer.
    if (response.destroyed) return;
    const message = 'Internal server error.';
    try {
      writeNodeResponse(response, json(500, { message, errors: {} }));
    } catch {
      response.destroy();
    }
  };
  const written = (
    request: IncomingMessage,
    response: ServerResponse,
    answer: ServiceResponse | undefined,
  ) => {
    try {
      if (!answer) return next(request, response);
      writeNodeResponse(response, answer)?.catch((error: unknown) => failed(response, error));
    } catch (error) {
      failed(response, error);
    }
  };
  return (request, response) => {
    const url = request.url ?? '';
    const query = url.indexOf('?');
    if (
      request.method !== 'GET' ||
      !url.startsWith(prefix) ||
      (query === -1 ? url : url.slice(0, query)).includes('%')
    )
      return next(request, response);
    // The cheap reads' path (docs/benchmarks.md): an answer made at once (a read-one on SQLite) is
    // written at once, with no closure and no promise; one that waits, when it comes.
    let answer: NowOrLater<ServiceResponse | undefined>;
    try {
      answer = service.respond(fromNodeRequest(request, response, log));
    } catch (error) {
      return failed(response, error);
    }
    if (answer instanceof Promise)
      answer.then(
        (settled) => written(request, response, settled),
        (error: unknown) => failed(response, error),
      );
    else written(request, response, answer);
  };
}
