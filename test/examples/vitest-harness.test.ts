import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../', import.meta.url));

describe('examples/vitest-harness (run against the built package)', () => {
  it('runs its own vitest: one host from fixtures in a global setup, reset before every test', async () => {
    const { stdout } = await promisify(execFile)(process.execPath, [`${root}node_modules/vitest/vitest.mjs`, 'run', '--config', 'examples/vitest-harness/vitest.config.mjs'], {
      cwd: root,
      timeout: 120_000,
      env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' },
    });
    // The last test passes only if the changes of the first two were undone.
    expect(stdout).toMatch(/Tests\s+3 passed \(3\)/);
  });
});
