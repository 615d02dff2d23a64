import type { FastifyCorsOptions } from '@fastify/cors';
import type { ConnectOptions } from '../sql/dialect.js';

/**
 * Connection options from the environment. A value that is set but unusable stops the start-up with
 * its name: a pool silently left at the default would be measured and deployed as something else.
 */
export function connectOptionsFrom(env: NodeJS.ProcessEnv): ConnectOptions {
  const options: ConnectOptions = {};
  const poolSize = env.DATABASE_POOL_SIZE;
  if (poolSize !== undefined && poolSize !== '') {
    if (!/^[1-9]\d{0,3}$/.test(poolSize))
      throw new Error(`DATABASE_POOL_SIZE must be a whole number from 1 to 9999 (got "${poolSize}").`);
    options.poolSize = Number(poolSize);
  }
  return options;
}

/**
 * CORS from the environment: `CORS_ORIGINS` is a comma-separated list of origins
 * (`https://app.example.com`) or `*`; `CORS_CREDENTIALS=true` lets browsers send cookies and
 * Authorization. Unset: no CORS headers (same-origin only). `*` with credentials is refused: browsers
 * reject it, and echoing any origin with credentials would let every site read a user's data.
 */
export function corsOptionsFrom(env: NodeJS.ProcessEnv): FastifyCorsOptions | undefined {
  // Checked even without CORS_ORIGINS: a value that is set but unusable stops the start-up.
  if (env.CORS_CREDENTIALS !== undefined && !['true', 'false', ''].includes(env.CORS_CREDENTIALS))
    throw new Error(`CORS_CREDENTIALS must be true or false (got "${env.CORS_CREDENTIALS}").`);
  const list = env.CORS_ORIGINS?.trim();
  if (!list) return undefined;
  const credentials = env.CORS_CREDENTIALS === 'true';
  const origins = list.split(',').map((origin) => origin.trim().replace(/\/$/, ''));
  if (origins.includes('*')) {
    if (credentials) throw new Error('CORS_ORIGINS=* cannot be combined with CORS_CREDENTIALS=true.');
    return { origin: '*', methods: ['GET', 'HEAD', 'PATCH'] };
  }
  for (const origin of origins)
    if (!/^https?:\/\/[^/\s]+$/.test(origin))
      throw new Error(
        `CORS_ORIGINS entries must be origins such as https://app.example.com (got "${origin}").`,
      );
  return { origin: origins, credentials, methods: ['GET', 'HEAD', 'PATCH'] };
}
