import { describe, expect, it } from 'vitest';
import { resources } from '../examples/demo/resources.js';
import { connectOptionsFrom } from '../src/cli/env.js';
import { buildService } from '../src/server/standalone.js';
import type { ConnectOptions } from '../src/sql/dialect.js';
import { dropDatabase, serverConnections } from './support/databases.js';
import { testEndpoints } from './support/service.js';
import { fixtureDatabase } from './support/templates.js';

describe('DATABASE_POOL_SIZE', () => {
  it('sets the pool size, and refuses a value it cannot use, naming it', () => {
    expect(connectOptionsFrom({})).toEqual({});
    expect(connectOptionsFrom({ DATABASE_POOL_SIZE: '' })).toEqual({});
    expect(connectOptionsFrom({ DATABASE_POOL_SIZE: '4' })).toEqual({ poolSize: 4 });
    for (const bad of ['0', '-1', '2.5', 'ten', '10000', ' 4'])
      expect(() => connectOptionsFrom({ DATABASE_POOL_SIZE: bad })).toThrow(/DATABASE_POOL_SIZE/);
  });
});

// SQLite has a single connection: there is no pool to size.
for (const dialect of ['postgres', 'mysql'] as const) {
  describe(`the pool size on ${dialect}`, () => {
    /** Opens the service with `options`, sends a burst of concurrent list requests, counts server connections. */
    async function connectionsAfterBurst(name: string, options?: ConnectOptions): Promise<number> {
      const conn = await fixtureDatabase(dialect, name, options);
      try {
        const app = await buildService({ config: { resources, endpoints: testEndpoints }, connection: conn });
        const responses = await Promise.all(
          Array.from({ length: 40 }, (_, i) => app.inject({ url: `/api/users?per_page=${1 + (i % 5)}` })),
        );
        expect(responses.every((response) => response.statusCode === 200)).toBe(true);
        const open = await serverConnections(dialect, name);
        await app.close();
        return open;
      } finally {
        await conn.db.destroy();
        await dropDatabase(dialect, name);
      }
    }

    it('never opens more connections than poolSize under concurrent requests', async () => {
      const small = await connectionsAfterBurst(`pool_small_${dialect}`, { poolSize: 2 });
      expect(small).toBeGreaterThanOrEqual(1);
      expect(small).toBeLessThanOrEqual(2);
      // The same burst with the default pool opens more: the option is what held it at two.
      const unbounded = await connectionsAfterBurst(`pool_default_${dialect}`);
      expect(unbounded).toBeGreaterThan(2);
    });
  });
}
