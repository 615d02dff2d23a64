import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resources } from '../examples/demo/resources.js';
import { createSchema } from '../examples/demo/schema.js';
import { defineEndpoint, type ServiceConfig } from '../src/resource/policy.js';
import { type Connection, connect, dialectFor } from '../src/sql/connect.js';
import { mysql } from '../src/sql/dialects/mysql.js';
import { databaseUrl, dropDatabase, freshDatabase } from './support/databases.js';
import { insertFixture } from './support/fixture.js';
import { type Host, type InjectResponse, startHost } from './support/hosts.js';
import { editorContext, testEndpoints } from './support/service.js';
import { rewriteComment, writableComments } from './support/topology.js';

const stats = defineEndpoint({
  resource: 'users',
  path: 'stats',
  aggregates: { allowedAggregates: ['count', 'sum:balance'], allowedGroupBy: ['status', 'created_at:month'] },
});
const config = {
  resources,
  endpoints: [...testEndpoints, writableComments, stats],
  context: editorContext,
} as ServiceConfig;

/** Requests of every kind of answer, with the status each must get. */
const requests: [string, number][] = [
  ['/api/users?filter[status]=active&sort=-score&per_page=5', 200],
  ['/api/users-loaded?include=roles.permissions,posts&count=posts&sort=name&per_page=3', 200],
  ['/api/users?filter[settings.theme]=dark&filter[score][gte]=50', 200],
  ['/api/posts?filter[meta.featured]=true', 200],
  ['/api/users?pagination=cursor&sort=name&per_page=4', 200],
  ['/api/users?filter[or][0][status]=banned&filter[or][1][score][gte]=95&pagination=simple', 200],
  ['/api/users-unlimited?all=true&format=csv', 200],
  ['/api/stats/aggregate?metrics=count,sum:balance&group_by=status', 200],
  [
    '/api/stats/aggregate?metrics=count&group_by=created_at:month&from=2024-01-01&to=2024-07-01&tz=Europe/Berlin',
    200,
  ],
  ['/api/users/2', 200],
  ['/api/users/999999', 404],
  ['/api/users?filter[nope]=1', 422],
];

/** What a client can tell of an answer: status, type, body. */
const seen = (response: InjectResponse) => ({
  status: response.statusCode,
  type: response.headers['content-type'],
  body: response.body,
});

/**
 * `mariadb://` is read as `mysql://` (src/sql/connect.ts): the same dialect, the same server, the same
 * answers. Two services on one MariaDB database, one connected by each scheme.
 */
describe('a mariadb:// URL against MariaDB', () => {
  let fixture: Connection;
  let viaMysql: Connection;
  let viaMariadb: Connection;
  let mysqlHost: Host;
  let mariadbHost: Host;
  const mysqlUrl = () => databaseUrl('mysql', 'mariadb_url');
  const mariadbUrl = () => mysqlUrl().replace(/^mysql:/, 'mariadb:');

  beforeAll(async () => {
    fixture = await freshDatabase('mysql', 'mariadb_url');
    await createSchema(fixture);
    await insertFixture(fixture);
    viaMysql = connect(mysqlUrl());
    viaMariadb = connect(mariadbUrl());
    mysqlHost = await startHost('standalone', config, viaMysql);
    mariadbHost = await startHost('standalone', config, viaMariadb);
  }, 120_000);
  afterAll(async () => {
    await mysqlHost?.close();
    await mariadbHost?.close();
    await viaMysql?.close();
    await viaMariadb?.close();
    await fixture?.close();
    await dropDatabase('mysql', 'mariadb_url');
  });

  it('picks the MySQL dialect and reaches the MariaDB server and database the URL names', async () => {
    expect(mariadbUrl()).toMatch(/^mariadb:\/\//);
    expect(dialectFor(mariadbUrl())).toBe(mysql);
    expect(viaMariadb.dialect).toBe(mysql);
    const [row] = await viaMariadb.run({
      sql: 'select version() as version, database() as name',
      parameters: [],
    });
    expect(String(row?.version)).toMatch(/MariaDB/);
    expect(row?.name).toBe(new URL(mariadbUrl()).pathname.slice(1));
  });

  it('answers every kind of request as the mysql:// service does', async () => {
    for (const [url, status] of requests) {
      const viaAlias = seen(await mariadbHost.inject({ url }));
      expect(viaAlias.status, `${url}: ${viaAlias.body}`).toBe(status);
      expect(viaAlias, url).toEqual(seen(await mysqlHost.inject({ url })));
    }
    // A cursor page's next page, followed through each.
    const first = await mariadbHost.inject({ url: requests[4]?.[0] as string });
    const link = new URL(first.json().next_page_url, 'http://localhost');
    const next = link.pathname + link.search;
    const second = await mariadbHost.inject({ url: next });
    expect(second.statusCode).toBe(200);
    expect(second.json().data).not.toEqual(first.json().data);
    expect(seen(second)).toEqual(seen(await mysqlHost.inject({ url: next })));
  });

  it('writes through the alias what the mysql:// service then reads', async () => {
    const { before, written } = await rewriteComment(mariadbHost, 3, 'Written through mariadb://');
    expect(before.statusCode, before.body).toBe(200);
    expect(written.statusCode, written.body).toBe(200);
    const read = await mysqlHost.inject({ url: '/api/comments-rw/3' });
    expect(read.json().body).toBe('Written through mariadb://');
    expect(read.headers.etag).toBe(written.headers.etag);
  });

  it('takes mariadb:// read replicas beside a mysql:// primary, and reads from them', async () => {
    const routed = connect(mysqlUrl(), { readUrls: [mariadbUrl()] });
    try {
      const health = await routed.health();
      expect(health.primary.up).toBe(true);
      expect(health.replicas).toEqual([{ url: mariadbUrl().replace('root@', '***@'), up: true }]);
      const host = await startHost('standalone', config, routed);
      try {
        const url = requests[0]?.[0] as string;
        expect(seen(await host.inject({ url }))).toEqual(seen(await mysqlHost.inject({ url })));
      } finally {
        await host.close();
      }
    } finally {
      await routed.close();
    }
  });
});
