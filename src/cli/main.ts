#!/usr/bin/env node
import cluster from 'node:cluster';
import { existsSync } from 'node:fs';
import { hostname } from 'node:os';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { bearerContext, bearerOptionsFrom } from '../server/bearer.js';
import { buildService } from '../server/standalone.js';
import { connect, dialectFor, withoutCredentials } from '../sql/connect.js';
import { sqliteFilename } from '../sql/dialects/sqlite.js';
import { connectOptionsFrom, corsOptionsFrom, workersFrom } from './env.js';
import { loadConfig } from './load-config.js';
import { superviseWorkers } from './workers.js';

const usage = `Usage: resource-query-service --config <module> [--port 3000] [--host 127.0.0.1] [--workers N]

Serves the resources and endpoints that <module> exports (default export of defineConfig()): a .js or
.mjs file, or a .ts, .mts or .cts file, loaded as it is (no build step).
The database comes from DATABASE_URL: sqlite:<file>, postgres://…, mysql://… (default sqlite:./demo.db);
DATABASE_POOL_SIZE sets the largest number of pooled connections of a process; DATABASE_POOL_TOTAL
(default 10) those of all workers together; DATABASE_READ_URLS lists read replicas (PostgreSQL).
--workers N (or WORKERS) serves the port from N processes (default: one per core; 1: this process).
GET /health/live and /health/ready answer load balancers.
AUTH_JWT_SECRET, AUTH_JWT_PUBLIC_KEY (+ AUTH_JWT_ALGORITHM) or AUTH_JWT_JWKS_URL verify bearer tokens,
whose claims become the request context (AUTH_JWT_ISSUER, AUTH_JWT_AUDIENCE also checked when set).
CORS_ORIGINS (comma-separated origins, or *) and CORS_CREDENTIALS=true enable CORS.`;

async function main(): Promise<void> {
  // `resource-query-service init …` writes a configuration module from a database (src/cli/init.ts).
  if (process.argv[2] === 'init') {
    process.exitCode = await (await import('./init.js')).runInit(process.argv.slice(3));
    return;
  }
  // `resource-query-service types …` writes the typed client's types (src/cli/types.ts).
  if (process.argv[2] === 'types') {
    process.exitCode = await (await import('./types.js')).runTypes(process.argv.slice(3));
    return;
  }
  // `resource-query-service live …` prepares a database for live streams (src/cli/live.ts).
  if (process.argv[2] === 'live') {
    process.exitCode = await (await import('./live.js')).runLive(process.argv.slice(3));
    return;
  }
  const { values } = parseArgs({
    options: {
      config: { type: 'string' },
      port: { type: 'string', default: process.env.PORT ?? '3000' },
      host: { type: 'string', default: process.env.HOST ?? '127.0.0.1' },
      workers: { type: 'string', ...(process.env.WORKERS && { default: process.env.WORKERS }) },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help || !values.config) {
    console.log(usage);
    process.exitCode = values.help ? 0 : 2;
    return;
  }
  const exported = await loadConfig(values.config);
  // Bearer tokens from the environment become the context, unless the configuration makes its own.
  const bearer = bearerOptionsFrom(process.env);
  const config = bearer && !exported.context ? { ...exported, context: bearerContext(bearer) } : exported;
  const cors = corsOptionsFrom(process.env);

  const url = process.env.DATABASE_URL ?? 'sqlite:./demo.db';
  /** Which database a refusal is about: the URL without its password, and whether it is the default. */
  const databaseNamed = `database: ${withoutCredentials(url)}${process.env.DATABASE_URL ? '' : ', the default: DATABASE_URL is not set'}`;
  // A SQLite file that is not there would be created empty; only a configuration that creates its
  // tables (`setup`, as the demo's) may start from nothing.
  if (dialectFor(url).name === 'sqlite' && !config.setup) {
    const file = sqliteFilename(url);
    if (file !== ':memory:' && !existsSync(file))
      throw new Error(
        `The SQLite database ${resolve(file)} does not exist (${databaseNamed}). Set DATABASE_URL to your database; nothing was created.`,
      );
  }
  const workers = workersFrom(values.workers, url);
  const connectOptions = connectOptionsFrom(process.env, workers);
  const announce = (address: string) => {
    const shownUrl = withoutCredentials(url);
    const processes = workers > 1 ? `, ${workers} workers` : '';
    console.log(
      `\nServing ${config.endpoints.length} endpoints on ${address} (database: ${shownUrl}${processes})`,
    );
    if (config.adminDir) console.log(`Admin UI: ${address}/admin/`);
    if (config.examples?.length) {
      console.log('Try:');
      for (const example of config.examples) console.log(`  curl -gs '${address}${example}'`);
    }
  };
  if (cluster.isPrimary && workers > 1) {
    // The configuration's setup (creating tables, seeding) runs once, here, before any worker serves.
    if (config.setup) {
      const connection = connect(url, { ...connectOptions, poolSize: 1 });
      try {
        await config.setup(connection);
      } finally {
        await connection.close();
      }
    }
    superviseWorkers(workers, announce);
    return;
  }
  const connection = connect(url, connectOptions);
  if (cluster.isPrimary) await config.setup?.(connection);
  // A configuration the database does not match names the database it was checked against.
  const app = await buildService({
    config,
    connection,
    // One stream for all workers: each line names the worker that wrote it.
    logger: {
      level: process.env.LOG_LEVEL ?? 'info',
      ...(cluster.worker && { base: { pid: process.pid, hostname: hostname(), worker: cluster.worker.id } }),
    },
    ...(cors && { cors }),
    // Nothing is added to this server: its GET requests need none of Fastify's objects (LOG_LEVEL above info).
    directReads: true,
  }).catch(async (error: unknown) => {
    await connection.close();
    throw new Error(`${error instanceof Error ? error.message : String(error)}\n(${databaseNamed})`);
  });

  let closing = false;
  const shutdown = (signal: string) => {
    if (closing) return;
    closing = true;
    app.log.info({ signal }, 'shutting down: finishing requests in flight');
    app
      .close()
      .then(() => connection.close())
      .then(() => process.exit(0))
      .catch((error: unknown) => {
        app.log.error({ err: error }, 'shutdown failed');
        process.exit(1);
      });
  };
  process.on('SIGINT', () => shutdown('SIGINT'));
  process.on('SIGTERM', () => shutdown('SIGTERM'));

  const address = await app.listen({ port: Number(values.port), host: values.host });
  // Under --workers the primary process announces the address, once.
  if (cluster.isPrimary) announce(address);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
