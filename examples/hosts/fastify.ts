import Fastify from 'fastify';
import { resourceQueryPlugin } from '../../src/hosts/fastify.js';
import { runWhenMain, type Started, type StartOptions } from './run.js';
import { type AppUser, tenancyConfig, userForApiKey } from './tenancy.js';

// The user the authentication hook sets on every request.
declare module 'fastify' {
  interface FastifyRequest {
    user: AppUser | undefined;
  }
}

/** A Fastify application with its own auth and routes, and the service as a plugin under /api. */
export async function start({ connection, port = 0, host = '127.0.0.1' }: StartOptions): Promise<Started> {
  const app = Fastify();

  // Authentication: no key is anonymous, an unknown key is refused here, a known key is a user.
  app.decorateRequest('user', undefined);
  app.addHook('onRequest', async (request, reply) => {
    const key = request.headers['x-api-key'];
    if (typeof key !== 'string') return;
    request.user = userForApiKey(key);
    if (!request.user) return reply.code(401).send({ message: 'Unknown API key.', errors: {} });
  });

  // A route of the application's own.
  app.get('/me', async (request) => ({ user: request.user ?? null }));

  await app.register(resourceQueryPlugin, {
    config: tenancyConfig,
    connection,
    prefix: '/api',
    context: (request) => request.user,
  });

  const url = await app.listen({ port, host });
  return { url, close: () => app.close() };
}

await runWhenMain(import.meta.url, start);
