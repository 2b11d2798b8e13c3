import { rm } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';

/**
 * Where the suite's sql.js engines record the statements they prepare (`REPOHOST_SQL_CAPTURE`, set in
 * vitest.config.ts), read afterwards by the PostgreSQL check (`test/store/postgres-statements.check.ts`).
 */
export const SQL_CAPTURE_DIR = fileURLToPath(new URL('../../.test-results/sql-capture/', import.meta.url));

/** vitest globalSetup: every run starts with an empty capture, so the check sees only what this run issued. */
export async function setup(): Promise<void> {
  await rm(SQL_CAPTURE_DIR, { recursive: true, force: true });
}
