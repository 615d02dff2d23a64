import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';
import { ConfigurationError } from '../errors/configuration-error.js';

/**
 * Serves the built admin UI (`npm run build:admin` → admin/dist) at `/admin/`. The UI knows no resource
 * in advance: it reads the schema index and documents of this service.
 */
export async function registerAdmin(
  app: FastifyInstance,
  adminDir: string,
  apiPrefix: string,
): Promise<void> {
  const root = resolve(adminDir);
  if (!existsSync(join(root, 'index.html')))
    throw new ConfigurationError(
      `adminDir "${root}" has no index.html: build the admin UI first (npm run build:admin).`,
    );
  await app.register(fastifyStatic, { root, prefix: '/admin/', wildcard: true });
  app.get('/admin', (_request, reply) => reply.redirect('/admin/'));
  // Where the API is: the UI reads it first, so a service with another `prefix` works too.
  app.get('/admin/config.json', async () => ({ apiPrefix }));
}
