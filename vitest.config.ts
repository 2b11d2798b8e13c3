import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Suites spawn servers and git; two cores: keep files parallel but bounded.
    maxWorkers: 2,
    pool: 'forks',
    // The JSON report lets .ci/run print a plain "N passed, N failed" closing line.
    reporters: ['default', ['json', { outputFile: '.test-results/vitest.json' }]],
  },
});
