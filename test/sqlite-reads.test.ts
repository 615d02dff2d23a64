import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { SqliteDriver, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Connection, connect } from '../src/sql/connect.js';

/**
 * SQLite's one connection is shared by the list reads (prepared once, run at once when the connection is
 * free) and by Kysely's transactions (which hold it across awaits). A read must never see, nor run
 * inside, another request's open transaction, and the prepared statements must answer each call with
 * its own parameters.
 */
describe('sqlite reads beside transactions', () => {
  let folder: string;
  let conn: Connection;

  /**
   * Calls waiting for the one connection (Kysely's mutex), counted at Kysely's SQLite driver, which the
   * service's driver extends: a read that takes its turn behind a transaction waits here.
   */
  let waiting = 0;
  const acquire = SqliteDriver.prototype.acquireConnection;
  /** Until a call waits for the connection: fails if none does within a second. */
  const readWaits = async () => {
    const end = Date.now() + 1000;
    while (waiting === 0 && Date.now() < end) await sleep(5);
    expect(waiting, 'no read waited for the connection held by the transaction').toBe(1);
  };

  beforeAll(async () => {
    SqliteDriver.prototype.acquireConnection = async function (this: SqliteDriver) {
      waiting++;
      try {
        return await acquire.call(this);
      } finally {
        waiting--;
      }
    };
    folder = mkdtempSync(join(tmpdir(), 'rqs-sqlite-reads-'));
    conn = connect(`sqlite:${join(folder, 'reads.db')}`);
    await sql`create table notes (id integer primary key, body text not null, done integer not null)`.execute(
      conn.db,
    );
    await sql`insert into notes (id, body, done) values (1, 'one', 0), (2, 'two', 1), (3, 'three', 0)`.execute(
      conn.db,
    );
  });

  afterAll(async () => {
    SqliteDriver.prototype.acquireConnection = acquire;
    await conn.close();
    rmSync(folder, { recursive: true, force: true });
  });

  const count = async () =>
    Number((await conn.run({ sql: 'select count(*) as n from notes', parameters: [] }))[0]?.n);

  it('answers a read issued during an open transaction after it ends, without its uncommitted rows', async () => {
    let insideSaw: number | undefined;
    let readDone = false;
    const transaction = conn.db.transaction().execute(async (trx) => {
      await sql`insert into notes (id, body, done) values (4, 'four', 0)`.execute(trx);
      // The read is issued now, while this transaction holds the connection with a row not committed.
      const read = count().then((n) => {
        readDone = true;
        return n;
      });
      await readWaits();
      insideSaw = readDone ? -1 : 0;
      throw Object.assign(new Error('roll back'), { read });
    });
    const error = (await transaction.catch((e: unknown) => e)) as { read: Promise<number> };
    expect(insideSaw).toBe(0); // the read waited for the transaction instead of running inside it
    expect(await error.read).toBe(3); // and never saw the rolled-back row
    expect(await count()).toBe(3);
  });

  it('sees a committed write once its transaction ends, and reads at once afterwards', async () => {
    const pending: Promise<number>[] = [];
    await conn.db.transaction().execute(async (trx) => {
      await sql`insert into notes (id, body, done) values (5, 'five', 1)`.execute(trx);
      pending.push(count());
      await readWaits();
    });
    expect(await pending[0]).toBe(4);
    expect(await count()).toBe(4);
    await sql`delete from notes where id = 5`.execute(conn.db);
    expect(await count()).toBe(3);
  });

  it('runs the same prepared statement with each call’s own parameters and names the columns', async () => {
    const statement = (done: number) => ({
      sql: 'select id, body as text, done from notes where done = ? order by id',
      parameters: [done],
    });
    const [open, finished, openAgain] = await Promise.all([
      conn.run(statement(0)),
      conn.run(statement(1)),
      conn.run(statement(0)),
    ]);
    expect(open).toEqual([
      { id: 1, text: 'one', done: 0 },
      { id: 3, text: 'three', done: 0 },
    ]);
    expect(finished).toEqual([{ id: 2, text: 'two', done: 1 }]);
    expect(openAgain).toEqual(open);
  });

  it('names cells by any column name as plain properties, __proto__ and quotes included', async () => {
    const [plain] = await conn.run({ sql: `select 1 as "a""b", 2 as "x'); y('", 3 as n`, parameters: [] });
    expect(plain).toEqual({ 'a"b': 1, "x'); y('": 2, n: 3 });
    const [odd] = await conn.run({ sql: 'select 1 as "__proto__", 2 as n', parameters: [] });
    expect(Object.getPrototypeOf(odd)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(odd, '__proto__')?.value).toBe(1);
    expect(odd?.n).toBe(2);
  });

  it('rejects a statement the database refuses, and keeps reading afterwards', async () => {
    await expect(conn.run({ sql: 'select * from missing_table', parameters: [] })).rejects.toThrow(
      /no such table/,
    );
    await expect(
      conn.run({ sql: 'select id from notes where id = ?', parameters: [1, 2] }),
    ).rejects.toThrow();
    expect(await count()).toBe(3);
  });

  it('gives the rows at once when nothing holds the connection, nothing while a transaction does', async () => {
    const statement = { sql: 'select id from notes where done = ? order by id', parameters: [0] };
    const runNow = conn.runNow as NonNullable<Connection['runNow']>;
    expect(runNow(statement)).toEqual([{ id: 1 }, { id: 3 }]);
    let inside: unknown = 'not run';
    await conn.db
      .transaction()
      .execute(async (trx) => {
        await sql`insert into notes (id, body, done) values (7, 'seven', 0)`.execute(trx);
        inside = runNow(statement);
        throw new Error('roll back');
      })
      .catch(() => undefined);
    // It never reads inside another's transaction: it leaves the read to `run`, which waits its turn.
    expect(inside).toBeUndefined();
    expect(runNow(statement)).toEqual([{ id: 1 }, { id: 3 }]);
    // A refusal of the database is thrown where the read is made.
    expect(() => runNow({ sql: 'select * from missing_table', parameters: [] })).toThrow(/no such table/);
  });

  it('reads after a failed transaction without waiting for it', async () => {
    await conn.db
      .transaction()
      .execute(async (trx) => {
        await sql`insert into notes (id, body, done) values (6, 'six', 0)`.execute(trx);
        throw new Error('roll back');
      })
      .catch(() => undefined);
    // Nothing holds the connection any more: the read completes (a leaked hold would hang here).
    expect(await count()).toBe(3);
  });
});
