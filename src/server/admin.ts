import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
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

/**
 * The admin UI this copy of the package ships (`admin/dist`), or undefined when it is not built. Found
 * from this module's own file, so a configuration that calls it (as `init` writes them) gets the admin
 * of the package that serves it, wherever the configuration lies: the CLI gives a TypeScript
 * configuration its own copy of the package, which `import.meta.resolve` would bypass.
 */
export function shippedAdminDir(): string | undefined {
  const here = dirname(fileURLToPath(import.meta.url));
  // src/server in a clone, dist/src/server in the package.
  for (const up of ['../..', '../../..']) {
    const dir = resolve(here, up, 'admin', 'dist');
    if (existsSync(join(dir, 'index.html'))) return dir;
  }
  return undefined;
}
