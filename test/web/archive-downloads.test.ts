import { execFile } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RepoHost } from '../../lib/index.js';
import { git, remoteUrl } from '../helpers/git-cli.js';
import { newRepo, newUser, type TestUser } from '../helpers/api.js';
import { bearer, http, startHost, tempDir } from '../helpers/host.js';

// Issue 21: zip and tar.gz downloads of any branch, tag or commit from the pages (the repository home, each release).

const run = promisify(execFile);

describe('source archive downloads', () => {
  let host: RepoHost;
  let alice: TestUser;
  let work: Awaited<ReturnType<typeof tempDir>>;
  let first: string;

  beforeAll(async () => {
    host = await startHost();
    alice = await newUser(host, 'alice');
    await newRepo(host, alice, 'tool', 'private');
    work = await tempDir('repohost-archives-');
    const dir = join(work.path, 'src');
    await git(work.path, ['init', '-q', 'src'], work.path);
    await writeFile(join(dir, 'one.txt'), '1\n');
    await git(dir, ['add', '.'], work.path);
    await git(dir, ['commit', '-q', '-m', 'One'], work.path);
    first = await git(dir, ['rev-parse', 'HEAD'], work.path);
    await git(dir, ['tag', 'v1'], work.path);
    await writeFile(join(dir, 'two.txt'), '2\n');
    await git(dir, ['add', '.'], work.path);
    await git(dir, ['commit', '-q', '-m', 'Two'], work.path);
    const remote = remoteUrl(host, 'alice', alice.token, 'tool');
    await git(dir, ['push', '-q', remote, 'main', 'v1'], work.path);
    expect((await http(`${host.url}/api/v3/repos/alice/tool/releases`, { headers: bearer(alice.token), json: { tag_name: 'v1', name: 'First' } })).status).toBe(201);
  });

  afterAll(async () => {
    await host?.close();
    await work?.cleanup();
  });

  const download = async (path: string, token = alice.token) => {
    const answer = await fetch(`${host.url}${path}`, { headers: token ? bearer(token) : {} });
    return { status: answer.status, type: answer.headers.get('content-type'), disposition: answer.headers.get('content-disposition'), bytes: Buffer.from(await answer.arrayBuffer()) };
  };

  it('links them from the home page and each release, and serves zip and tar.gz of a branch, a tag and a commit', async () => {
    const home = await http(`${host.url}/alice/tool`, { headers: bearer(alice.token) });
    expect(home.text).toContain('href="/alice/tool/archive/main.zip"');
    expect(home.text).toContain('href="/alice/tool/archive/main.tar.gz"');
    const release = await http(`${host.url}/alice/tool/releases/tag/v1`, { headers: bearer(alice.token) });
    expect(release.text).toContain('href="/alice/tool/archive/v1.zip"');

    const zip = await download('/alice/tool/archive/main.zip');
    expect([zip.status, zip.type]).toEqual([200, 'application/zip']);
    expect(zip.disposition).toMatch(/^attachment; filename=alice-tool-[0-9a-f]{7}\.zip$/);
    await writeFile(join(work.path, 'main.zip'), zip.bytes);
    const listed = (await run('/usr/bin/python3', ['-c', 'import sys, zipfile; print("\\n".join(zipfile.ZipFile(sys.argv[1]).namelist()))', join(work.path, 'main.zip')])).stdout;
    expect(listed).toMatch(/alice-tool-[0-9a-f]{7}\/two\.txt/);

    for (const ref of ['v1', first]) {
      const tar = await download(`/alice/tool/archive/${ref}.tar.gz`);
      expect([tar.status, tar.type]).toEqual([200, 'application/x-gzip']);
      await writeFile(join(work.path, 'old.tar.gz'), tar.bytes);
      const names = (await run('tar', ['tzf', join(work.path, 'old.tar.gz')])).stdout;
      expect(names).toContain('one.txt');
      expect(names).not.toContain('two.txt');
    }
  });

  it('answers 404 for an unknown ref or format, and to whoever may not read the repository', async () => {
    expect((await download('/alice/tool/archive/nowhere.zip')).status).toBe(404);
    expect((await download('/alice/tool/archive/main.rar')).status).toBe(404);
    expect((await download('/alice/tool/archive/main.zip', '')).status).toBe(404);
  });
});
