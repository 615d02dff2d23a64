import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Request, RequestHandler } from 'express';
import { closedBeforeAnswer, type ServiceResponse } from '../core/exchange.js';
import { type CreateServiceOptions, createService, type ServiceCloser } from '../core/service.js';
import { readNodeBody } from './body.js';

export interface ExpressOptions<Ctx> extends CreateServiceOptions<Ctx> {
  /** The request's context from Express's request (what the application's auth set: `req.user`). */
  context?: (request: Request) => Ctx | Promise<Ctx>;
}

/**
 * Express 5 middleware: `app.use(await createExpressMiddleware({...}))`. It answers the service's
 * routes (under the configuration's `prefix`, matched on the request's full URL, so it may be
 * mounted anywhere) and passes every other request on with `next()`.
 */
export async function createExpressMiddleware<Ctx = unknown>(
  options: ExpressOptions<Ctx>,
): Promise<RequestHandler & ServiceCloser> {
  const service = await createService(options);
  const { context } = options;
  const handler: RequestHandler = (req, res, next) => {
    service
      .handle({
        method: req.method,
        url: req.originalUrl,
        headers: req.headers,
        protocol: req.protocol,
        // An application body parser (express.json()) may have read the body already.
        body: async (limit) => (req.body !== undefined ? { parsed: req.body } : readNodeBody(req, limit)),
        context: context ? () => context(req) : undefined,
        signal: closedBeforeAnswer(res),
      })
      .then(async (response?: ServiceResponse) => {
        if (!response) return next();
        const { vary, ...headers } = response.headers;
        res.status(response.status).set(headers);
        // Merged with what the application's middleware (cors) put in Vary.
        if (vary) res.vary(vary);
        if (typeof response.body === 'string') res.end(response.body);
        else await pipeline(Readable.from(response.body), res);
      })
      .catch(next);
  };
  return Object.assign(handler, { close: () => service.close() });
}
