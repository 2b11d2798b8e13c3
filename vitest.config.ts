import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Suites spawn servers and git; two cores: keep files parallel but bounded.
    maxWorkers: 2,
    pool: 'forks',
  },
});
