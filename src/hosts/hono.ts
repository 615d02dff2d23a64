import type { Context, MiddlewareHandler } from 'hono';
import { type CreateServiceOptions, createService, type ServiceCloser } from '../core/service.js';
import { fromWebRequest, toWebResponse } from './web.js';

export interface HonoOptions<Ctx> extends CreateServiceOptions<Ctx> {
  /** The request's context from Hono's (what the application's auth middleware set: `c.get('user')`). */
  context?: (c: Context) => Ctx | Promise<Ctx>;
}

/**
 * Hono middleware: `app.use(await createHonoMiddleware({...}))`. It answers the service's routes and
 * passes every other request on to the application's own.
 */
export async function createHonoMiddleware<Ctx = unknown>(
  options: HonoOptions<Ctx>,
): Promise<MiddlewareHandler & ServiceCloser> {
  const service = await createService(options);
  const { context } = options;
  const middleware: MiddlewareHandler = async (c, next) => {
    const response = await service.handle(fromWebRequest(c.req.raw, context ? () => context(c) : undefined));
    if (!response) return next();
    return toWebResponse(response);
  };
  return Object.assign(middleware, { close: () => service.close() });
}
