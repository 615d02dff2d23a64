import type { ServiceConfig } from '../resource/policy.js';
import type { Connection } from '../sql/connect.js';

/**
 * A configuration module as the `resource-query-service` command serves it: the service's
 * configuration and the command's own extras. A host adapter takes the same object and ignores them
 * (your application creates its tables and prints its own banner).
 */
export interface StandaloneConfig<Ctx = unknown> extends ServiceConfig<Ctx> {
  /** Request paths (with query strings) printed at start-up as examples. */
  examples?: string[];
  /** Runs once when the service starts, before it listens (create tables, load demo data). */
  setup?: (connection: Connection) => Promise<void>;
}

/** Gives a configuration module its types: `export default defineConfig<MyContext>({...})`. */
export function defineConfig<Ctx = unknown>(config: StandaloneConfig<Ctx>): StandaloneConfig<Ctx> {
  return config;
}
