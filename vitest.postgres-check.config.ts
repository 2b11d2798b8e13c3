import { defineConfig } from 'vitest/config';

// The PostgreSQL check (`npm run check:postgres`, and the last step of `npm test`): reads what the suite captured,
// so it runs on its own, after it, and captures nothing itself.
export default defineConfig({
  test: {
    include: ['test/store/postgres-statements.check.ts'],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    pool: 'forks',
    reporters: ['default'],
  },
});
