import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { type Connection, connect } from '../sql/connect.js';
import { type GenerateOptions, renderConfig } from './generate.js';
import { type IntrospectOptions, introspect } from './introspect.js';
import type { DatabaseModel } from './model.js';
import { planConfig } from './plan.js';
import type { ConfigPlan } from './plan-types.js';

export { type GenerateOptions, generateConfig, renderConfig } from './generate.js';
export {
  type IntrospectOptions,
  introspect,
  introspectMysql,
  introspectPostgres,
  introspectSqlite,
} from './introspect.js';
export type * from './model.js';
export { planConfig } from './plan.js';
export type { ConfigPlan, ResourcePlan } from './plan-types.js';

export interface InitOptions extends GenerateOptions, IntrospectOptions {
  /** The database to read: a URL (connected to and closed here)… */
  databaseUrl?: string;
  /** …or an open connection (left open). */
  connection?: Connection;
  /** The file to write (default `rqs.config.ts`); `false`: write nothing, return the source. */
  out?: string | false;
  /** Overwrite an existing file (default: refuse). */
  force?: boolean;
}

export interface InitResult {
  model: DatabaseModel;
  plan: ConfigPlan;
  source: string;
  /** The absolute path written, when one was. */
  path?: string;
}

/** The file exists and `force` was not given. */
export class OutputExistsError extends Error {
  override name = 'OutputExistsError';
  constructor(readonly path: string) {
    super(`${path} exists: pass --force to overwrite it.`);
  }
}

/**
 * `resource-query-service init`: reads the database, plans resources and endpoints, and writes the
 * configuration module. Refuses to overwrite a file unless `force`.
 */
export async function init(options: InitOptions): Promise<InitResult> {
  const connection = options.connection ?? (options.databaseUrl ? connect(options.databaseUrl) : undefined);
  if (!connection) throw new Error('init needs a databaseUrl or a connection.');
  let model: DatabaseModel;
  try {
    model = await introspect(connection, options);
  } finally {
    if (!options.connection) await connection.db.destroy();
  }
  const plan = planConfig(model);
  const source = renderConfig(plan, options);
  if (options.out === false) return { model, plan, source };
  const path = resolve(options.out ?? 'rqs.config.ts');
  mkdirSync(dirname(path), { recursive: true });
  try {
    writeFileSync(path, source, { flag: options.force ? 'w' : 'wx' });
  } catch (error) {
    if ((error as { code?: string }).code === 'EEXIST') throw new OutputExistsError(path);
    throw error;
  }
  return { model, plan, source, path };
}
