import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['**/*.test.ts'],
    exclude: ['node_modules/**', 'data/**', '.cache/**'],
    globalSetup: ['test/support/global-setup.ts'],
    // Fails a test during which a simulator answered off its platform's description.
    setupFiles: ['test/support/simulator-conformance.ts'],
    // Files run in parallel; each owns its database and queue prefix (test/support/test-context.ts).
    pool: 'forks',
    // Files share their worker process's modules (each still owns its database and queue prefix): importing the
    // stack afresh for every file took vitest's import time to 609 s; shared, 95 s, and the run from 966 to 457 s.
    isolate: false,
    fileParallelism: true,
    // Vitest's default is one worker fewer than the cores: one on our 2-core machines. Most test time
    // is waiting on servers, timers and simulators, so three files at once finish in half the time.
    maxWorkers: 3,
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
