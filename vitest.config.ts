import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    pool: 'forks',
    setupFiles: ['test/support/no-leaked-listeners.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // CI also writes a machine-readable report (.ci/run prints its totals as a plain closing line).
    reporters: process.env.VITEST_JSON_REPORT ? ['default', 'json'] : ['default'],
    outputFile: process.env.VITEST_JSON_REPORT ? { json: process.env.VITEST_JSON_REPORT } : undefined,
  },
});
