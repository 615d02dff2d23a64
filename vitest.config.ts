import { defineConfig } from 'vitest/config';

/** What every run of the suites shares (`npm test`, and `npm run test:fast`'s config). */
export const common = {
  testTimeout: 30_000,
  hookTimeout: 60_000,
  // Two cores: one worker per core; each test file uses its own databases.
  maxWorkers: 2,
  // A page or a service may take seconds to answer on a busy machine: polls wait for what they mean.
  expect: { poll: { timeout: 15_000 } },
};

/** The demo schema with the fixture, made once per run, which the suites' databases are copied from. */
export const templates = 'test/support/templates-setup.ts';

/**
 * The suites of the machine's streaming replica and PgBouncer: one stops and restarts the replica, the
 * others read through it. They run one at a time, after the other suites, never beside each other.
 */
export const sharedServices = ['test/replica.test.ts', 'test/health.test.ts', 'test/pgbouncer.test.ts'];

export default defineConfig({
  test: {
    ...common,
    // With --coverage: V8's own counts of the service's code run in the test processes (commands the
    // tests spawn are not counted), summed up in the log and in coverage/coverage-summary.json.
    coverage: {
      provider: 'v8',
      include: ['src/**'],
      reporter: ['text-summary', 'json-summary'],
      reportsDirectory: 'coverage',
    },
    projects: [
      {
        extends: true,
        test: {
          name: 'suites',
          include: ['test/**/*.test.ts'],
          exclude: ['**/node_modules/**', ...sharedServices],
          globalSetup: [templates],
        },
      },
      {
        extends: true,
        test: {
          name: 'shared services',
          include: sharedServices,
          fileParallelism: false,
          // The replica and PgBouncer are started here, once, if they are not up; the suites only check.
          globalSetup: ['test/support/topology-setup.ts'],
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
