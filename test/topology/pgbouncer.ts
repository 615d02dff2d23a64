import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resources } from '../../examples/demo/resources.js';
import { createSchema } from '../../examples/demo/schema.js';
import { defineEndpoint, Filter } from '../../src/resource/policy.js';
import { type Connection, connect } from '../../src/sql/connect.js';
import { dropDatabase, freshDatabase } from '../support/databases.js';
import { insertFixture } from '../support/fixture.js';
import { type Host, startHost } from '../support/hosts.js';
import { editorContext, testEndpoints } from '../support/service.js';
import {
  databaseOf,
  queryAt,
  rewriteComment,
  topology,
  topologyUp,
  urlAt,
  writableComments,
} from '../support/topology.js';

/**
 * The service through a real PgBouncer (Debian's 1.18) in transaction mode: each transaction may run
 * on a different server connection, shared with other clients, so nothing may rely on session state.
 * PostgreSQL only: PgBouncer speaks its protocol.
 */
describe('through PgBouncer in transaction mode (postgres)', () => {
  let direct: Connection;
  let primary: Connection;
  let pooled: Connection;
  let name: string;
  let viaDirect: Host;
  let viaBouncer: Host;
  const config = {
    resources,
    endpoints: [
      ...testEndpoints,
      writableComments,
      defineEndpoint({
        resource: 'users',
        path: 'users-slow',
        // A statement that takes seconds whatever the data: the server sleeps once per query.
        allowedFilters: [Filter.custom('sleep', () => sql<boolean>`(select pg_sleep(3) is not null)`)],
        timeoutMs: 100,
      }),
    ],
    context: editorContext,
  };

  beforeAll(async () => {
    await topologyUp();
    direct = await freshDatabase('postgres', 'pgbouncer');
    await createSchema(direct);
    await insertFixture(direct);
    name = await databaseOf(direct);
    // A database whose own time zone is not UTC: a session setting that PgBouncer drops, or a server
    // connection left with another client's setting, shows in every timestamp and date filter.
    await sql.raw(`alter database ${name} set timezone = 'Pacific/Auckland'`).execute(direct.db);
    pooled = connect(urlAt(topology.pgbouncerPort, name), { poolSize: 4 });
    // The direct service on a connection opened after the ALTER, so both see the same database default.
    primary = connect(urlAt(topology.primaryPort, name));
    viaDirect = await startHost('standalone', config, primary);
    viaBouncer = await startHost('standalone', config, pooled);
  }, 60_000);
  afterAll(async () => {
    await viaBouncer?.close();
    await viaDirect?.close();
    await pooled?.close();
    await primary?.close();
    await direct?.close();
    await dropDatabase('postgres', 'pgbouncer');
  });

  const both = async (url: string, headers?: Record<string, string>) => {
    const [a, b] = await Promise.all([
      viaDirect.inject({ url, ...(headers && { headers }) }),
      viaBouncer.inject({ url, ...(headers && { headers }) }),
    ]);
    return { direct: a, bouncer: b };
  };

  it('answers lists, counts, includes and read-one as a direct connection does', async () => {
    for (const url of [
      '/api/users?sort=-created_at&per_page=50',
      '/api/users-loaded?include=posts,department,roles.permissions&count=posts,roles&per_page=20',
      '/api/users?filter[created_at][date_between]=2024-01-01,2024-03-31&per_page=50',
      '/api/posts?filter[published_at][year]=2024',
      '/api/users/3',
    ]) {
      const { direct: d, bouncer: b } = await both(url);
      expect(b.statusCode, `${url}: ${b.body}`).toBe(200);
      expect(d.statusCode, url).toBe(200);
      expect(b.json(), url).toEqual(d.json());
    }
  });

  it('reads and filters datetimes in UTC on every pooled server connection, without leaking the setting', async () => {
    const { bouncer } = await both('/api/users?sort=created_at&per_page=5');
    const first = bouncer.json().data[0];
    const [stored] = await queryAt<{ utc: string }>(
      topology.primaryPort,
      name,
      `select to_char(created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS') as utc from users order by created_at, id limit 1`,
    );
    expect(String(first.created_at).replace(' ', 'T')).toContain(stored?.utc);
    // Many statements at once: PgBouncer hands each transaction to whichever server connection is free.
    const zones = await Promise.all(
      Array.from({ length: 20 }, () =>
        pooled.run({ sql: "select current_setting('TimeZone') as tz", parameters: [] }),
      ),
    );
    expect(new Set(zones.map((rows) => rows[0]?.tz))).toEqual(new Set(['UTC']));
    // Another client of the same PgBouncer, with no setting of its own, gets the database's default.
    const [other] = await queryAt<{ tz: string }>(
      topology.pgbouncerPort,
      name,
      "select current_setting('TimeZone') as tz",
    );
    expect(other?.tz).toBe('Pacific/Auckland');
  });

  it('writes in transactions (conditional update, delete) and answers them', async () => {
    const { before: read, written: updated } = await rewriteComment(
      viaBouncer,
      2,
      'Written through PgBouncer',
    );
    expect(read.statusCode, read.body).toBe(200);
    expect(updated.statusCode, updated.body).toBe(200);
    expect(updated.json().body).toBe('Written through PgBouncer');
    const stale = await viaBouncer.inject({
      method: 'PATCH',
      url: '/api/comments-rw/2',
      headers: { 'if-match': String(read.headers.etag) },
      payload: { body: 'A lost update' },
    });
    expect(stale.statusCode, stale.body).toBe(412);
    const [stored] = await queryAt<{ body: string }>(
      topology.primaryPort,
      name,
      'select body from comments where id = 2',
    );
    expect(stored?.body).toBe('Written through PgBouncer');
    const removed = await viaBouncer.inject({ method: 'DELETE', url: '/api/comments-rw/3' });
    expect(removed.statusCode, removed.body).toBe(204);
    expect((await viaBouncer.inject({ url: '/api/comments-rw/3' })).statusCode).toBe(404);
  });

  it('keeps no named statement across transactions (1.18): a read refused for that is sent again unnamed', async () => {
    // A pool of its own: its first named statements meet server connections that other clients used.
    const fresh = connect(urlAt(topology.pgbouncerPort, name), { poolSize: 4 });
    const host = await startHost('standalone', config, fresh);
    try {
      const urls = Array.from(
        { length: 40 },
        (_, i) => `/api/users?per_page=${1 + (i % 4)}&sort=${i % 2 ? 'name' : '-created_at'}`,
      );
      const answers = await Promise.all(urls.map((url) => host.inject({ url })));
      for (const [i, answer] of answers.entries()) {
        expect(answer.statusCode, answer.body).toBe(200);
        expect(answer.json()).toEqual((await viaDirect.inject({ url: urls[i] as string })).json());
      }
    } finally {
      await host.close();
      await fresh.close();
    }
  });

  it('serves many concurrent requests over fewer server connections', async () => {
    const answers = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        viaBouncer.inject({ url: `/api/users?per_page=5&page=${(i % 4) + 1}` }),
      ),
    );
    expect(answers.map((answer) => answer.statusCode)).toEqual(answers.map(() => 200));
  });

  it('stops a read past the endpoint timeout through PgBouncer (cancel request) and stays usable', async () => {
    const res = await viaBouncer.inject({ url: '/api/users-slow?filter[sleep]=1' });
    expect(res.statusCode, res.body).toBe(503);
    expect(res.json().errors.query).toEqual(['The query took longer than 100 ms and was stopped.']);
    // The server stopped the statement, and the next request through PgBouncer is answered.
    const deadline = Date.now() + 5000;
    let active = 1;
    while (active > 0 && Date.now() < deadline) {
      const [row] = await queryAt<{ n: number }>(
        topology.primaryPort,
        'postgres',
        "select count(*)::int as n from pg_stat_activity where datname = $1 and state = 'active'",
        [name],
      );
      active = row?.n ?? 0;
      if (active > 0) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(active).toBe(0);
    expect((await viaBouncer.inject({ url: '/api/users?per_page=1' })).statusCode).toBe(200);
  }, 60_000);
});
