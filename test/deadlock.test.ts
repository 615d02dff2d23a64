import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Connection } from '../src/sql/connect.js';
import type { DynamicDb } from '../src/sql/dialect.js';
import { dropDatabase, freshDatabase } from './support/databases.js';

/**
 * Refusals that say "try again" rather than "your data is wrong": a deadlock (PostgreSQL 40P01,
 * MariaDB 1213), a serialization failure or a replica's recovery conflict (40001), a lock that could
 * not be had in time (55P03, 1205). The client gets 503 with Retry-After (never a 500), and a read on
 * a replica is retried elsewhere. Made for real here: two transactions lock two rows in opposite order.
 */
describe.each(['postgres', 'mysql'] as const)('transient refusals on %s', (dialect) => {
  let conn: Connection;
  beforeAll(async () => {
    conn = await freshDatabase(dialect, 'deadlock');
    await sql`create table pairs (id integer primary key, v integer not null)`.execute(conn.db);
    await sql`insert into pairs (id, v) values (1, 0), (2, 0)`.execute(conn.db);
  });
  afterAll(async () => {
    await conn?.db.destroy();
    await dropDatabase(dialect, 'deadlock');
  });

  it('reads a deadlock as the database being unavailable for a moment', async () => {
    const bump = (db: DynamicDb, id: number) => sql`update pairs set v = v + 1 where id = ${id}`.execute(db);
    let release: () => void = () => {};
    const bothLocked = new Promise<void>((resolve) => {
      let locked = 0;
      release = () => {
        locked += 1;
        if (locked === 2) resolve();
      };
    });
    const crossing = (first: number, second: number) =>
      conn.db.transaction().execute(async (trx) => {
        await bump(trx, first);
        release();
        await bothLocked;
        await bump(trx, second);
      });
    const results = await Promise.allSettled([crossing(1, 2), crossing(2, 1)]);
    const refused = results.filter((result) => result.status === 'rejected');
    // The engine breaks the cycle by refusing one of the two; the other commits.
    expect(refused).toHaveLength(1);
    const error = (refused[0] as PromiseRejectedResult).reason;
    expect(await conn.dialect.refusal(error, conn.db)).toEqual({ kind: 'unavailable' });
  });
});
