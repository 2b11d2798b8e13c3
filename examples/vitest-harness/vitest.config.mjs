import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    root: fileURLToPath(new URL('.', import.meta.url)),
    include: ['*.test.mjs'],
    globalSetup: ['./global-setup.mjs'],
    setupFiles: ['./reset-between-tests.mjs'],
    // One host for all files: they take turns, so a reset never lands in the middle of another file's test.
    fileParallelism: false,
  },
});
