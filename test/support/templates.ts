import { inject } from 'vitest';
import { createSchema, dropSchema } from '../../examples/demo/schema.js';
import type { Connection } from '../../src/sql/connect.js';
import type { ConnectOptions, DialectName } from '../../src/sql/dialect.js';
import { cloneDatabase, dialects, dropDatabase, freshDatabase, templateFor } from './databases.js';
import { insertFixture } from './fixture.js';

/** The engines whose databases are copied from a template: PostgreSQL's TEMPLATE, SQLite's file. */
const copied = ['sqlite', 'postgres'] as const;
type Copied = (typeof copied)[number];
const isCopied = (dialect: DialectName): dialect is Copied => (copied as readonly string[]).includes(dialect);

declare module 'vitest' {
  export interface ProvidedContext {
    /** The demo schema with the fixture, by engine: a database name (PostgreSQL) or a file (SQLite). */
    fixtureTemplates: Partial<Record<Copied, string>>;
  }
}

/** Fills a fresh database with the demo schema and the fixture (what every template and copy holds). */
async function fill(conn: Connection): Promise<void> {
  await dropSchema(conn);
  await createSchema(conn);
  await insertFixture(conn);
}

/**
 * A database of `dialect` holding the demo schema and the fixture: a copy of the run's template where
 * the global set-up made one (test/support/templates-setup.ts), else created and filled here (MariaDB,
 * which has no template databases: its tables are created one by one, as a copy's would be).
 */
export async function fixtureDatabase(
  dialect: DialectName,
  name: string,
  options?: ConnectOptions,
): Promise<Connection> {
  const template = isCopied(dialect) ? inject('fixtureTemplates')?.[dialect] : undefined;
  if (template && isCopied(dialect)) return cloneDatabase(dialect, name, template, options);
  const conn = await freshDatabase(dialect, name, options);
  await fill(conn);
  return conn;
}

const TEMPLATE = 'template_fixture';

/** Makes the run's templates; returns what to provide and how to drop them. */
export async function makeTemplates(): Promise<{
  templates: Partial<Record<Copied, string>>;
  drop: () => Promise<void>;
}> {
  const templates: Partial<Record<Copied, string>> = {};
  for (const dialect of dialects.filter(isCopied)) {
    const conn = await freshDatabase(dialect, TEMPLATE);
    try {
      await fill(conn);
      templates[dialect] = await templateFor(dialect, TEMPLATE, conn);
    } finally {
      // A template is copied only while nothing is connected to it.
      await conn.close();
    }
  }
  return {
    templates,
    drop: async () => {
      for (const dialect of dialects.filter(isCopied)) await dropDatabase(dialect, TEMPLATE);
    },
  };
}
