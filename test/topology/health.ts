import { createServer, type Server } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resources } from '../../examples/demo/resources.js';
import { buildService } from '../../src/server/standalone.js';
import { type Connection, connect } from '../../src/sql/connect.js';
import { dialects, dropDatabase, freshDatabase } from '../support/databases.js';
import { testEndpoints } from '../support/service.js';
import { databaseOf, topology, topologyUp, urlAt } from '../support/topology.js';

const config = { resources, endpoints: testEndpoints, introspect: false } as const;

/** A port where something accepts TCP and never answers: a database that hangs. */
async function silentPort(): Promise<{ server: Server; port: number }> {
  const server = createServer(() => {});
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  return { server, port: typeof address === 'object' && address ? address.port : 0 };
}

for (const dialect of dialects) {
  describe(`health endpoints, on ${dialect}`, () => {
    let conn: Connection;
    let app: FastifyInstance;
    beforeAll(async () => {
      conn = await freshDatabase(dialect, `health_${dialect}`);
      app = await buildService({ config, connection: conn });
    });
    afterAll(async () => {
      await app?.close();
      await conn?.close();
      await dropDatabase(dialect, `health_${dialect}`);
    });

    it('answers liveness without asking the database, never cached', async () => {
      const res = await app.inject({ url: '/health/live' });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({ status: 'live' });
      expect(res.headers['cache-control']).toBe('no-store');
    });

    it('is ready when the primary answers, with no replicas to report', async () => {
      const res = await app.inject({ url: '/health/ready' });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toMatchObject({ status: 'ready', primary: { up: true }, replicas: [] });
      expect(res.headers['cache-control']).toBe('no-store');
    });
  });
}

for (const dialect of ['postgres', 'mysql'] as const) {
  describe(`readiness when the database does not answer, on ${dialect}`, () => {
    let silent: { server: Server; port: number };
    let app: FastifyInstance;
    let conn: Connection;
    beforeAll(async () => {
      silent = await silentPort();
      const url =
        dialect === 'postgres'
          ? `postgres://postgres@127.0.0.1:${silent.port}/none`
          : `mysql://root@127.0.0.1:${silent.port}/none`;
      conn = connect(url, { acquireTimeoutMs: 5000 });
      app = await buildService({ config, connection: conn });
    });
    afterAll(async () => {
      await app?.close();
      await conn?.close().catch(() => {});
      silent?.server.close();
    });

    it('answers 503 with the envelope within the probe timeout, while liveness stays 200', async () => {
      const res = await app.inject({ url: '/health/ready' });
      expect(res.statusCode, res.body).toBe(503);
      // Given up by the probe's own bound, not the pool's 5 s wait for a connection.
      expect(res.json().primary.error).toBe('no answer within 1000 ms');
      const body = res.json();
      expect(body.status).toBe('unready');
      expect(body.errors.database).toEqual([body.message]);
      expect(body.message).toMatch(/^The database does not answer/);
      expect(body.primary).toMatchObject({ up: false });
      expect(JSON.stringify(body)).not.toMatch(/at .*\.js:\d+/);
      expect((await app.inject({ url: '/health/live' })).statusCode).toBe(200);
    });
  });
}

describe('readiness reports each read replica (postgres)', () => {
  let direct: Connection;
  let routed: Connection;
  let app: FastifyInstance;
  let name: string;
  beforeAll(async () => {
    await topologyUp();
    direct = await freshDatabase('postgres', 'health_replicas');
    name = await databaseOf(direct);
    // The second replica's port refuses connections: that replica is down.
    routed = connect(urlAt(topology.primaryPort, name), {
      readUrls: [urlAt(topology.replicaPort, name), 'postgres://reader:secret@127.0.0.1:1/none'],
    });
    app = await buildService({ config, connection: routed });
  });
  afterAll(async () => {
    await app?.close();
    await routed?.close();
    await direct?.close();
    await dropDatabase('postgres', 'health_replicas');
  });

  it('stays ready with a replica down, and says which is up, without credentials', async () => {
    type Ready = { replicas: { url: string; up: boolean; error?: string }[] };
    const ready = async (): Promise<Ready> => {
      const res = await app.inject({ url: '/health/ready' });
      expect(res.statusCode, res.body).toBe(200);
      return res.json() as Ready;
    };
    // The new database reaches the replica a moment after it is created.
    await expect.poll(async () => (await ready()).replicas[0]?.up).toBe(true);
    const body = await ready();
    expect(body?.replicas[0]).toEqual({
      url: `postgres://***@127.0.0.1:${topology.replicaPort}/${name}`,
      up: true,
    });
    expect(body?.replicas[1]).toMatchObject({ url: 'postgres://***@127.0.0.1:1/none', up: false });
    expect(body?.replicas[1]?.error).toMatch(/ECONNREFUSED/);
    expect(JSON.stringify(body)).not.toContain('secret');
  }, 60_000);
});
