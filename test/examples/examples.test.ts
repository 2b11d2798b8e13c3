import { execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { http, tempDir } from '../helpers/host.js';

const examples = fileURLToPath(new URL('../../examples/', import.meta.url));
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

describe('examples (run against the built package)', () => {
  it('embed-in-test-harness pushes with git, awaits the push event and lists the pushed file', async () => {
    const { stdout } = await promisify(execFile)(process.execPath, [`${examples}embed-in-test-harness.mjs`], { timeout: 60_000 });
    expect(stdout).toContain('push event: refs/heads/main by alice, commits: first commit');
    expect(stdout).toContain("files on main: [ 'README.md (first commit)' ]");
  });

  it('octokit drives the GitHub-compatible API with @octokit/rest: contents, pull request, status, merge', async () => {
    const { stdout } = await promisify(execFile)(process.execPath, [`${examples}octokit.mjs`], { timeout: 60_000 });
    expect(stdout).toContain('created bot/release-notes on main');
    expect(stdout).toContain('pull request #1 merged: true');
    expect(stdout).toContain('NOTES.md on main: "# 1.0\\n\\n- first release\\n"');
    expect(stdout).toContain('issues and pull requests: #1 Release notes (pull request)');
    expect(stdout).toContain('commits on main: Release notes (#1) <- Initial commit');
  });

  it('probot-app answers an issue through its installation, as a Probot app in app mode', async () => {
    const { stdout } = await promisify(execFile)(process.execPath, [`${examples}probot-app.mjs`], { timeout: 60_000 });
    expect(stdout.trim()).toBe('greeter[bot] (Bot): Thanks for opening this issue!');
  });

  it('serve-from-code serves until SIGTERM, then exits 0 and leaves its database behind', async () => {
    const dir = await tempDir();
    cleanups.push(dir.cleanup);
    const child = spawn(process.execPath, [`${examples}serve-from-code.mjs`], { cwd: dir.path, env: { ...process.env, PORT: '0' } });
    const url = await new Promise<string>((resolve, reject) => {
      let output = '';
      child.stdout.on('data', (chunk: Buffer) => {
        output += chunk.toString();
        const match = /listening on (http:\/\/\S+)/.exec(output);
        if (match) resolve(match[1]!);
      });
      child.once('exit', (code) => reject(new Error(`exited early with ${code}: ${output}`)));
    });
    expect((await http(`${url}/`)).status).toBe(200);
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(existsSync(`${dir.path}/example-data/repohost.db`)).toBe(true);
  });
});
