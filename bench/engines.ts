import { tmpdir } from 'node:os';

/** The databases the benchmark runs on, as `--engines` names them. */
export const engineNames = ['pg', 'mariadb', 'sqlite'] as const;
export type EngineName = (typeof engineNames)[number];

/** `pg,mariadb` → the engines, refusing a name the benchmark does not know. */
export function parseEngines(list: string): EngineName[] {
  return list.split(',').map((name) => {
    const engine = name.trim() as EngineName;
    if (!engineNames.includes(engine))
      throw new Error(`--engines: unknown engine "${name}" (${engineNames.join(', ')})`);
    return engine;
  });
}

/** Where each engine's benchmark database lives (environment variables to change the servers). */
export function serverOf(engine: EngineName): string {
  switch (engine) {
    case 'pg':
      return process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432';
    case 'mariadb':
      return process.env.BENCH_MARIADB_URL ?? 'mysql://root@127.0.0.1:3306';
    case 'sqlite':
      return `sqlite:${process.env.BENCH_SQLITE_DIR ?? tmpdir()}`;
  }
}

/** The benchmark database's URL on `engine` (SQLite: a file in the server's folder). */
export function databaseUrl(engine: EngineName, database: string): string {
  return `${serverOf(engine)}/${database}${engine === 'sqlite' ? '.db' : ''}`;
}

/**
 * `created_at` of a stored instant as each engine's driver gives it back to the service (and so as the
 * service's cursors carry it): PostgreSQL's timestamptz text, MariaDB's DATETIME(3) text, SQLite's
 * `YYYY-MM-DD HH:MM:SS` text.
 */
export function storedInstant(engine: EngineName, iso: string): string {
  const day = iso.slice(0, 10);
  const time = iso.slice(11, 19);
  switch (engine) {
    case 'pg':
      return `${day} ${time}+00`;
    case 'mariadb':
      return `${day} ${time}.${iso.slice(20, 23)}`;
    case 'sqlite':
      return `${day} ${time}`;
  }
}
