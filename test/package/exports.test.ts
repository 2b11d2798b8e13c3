import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';

describe('the package', () => {
  it('exports exactly the public API from its entry point', async () => {
    const entry = await import('../../lib/index.js');
    expect(Object.keys(entry).sort()).toEqual(['DatabaseLockedError', 'EventTimeoutError', 'FixtureError', 'PortInUseError', 'RepoHostError', 'SUBSCRIBABLE_EVENTS', 'createRepoHost']);
  });

  it('declares an ESM entry with types, the repohost bin and a supported Node range', async () => {
    const pkg = JSON.parse(await readFile(new URL('../../package.json', import.meta.url), 'utf8'));
    expect(pkg.name).toBe('repohost');
    expect(pkg.type).toBe('module');
    // The bundle (scripts/build.mjs) runs; the compiled tree beside it gives the types.
    expect(pkg.exports['.']).toEqual({ types: './dist/index.d.ts', import: './dist/bundle/index.js' });
    expect(pkg.bin).toEqual({ repohost: 'bin/repohost' });
    expect(pkg.engines.node).toBe('>=22.12');
  });

  it('is importable by name once built, as a harness would import it', async () => {
    const name = 'repohost'; // resolved through package.json `exports`, i.e. the built dist/
    const entry = (await import(name)) as typeof import('../../lib/index.js');
    expect(typeof entry.createRepoHost).toBe('function');
  });
});
