import { defineConfig, mergeConfig } from 'vitest/config';
import base from './vitest.config.js';

/**
 * `npm run test:fast`, the edit–test loop: the suites on SQLite (TEST_ENGINES=sqlite) and the unit tests,
 * without the browser and the tests of the database servers' own topology and faults (replica,
 * PgBouncer, health, pools, timeouts, deadlocks, workers), which need PostgreSQL or MariaDB whatever the
 * engines chosen. CI runs everything (`npm test`).
 */
export default mergeConfig(
  base,
  defineConfig({
    test: {
      exclude: [
        '**/node_modules/**',
        'test/e2e/**',
        'test/replica.test.ts',
        'test/pgbouncer.test.ts',
        'test/health.test.ts',
        'test/faults.test.ts',
        'test/deadlock.test.ts',
        'test/pool-size.test.ts',
        'test/timeouts.test.ts',
        'test/prepared-statements.test.ts',
        'test/workers.test.ts',
      ],
    },
  }),
);
