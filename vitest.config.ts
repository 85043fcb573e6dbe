import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    pool: 'forks',
    // Vitest's default outside watch mode is one fewer worker than cores: one on a 2-core machine, so every file
    // waited on the one before. Most files wait on child processes, sockets and simulated latency, not on CPU.
    maxWorkers: 2,
    setupFiles: ['test/support/no-leaked-listeners.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // CI also writes a machine-readable report (.ci/run prints its totals as a plain closing line).
    reporters: process.env.VITEST_JSON_REPORT ? ['default', 'json'] : ['default'],
    outputFile: process.env.VITEST_JSON_REPORT ? { json: process.env.VITEST_JSON_REPORT } : undefined,
  },
});
