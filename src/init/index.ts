import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { type Connection, connect } from '../sql/connect.js';
import { sqliteFilename } from '../sql/dialects/sqlite.js';
import { type GenerateOptions, renderConfig } from './generate.js';
import { type IntrospectOptions, introspect } from './introspect.js';
import type { DatabaseModel } from './model.js';
import { type PlanOptions, planConfig } from './plan.js';
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
export { type PlanOptions, planConfig } from './plan.js';
export type { ConfigPlan, ResourcePlan } from './plan-types.js';

export interface InitOptions extends GenerateOptions, IntrospectOptions, PlanOptions {
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

/** `sqlite:<file>` names a file that does not exist: init reads a database, it never creates one. */
export class DatabaseMissingError extends Error {
  override name = 'DatabaseMissingError';
  constructor(readonly path: string) {
    super(`No SQLite database at ${path}: check the path (init reads a database, it does not create one).`);
  }
}

/** The database has nothing a resource can serve: no tables, or none with a usable key. */
export class NothingToServeError extends Error {
  override name = 'NothingToServeError';
  constructor(readonly plan: ConfigPlan) {
    super(
      plan.skipped.length === 0
        ? `The database${plan.schema && plan.dialect !== 'sqlite' ? ` (${plan.schema})` : ''} has no tables or views: nothing to serve, no file written. Create your tables first, or point --database-url${plan.dialect === 'postgres' ? ' (and --schema)' : ''} at the database that has them.`
        : `None of the database's ${plan.skipped.length} tables can be served, no file written:\n${plan.skipped
            .map((skip) => `  ${skip.table}: ${skip.reason}`)
            .join('\n')}`,
    );
  }
}

/**
 * `resource-query-service init`: reads the database, plans resources and endpoints, and writes the
 * configuration module. Refuses to overwrite a file unless `force`; refuses a SQLite file that does not
 * exist (opening it would create it) and a database with nothing to serve, writing nothing.
 */
export async function init(options: InitOptions): Promise<InitResult> {
  if (!options.connection && options.databaseUrl?.startsWith('sqlite:')) {
    const file = sqliteFilename(options.databaseUrl);
    if (file !== ':memory:' && !existsSync(file)) throw new DatabaseMissingError(resolve(file));
  }
  const connection = options.connection ?? (options.databaseUrl ? connect(options.databaseUrl) : undefined);
  if (!connection) throw new Error('init needs a databaseUrl or a connection.');
  let model: DatabaseModel;
  try {
    model = await introspect(connection, options);
  } finally {
    if (!options.connection) await connection.db.destroy();
  }
  const plan = planConfig(model, options);
  if (plan.resources.length === 0) throw new NothingToServeError(plan);
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
