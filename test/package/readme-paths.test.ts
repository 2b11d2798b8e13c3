import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');

// Issue 20: what README points a harness author at ships in the npm package.
describe('the npm package', () => {
  it('holds every example README names', async () => {
    const readme = await readFile(join(ROOT, 'README.md'), 'utf8');
    const named = [...new Set([...readme.matchAll(/`(examples\/[^`\s]+)`/g)].map((match) => match[1]!.replace(/\/$/, '')))];
    expect(named.length).toBeGreaterThan(3);
    const { stdout } = await promisify(execFile)('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: ROOT, maxBuffer: 64 * 1024 * 1024 });
    const packed = (JSON.parse(stdout) as Array<{ files: Array<{ path: string }> }>)[0]!.files.map((file) => file.path);
    for (const path of named) expect(packed.some((file) => file === path || file.startsWith(`${path}/`)), `${path} is in the package`).toBe(true);
    // Nothing of an example's own dependencies or caches goes with it.
    expect(packed.filter((file) => file.includes('node_modules'))).toEqual([]);
  });
});
