import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { defineConfig } from 'vitest/config';

// The PostgreSQL pass (`npm run test:postgres`, part of `npm test`; issue 19): every test file whose hosts come from
// `startHost` runs again with each such host on a PostgreSQL database of its own (one server for the run, started by
// the globalSetup). Files about the embedded engine's own files (write log, snapshots files, lock: test/store) and
// those that start `repohost serve` on a database file stay sql.js only.
function filesUsingStartHost(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return path === join('test', 'store') ? [] : filesUsingStartHost(path);
    return entry.name.endsWith('.test.ts') && readFileSync(path, 'utf8').includes('startHost(') ? [path] : [];
  });
}

export default defineConfig({
  test: {
    include: filesUsingStartHost('test'),
    testTimeout: 60_000,
    hookTimeout: 60_000,
    maxWorkers: 2,
    pool: 'forks',
    reporters: ['default'],
    // Every answer under /api/v3 is checked against GitHub's OpenAPI description after each file (issue 41); the
    // report of what the run covered is printed at the end.
    globalSetup: ['test/helpers/postgres-suite.ts', 'test/helpers/openapi/report.ts'],
    setupFiles: ['test/helpers/openapi/record-answers.ts'],
  },
});
