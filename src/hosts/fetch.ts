import { type CreateServiceOptions, createService, type ServiceCloser } from '../core/service.js';
import { fromWebRequest, toWebResponse } from './web.js';

export interface FetchHandlerOptions<Ctx> extends CreateServiceOptions<Ctx> {
  /** The request's context from the fetch `Request` (its cookies, its Authorization header…). */
  context?: (request: Request) => Ctx | Promise<Ctx>;
}

/**
 * `(request: Request) => Promise<Response>`: a Next.js route handler, or any fetch-style host. A
 * request for none of the service's routes is answered 404 with the envelope.
 */
export async function createFetchHandler<Ctx = unknown>(
  options: FetchHandlerOptions<Ctx>,
): Promise<((request: Request) => Promise<Response>) & ServiceCloser> {
  const service = await createService(options);
  const { context } = options;
  const handler = async (request: Request): Promise<Response> => {
    const response = await service.handle(
      fromWebRequest(request, context ? () => context(request) : undefined),
    );
    if (response) return toWebResponse(response);
    const { pathname } = new URL(request.url);
    const message = `No route for ${request.method} ${pathname}.`;
    return Response.json({ message, errors: {} }, { status: 404 });
  };
  return Object.assign(handler, { close: () => service.close() });
}
