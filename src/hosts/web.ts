import type { ServiceRequest, ServiceResponse } from '../core/exchange.js';
import { readWebBody } from './body.js';

/** A fetch `Request` as the core's request (Hono, Next.js route handlers, Deno/Bun-style hosts). */
export function fromWebRequest<Ctx>(
  request: Request,
  context?: () => Ctx | Promise<Ctx>,
): ServiceRequest<Ctx> {
  const url = new URL(request.url);
  const headers: Record<string, string> = {};
  request.headers.forEach((value, name) => {
    headers[name] = value;
  });
  // A Request built by a framework may carry its host only in its URL.
  headers.host ??= url.host;
  return {
    method: request.method,
    url: `${url.pathname}${url.search}`,
    headers,
    protocol: url.protocol.replace(/:$/, ''),
    body: (limit) => readWebBody(request, limit),
    context,
    signal: request.signal,
  };
}

/** The core's response as a fetch `Response`; a streamed body stays streamed. */
export function toWebResponse(response: ServiceResponse): Response {
  const { body } = response;
  if (typeof body === 'string')
    return new Response(body, { status: response.status, headers: response.headers });
  const encoder = new TextEncoder();
  const iterator = body[Symbol.asyncIterator]();
  const stream = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const { done, value } = await iterator.next();
      if (done) controller.close();
      else controller.enqueue(encoder.encode(value));
    },
    async cancel() {
      await iterator.return?.();
    },
  });
  return new Response(stream, { status: response.status, headers: response.headers });
}
