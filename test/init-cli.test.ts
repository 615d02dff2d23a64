import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { runInit, serveCommand } from '../src/cli/init.js';
import { connect } from '../src/sql/connect.js';
import type { DialectName } from '../src/sql/dialect.js';
import { dialects, dropDatabase, freshDatabase } from './support/databases.js';

/** How `init` starts: what it says, its exit code, and what it leaves on disk. */
const dir = mkdtempSync(join(tmpdir(), 'rqs-init-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function capture() {
  const out: string[] = [];
  const err: string[] = [];
  return { io: { log: (m: string) => out.push(m), error: (m: string) => err.push(m) }, out, err };
}

/** The URL `freshDatabase` connects to (support/databases.ts names databases this way). */
function urlOf(dialect: DialectName, name: string, file: string): string {
  const database = `rqs_${name}_${process.pid}`;
  if (dialect === 'sqlite') return `sqlite:${file}`;
  if (dialect === 'postgres')
    return `${process.env.TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432'}/${database}`;
  return `${process.env.TEST_MYSQL_URL ?? 'mysql://root@127.0.0.1:3306'}/${database}`;
}

describe('init refuses what it cannot start from, and writes nothing', () => {
  it('a SQLite file that does not exist: named, exit 1, not created', async () => {
    const missing = join(dir, 'nowhere', 'chinook.db');
    const out = join(dir, 'missing.config.ts');
    const { io, err } = capture();
    expect(await runInit(['--database-url', `sqlite:${missing}`, '--out', out], io)).toBe(1);
    expect(err.join('\n')).toBe(
      `No SQLite database at ${missing}: check the path (init reads a database, it does not create one).`,
    );
    expect(existsSync(missing)).toBe(false);
    expect(existsSync(join(dir, 'nowhere'))).toBe(false);
    expect(existsSync(out)).toBe(false);
  });

  for (const dialect of dialects)
    it(`a database without tables on ${dialect}: said, exit 1, no file`, async () => {
      const name = 'init_cli_empty';
      const file = join(dir, 'empty.db');
      // SQLite: an existing, empty file (created here, as a user's empty database would be).
      const conn = dialect === 'sqlite' ? connect(`sqlite:${file}`) : await freshDatabase(dialect, name);
      try {
        if (dialect === 'sqlite') await sql`pragma user_version = 1`.execute(conn.db);
        const out = join(dir, `empty-${dialect}.config.ts`);
        const { io, err } = capture();
        expect(await runInit(['--database-url', urlOf(dialect, name, file), '--out', out], io)).toBe(1);
        expect(err.join('\n')).toMatch(/has no tables or views: nothing to serve, no file written/);
        expect(existsSync(out)).toBe(false);
      } finally {
        await conn.db.destroy();
        await dropDatabase(dialect, name);
      }
    });

  it('tables none of which can be served: each named with its reason, exit 1, no file', async () => {
    const file = join(dir, 'keyless.db');
    const conn = connect(`sqlite:${file}`);
    await sql`create table log (line text)`.execute(conn.db);
    await conn.db.destroy();
    const out = join(dir, 'keyless.config.ts');
    const { io, err } = capture();
    expect(await runInit(['--database-url', `sqlite:${file}`, '--out', out], io)).toBe(1);
    expect(err.join('\n')).toContain("None of the database's 1 tables can be served, no file written:");
    expect(err.join('\n')).toContain('log: no primary key');
    expect(existsSync(out)).toBe(false);
  });
});

describe('init ends with the command that serves what it wrote', () => {
  it('carries the database, and says whether writes are open', async () => {
    const file = join(dir, 'shop.db');
    const conn = connect(`sqlite:${file}`);
    await sql`create table products (id integer primary key, name varchar(80) not null)`.execute(conn.db);
    await conn.db.destroy();
    const out = join(dir, 'shop.config.ts');
    const { io, out: said } = capture();
    expect(await runInit(['--database-url', `sqlite:${file}`, '--out', out], io)).toBe(0);
    expect(said.join('\n')).toContain(
      `Review it, then serve it:\n  DATABASE_URL=sqlite:${file} npx resource-query-service --config ${out}`,
    );
    expect(said.join('\n')).toContain('Endpoints list and read only');
    expect(said.join('\n')).not.toContain('put your password back');
    const again = capture();
    expect(
      await runInit(['--database-url', `sqlite:${file}`, '--out', out, '--force', '--writable'], again.io),
    ).toBe(0);
    expect(again.out.join('\n')).toContain('anyone may: restrict `anyone` in the file');
    expect(readdirSync(dir)).toContain('shop.config.ts');
  });

  it('prints the CREATE INDEX that would serve each sort no index serves, and runs none', async () => {
    const file = join(dir, 'orders.db');
    const conn = connect(`sqlite:${file}`);
    await sql`create table orders (id integer primary key, placed_at datetime not null, total numeric(10,2), city varchar(40))`.execute(
      conn.db,
    );
    await sql`create index orders_city on orders (city)`.execute(conn.db);
    const before = await sql`select name from sqlite_master where type = 'index'`.execute(conn.db);
    const { io, out: said } = capture();
    expect(
      await runInit(['--database-url', `sqlite:${file}`, '--out', join(dir, 'orders.config.ts')], io),
    ).toBe(0);
    const text = said.join('\n');
    expect(text).toContain('Sorts no index serves (2)');
    expect(text).toContain('  CREATE INDEX "orders_placed_at_idx" ON "orders" ("placed_at");');
    expect(text).toContain('  CREATE INDEX "orders_total_idx" ON "orders" ("total");');
    // city leads an index, the key is the table's own order: nothing said of them.
    expect(text).not.toContain('("city")');
    expect(text).not.toContain('("id")');
    const after = await sql`select name from sqlite_master where type = 'index'`.execute(conn.db);
    expect(after.rows).toEqual(before.rows);
    await conn.db.destroy();
  });

  it('prints a password as *** and says to put it back; quotes what the shell would read otherwise', () => {
    expect(serveCommand('postgres://app:s3cret@db.example.com:5432/shop', '/tmp/rqs.config.ts')).toEqual({
      command:
        "DATABASE_URL='postgres://app:***@db.example.com:5432/shop' npx resource-query-service --config /tmp/rqs.config.ts",
      masked: true,
    });
    expect(serveCommand('mysql://root@127.0.0.1:3306/shop?password=x&ssl=true', '/tmp/a b.ts')).toEqual({
      command:
        "DATABASE_URL='mysql://root@127.0.0.1:3306/shop?password=***&ssl=true' npx resource-query-service --config '/tmp/a b.ts'",
      masked: true,
    });
    expect(serveCommand('postgres://app@db/shop', join(process.cwd(), 'rqs.config.ts'))).toEqual({
      command: 'DATABASE_URL=postgres://app@db/shop npx resource-query-service --config rqs.config.ts',
      masked: false,
    });
  });
});
