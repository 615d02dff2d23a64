import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Two cores: one worker per core; each test file uses its own databases.
    maxWorkers: 2,
    // A page or a service may take seconds to answer on a busy machine: polls wait for what they mean.
    expect: { poll: { timeout: 15_000 } },
  },
});
