import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['**/*.test.ts'],
    exclude: ['node_modules/**', 'data/**', '.cache/**'],
    globalSetup: ['test/support/global-setup.ts'],
    // Files run in parallel; each owns its database and queue prefix (test/support/test-context.ts).
    pool: 'forks',
    fileParallelism: true,
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
