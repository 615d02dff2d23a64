import type { Server } from 'node:http';
import { serve } from '@hono/node-server';
import { RequestError } from '../../src/errors/request-error.js';
import { createFetchHandler } from '../../src/hosts/fetch.js';
import type { Connection } from '../../src/sql/connect.js';
import { runWhenMain, type Started, type StartOptions, started } from './run.js';
import { type AppUser, tenancyConfig, userForApiKey } from './tenancy.js';

/**
 * Authentication from a fetch `Request`: no key is anonymous, a known key is a user, an unknown key
 * is answered 401 (a `RequestError` thrown from the `context` hook is the service's answer).
 */
export function authenticate(request: Request): AppUser | undefined {
  const key = request.headers.get('x-api-key');
  if (key === null) return undefined;
  const user = userForApiKey(key);
  if (!user) throw RequestError.single(401, 'authorization', 'Unknown API key.');
  return user;
}

/**
 * A Next.js route handler (App Router): in `app/api/[...path]/route.ts`,
 * `export const { GET, PATCH } = routeHandlers(connection);`. The service is built once; `ready`
 * settles when it is (a configuration mistake rejects it).
 */
export function routeHandlers(connection: Connection) {
  const handler = createFetchHandler({ config: tenancyConfig, connection, context: authenticate });
  const route = async (request: Request): Promise<Response> => (await handler)(request);
  return { GET: route, PATCH: route, ready: handler };
}

/** A tiny Node server routing as Next.js would: its own route, and /api/… to the route handlers. */
export async function start({ connection, port = 0, host = '127.0.0.1' }: StartOptions): Promise<Started> {
  const { GET, PATCH, ready } = routeHandlers(connection);
  await ready;
  const fetchCallback = async (request: Request): Promise<Response> => {
    const { pathname } = new URL(request.url);
    if (pathname === '/me' && request.method === 'GET') {
      try {
        return Response.json({ user: authenticate(request) ?? null });
      } catch (error) {
        if (error instanceof RequestError) return Response.json(error.envelope, { status: error.status });
        throw error;
      }
    }
    if (pathname.startsWith('/api/')) {
      if (request.method === 'GET') return GET(request);
      if (request.method === 'PATCH') return PATCH(request);
    }
    return Response.json({ message: 'Not found.', errors: {} }, { status: 404 });
  };
  const server = await new Promise<Server>((resolve) => {
    const listening = serve({ fetch: fetchCallback, port, hostname: host }, () =>
      resolve(listening as Server),
    );
  });
  return started(server, host);
}

await runWhenMain(import.meta.url, start);
