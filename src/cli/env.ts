import { availableParallelism } from 'node:os';
import type { FastifyCorsOptions } from '@fastify/cors';
import { type ConnectionOptions, dialectFor, withoutCredentials } from '../sql/connect.js';

/** Today's pool size of one process: also the default total of all workers' pools. */
const DEFAULT_POOL_TOTAL = 10;

/** A whole number from 1 to 9999 that an environment variable or option holds, or undefined when unset. */
function count(name: string, value: string | undefined): number | undefined {
  if (value === undefined || value === '') return undefined;
  if (!/^[1-9]\d{0,3}$/.test(value))
    throw new Error(`${name} must be a whole number from 1 to 9999 (got "${value}").`);
  return Number(value);
}

/**
 * The number of processes serving the port: `--workers` (or `WORKERS`), by default one per core the
 * process may use (`os.availableParallelism()`), except when the database server runs on this machine
 * (localhost, a Unix socket): its backends need the same cores, so half of them (at least one). Measured
 * on 2 cores (docs/benchmarks.md): with PostgreSQL on the machine, 2 workers served 0.90× one; with
 * SQLite, whose work runs inside the service's process, 1.77×. An in-memory SQLite database exists once
 * per process, so it is served by one.
 */
export function workersFrom(
  option: string | undefined,
  databaseUrl: string,
  cores: number = availableParallelism(),
): number {
  const inMemory = /^sqlite:(:memory:)?$/.test(databaseUrl);
  const byDefault = inMemory
    ? 1
    : databaseServerIsLocal(databaseUrl)
      ? Math.max(1, Math.floor(cores / 2))
      : cores;
  const workers = count('--workers', option) ?? byDefault;
  if (workers > 1 && inMemory)
    throw new Error(
      '--workers must be 1 with an in-memory SQLite database (each process would have its own).',
    );
  return workers;
}

/** A PostgreSQL or MariaDB server on this machine: its host is a loopback name or address, or a socket. */
export function databaseServerIsLocal(databaseUrl: string): boolean {
  if (databaseUrl.startsWith('sqlite:')) return false;
  let url: URL;
  try {
    url = new URL(databaseUrl);
  } catch {
    return false;
  }
  // A socket: an empty host (`postgres:///app`), or one given as a path (`?host=/var/run/postgresql`,
  // MariaDB's `?socketPath=`).
  const socket = url.searchParams.get('host')?.startsWith('/') || url.searchParams.has('socketPath');
  const host = url.hostname.replace(/^\[|\]$/g, '');
  return socket || host === '' || host === 'localhost' || host === '::1' || /^127\./.test(host);
}

/**
 * Connection options from the environment, for one of `workers` processes. A value that is set but
 * unusable stops the start-up with its name: a pool silently left at the default would be measured and
 * deployed as something else.
 *
 * - `DATABASE_POOL_SIZE`: connections of one process's pool (per database: the primary, each replica).
 * - `DATABASE_POOL_TOTAL` (default 10): the most connections all workers together may hold to one
 *   database; without `DATABASE_POOL_SIZE` each worker's pool is `floor(total / workers)`.
 * - `DATABASE_READ_URLS`: read replicas, separated by commas or spaces.
 * - `DATABASE_READ_RETRY_MS` (default 5000): how long a replica that failed is left out.
 * - `DATABASE_PREPARED_STATEMENTS` (`true` or `false`, default true): PostgreSQL reads as named
 *   prepared statements.
 */
export function connectOptionsFrom(env: NodeJS.ProcessEnv, workers = 1): ConnectionOptions {
  const options: ConnectionOptions = {};
  const size = count('DATABASE_POOL_SIZE', env.DATABASE_POOL_SIZE);
  const total = count('DATABASE_POOL_TOTAL', env.DATABASE_POOL_TOTAL);
  if (total !== undefined && total < workers)
    throw new Error(`DATABASE_POOL_TOTAL (${total}) must be at least the number of workers (${workers}).`);
  if (size !== undefined && total !== undefined && size * workers > total)
    throw new Error(
      `${workers} workers × DATABASE_POOL_SIZE ${size} exceed DATABASE_POOL_TOTAL ${total}: lower one, or leave DATABASE_POOL_SIZE unset.`,
    );
  const poolSize =
    size ??
    (total === undefined && workers === 1 ? undefined : Math.floor((total ?? DEFAULT_POOL_TOTAL) / workers));
  if (poolSize !== undefined) options.poolSize = Math.max(1, poolSize);
  const readUrls = (env.DATABASE_READ_URLS ?? '').split(/[\s,]+/).filter((url) => url !== '');
  for (const url of readUrls) {
    try {
      dialectFor(url);
    } catch {
      throw new Error(
        `DATABASE_READ_URLS: "${withoutCredentials(url)}" is not a database URL (postgres://…).`,
      );
    }
  }
  if (readUrls.length > 0) options.readUrls = readUrls;
  const retry = env.DATABASE_READ_RETRY_MS;
  if (retry !== undefined && retry !== '') {
    if (!/^\d{1,7}$/.test(retry))
      throw new Error(`DATABASE_READ_RETRY_MS must be a number of milliseconds (got "${retry}").`);
    options.replicaRetryMs = Number(retry);
  }
  const prepared = env.DATABASE_PREPARED_STATEMENTS;
  if (prepared !== undefined && prepared !== '') {
    if (prepared !== 'true' && prepared !== 'false')
      throw new Error(`DATABASE_PREPARED_STATEMENTS must be true or false (got "${prepared}").`);
    options.preparedStatements = prepared === 'true';
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
    return { origin: '*' };
  }
  for (const origin of origins)
    if (!/^https?:\/\/[^/\s]+$/.test(origin))
      throw new Error(
        `CORS_ORIGINS entries must be origins such as https://app.example.com (got "${origin}").`,
      );
  return { origin: origins, credentials };
}
