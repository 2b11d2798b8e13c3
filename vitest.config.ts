import { defineConfig } from 'vitest/config';
import { SQL_CAPTURE_DIR } from './test/helpers/sql-capture.js';

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
    // Every statement the store prepares is recorded (emptied first by the globalSetup), for the PostgreSQL check that
    // runs after the suite (vitest.postgres-check.config.ts).
    // Every answer under /api/v3 is checked against GitHub's OpenAPI description after each file (issue 41); the
    // report of what the run covered is printed at the end.
    globalSetup: ['test/helpers/sql-capture.ts', 'test/helpers/openapi/report.ts'],
    setupFiles: ['test/helpers/openapi/record-answers.ts'],
    env: { REPOHOST_SQL_CAPTURE: SQL_CAPTURE_DIR },
  },
});
