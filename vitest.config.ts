import { defineConfig } from 'vitest/config';
import { LongFirst } from './test/support/sequencer.js';

/** What every run of the suites shares (`npm test`, and `npm run test:fast`'s config). */
export const common = {
  testTimeout: 30_000,
  hookTimeout: 60_000,
  // Each test file uses its own databases. Four workers on two cores: much of a file's time is spent
  // waiting (on a database, a command it started, a browser), which the other files fill; on a busy
  // machine, one loaded run took vitest 466 s with four and 583 s with three.
  maxWorkers: 4,
  // A worker's files share its modules (the package, Fastify, the drivers) instead of importing them
  // afresh for each file, which cost more than a third of the suite's time. A file leaves no global
  // state behind: what it changes of process.env, it restores; what it opens, it closes.
  isolate: false,
  // A page or a service may take seconds to answer on a busy machine: polls wait for what they mean.
  expect: { poll: { timeout: 15_000 } },
  sequence: { sequencer: LongFirst },
};

/** The demo schema with the fixture, made once per run, which the suites' databases are copied from. */
export const templates = 'test/support/templates-setup.ts';

/**
 * The suites of the machine's streaming replica and PgBouncer: one file (its parts run one after another,
 * since one of them stops and restarts the replica), beside the other files.
 */
export const sharedServices = ['test/topology.test.ts'];

export default defineConfig({
  test: {
    ...common,
    // With --coverage: counters istanbul adds to the service's code as it is loaded into the test
    // processes (commands the tests spawn are not counted), summed up in the log and in
    // coverage/coverage-summary.json. Not V8's own counts: with files sharing their worker's modules
    // (isolate: false), vitest keeps a module's V8 counts only from the file that first imported it.
    coverage: {
      provider: 'istanbul',
      include: ['src/**'],
      reporter: ['text-summary', 'json-summary'],
      reportsDirectory: 'coverage',
    },
    include: ['test/**/*.test.ts'],
    // The replica and PgBouncer are started here, once, if they are not up; the suites only check.
    globalSetup: [templates, 'test/support/topology-setup.ts'],
  },
});
