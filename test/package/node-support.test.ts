import { execFile, spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { createRepoHost } from '../../lib/index.js';
import { unsupportedNode } from '../../lib/node-support.js';
import { BIN } from '../cli/processes.js';
import { tempDir } from '../helpers/host.js';
import packageJson from '../../package.json' with { type: 'json' };

const run = promisify(execFile);

/** Makes the process report another Node.js version before anything else runs (as an older Node would). */
const pretend = (version: string) => `data:text/javascript,Object.defineProperty(process.versions,"node",{value:"${version}"})`;

// Issue 39: repohost runs on the LTS lines 22 (from 22.12) and 24; an older Node is refused with a sentence.
describe('the Node.js releases repohost runs on', () => {
  it.each(['22.12.0', '22.23.5', '24.0.0', '24.22.3', '26.1.0'])('runs on Node.js %s', (version) => {
    expect(unsupportedNode(version)).toBeUndefined();
  });

  it.each(['20.19.0', '22.11.9', '21.7.3', '18.20.8'])('refuses Node.js %s, saying which it needs', (version) => {
    expect(unsupportedNode(version)).toBe(`repohost needs Node.js 22.12 or later (the LTS lines 22 and 24 are supported); this is Node.js ${version}`);
  });

  it('says the same in package.json\'s engines', () => {
    expect(packageJson.engines.node).toBe('>=22.12');
  });

  it('makes the command refuse an older Node.js with one line and exit code 1, before it loads anything else', async () => {
    const refused = await run(process.execPath, ['--import', pretend('20.19.0'), BIN, '--version']).then(
      () => undefined,
      (error: { code: number; stdout: string; stderr: string }) => error,
    );
    expect(refused?.code).toBe(1);
    expect(refused?.stdout).toBe('');
    expect(refused?.stderr).toBe('repohost needs Node.js 22.12 or later (the LTS lines 22 and 24 are supported); this is Node.js 20.19.0\n');
    // The same command on this Node answers.
    expect((await run(process.execPath, [BIN, '--version'])).stdout.trim()).toBe(packageJson.version);
  });

  it('runs the command with 16 MB semi-spaces, so a server\'s memory levels off as on Node 22 (run as an executable)', async () => {
    const work = await tempDir('repohost-node-flags-');
    // The executable through its first line, as `npx repohost` and an installed `repohost` run it, on this Node.
    const server = spawn(BIN, ['serve', '--port', '0', '--db', join(work.path, 'data.db')], {
      env: { ...process.env, PATH: `${dirname(process.execPath)}:${process.env.PATH ?? ''}` },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      await new Promise<void>((resolve, reject) => {
        server.stdout.on('data', (chunk: Buffer) => String(chunk).includes('http://') && resolve());
        server.once('exit', (code) => reject(new Error(`repohost serve exited with ${code}`)));
      });
      const commandLine = (await readFile(`/proc/${server.pid}/cmdline`, 'utf8')).split('\0');
      expect(commandLine).toContain('--max-semi-space-size=16');
    } finally {
      server.kill('SIGTERM');
      await new Promise((resolve) => server.once('close', resolve));
      await work.cleanup();
    }
  });

  it('makes createRepoHost refuse an older Node.js with the same sentence, starting nothing', async () => {
    const actual = process.versions.node;
    Object.defineProperty(process.versions, 'node', { value: '20.19.0' });
    try {
      await expect(createRepoHost({ port: 0 })).rejects.toThrow('repohost needs Node.js 22.12 or later');
    } finally {
      Object.defineProperty(process.versions, 'node', { value: actual });
    }
  });
});
