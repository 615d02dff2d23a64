import { defineConfig } from 'vitest/config';
import { common, sharedServices, templates } from './vitest.config.js';

/**
 * `npm run test:fast`, the edit–test loop: the suites on SQLite (TEST_ENGINES=sqlite) and the unit tests,
 * without the browser, the packed install, and the tests of the database servers' own topology and
 * faults (replica, PgBouncer, health, the command's read replicas, pools, timeouts, deadlocks, workers),
 * which need PostgreSQL or MariaDB whatever the engines chosen. CI runs everything (`npm test`).
 */
export default defineConfig({
  test: {
    ...common,
    include: ['test/**/*.test.ts'],
    globalSetup: [templates],
    exclude: [
      '**/node_modules/**',
      'test/e2e/**',
      // Packs and installs the package into a new project: the registry, and SQLite compiled again.
      'test/package.test.ts',
      ...sharedServices,
      'test/faults.test.ts',
      'test/deadlock.test.ts',
      'test/pool-size.test.ts',
      'test/timeouts.test.ts',
      'test/prepared-statements.test.ts',
      'test/workers.test.ts',
    ],
  },
});
