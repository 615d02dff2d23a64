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
