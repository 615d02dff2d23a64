import type { Server } from 'node:http';
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { createHonoMiddleware } from '../../src/hosts/hono.js';
import { runWhenMain, type Started, type StartOptions, started } from './run.js';
import { type AppUser, tenancyConfig, userForApiKey } from './tenancy.js';

/** What the application's middleware keeps on Hono's context: the signed-in user. */
type Env = { Variables: { user: AppUser | undefined } };

/** A Hono application with its own auth and routes, and the service's middleware under /api. */
export async function start({ connection, port = 0, host = '127.0.0.1' }: StartOptions): Promise<Started> {
  const app = new Hono<Env>();

  // Authentication: no key is anonymous, an unknown key is refused here, a known key is a user.
  app.use(async (c, next) => {
    const key = c.req.header('x-api-key');
    const user = key === undefined ? undefined : userForApiKey(key);
    if (key !== undefined && !user) return c.json({ message: 'Unknown API key.', errors: {} }, 401);
    c.set('user', user);
    await next();
  });

  // A route of the application's own.
  app.get('/me', (c) => c.json({ user: c.get('user') ?? null }));

  // The service answers its own routes (/api/…) and passes every other request on.
  app.use(await createHonoMiddleware({ config: tenancyConfig, connection, context: (c) => c.get('user') }));

  const server = await new Promise<Server>((resolve) => {
    const listening = serve({ fetch: app.fetch, port, hostname: host }, () => resolve(listening as Server));
  });
  return started(server, host);
}

await runWhenMain(import.meta.url, start);
