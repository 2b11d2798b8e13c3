import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RepoHost } from '../../lib/index.js';
import { inspect, launchChromium } from '../helpers/browser.js';
import { git, remoteUrl } from '../helpers/git-cli.js';
import { newRepo, newUser, type TestUser } from '../helpers/api.js';
import { bearer, http, startHost, tempDir } from '../helpers/host.js';

// Issue 21: the blame of a file, each run of lines with the commit that last changed it and a link to the blame
// before that change.

describe('blame pages', () => {
  let host: RepoHost;
  let browser: Browser;
  let alice: TestUser;
  const commits: Record<string, string> = {};

  beforeAll(async () => {
    host = await startHost();
    browser = await launchChromium();
    alice = await newUser(host, 'alice');
    await newRepo(host, alice, 'story', 'private');
    const work = await tempDir('repohost-blame-');
    try {
      const dir = work.path;
      const commit = async (author: string, message: string) => {
        await git(dir, ['add', '-A'], dir);
        await git(dir, ['-c', `user.name=${author}`, '-c', `user.email=${author.toLowerCase().replace(/ /g, '.')}@example.com`, 'commit', '-q', '-m', message], dir);
        commits[message] = await git(dir, ['rev-parse', 'HEAD'], dir);
      };
      await git(dir, ['init', '-q', '.'], dir);
      await writeFile(join(dir, 'tale.txt'), 'Once upon a time\nthere was a <forge>\nThe end\n');
      await writeFile(join(dir, 'blob.bin'), Buffer.from([0, 1, 2, 3]));
      await commit('Alice Author', 'Begin the tale');
      await writeFile(join(dir, 'tale.txt'), 'Once upon a time\nthere was a git forge\nThe end\n');
      await commit('Bob Builder', 'Name the forge');
      await git(dir, ['mv', 'tale.txt', 'story.txt'], dir);
      await commit('Alice Author', 'Rename the tale');
      const remote = remoteUrl(host, 'alice', alice.token, 'story');
      await git(dir, ['push', '-q', remote, 'main'], dir);
    } finally {
      await work.cleanup();
    }
  });

  afterAll(async () => {
    await browser?.close();
    await host?.close();
  });

  it('credits each line to the commit that last changed it, across a rename, and links the blame before', async () => {
    const page = await http(`${host.url}/alice/story/blame/branch/main/story.txt`, { headers: bearer(alice.token) });
    expect(page.status).toBe(200);
    const rows = [...page.text.matchAll(/<tr id="L(\d+)">(.*?)<\/tr>/gs)].map((match) => match[2]!);
    expect(rows).toHaveLength(3);
    expect(rows[0]).toContain('Begin the tale');
    expect(rows[0]).toContain('Alice Author');
    expect(rows[1]).toContain('Name the forge');
    expect(rows[1]).toContain('Bob Builder');
    expect(rows[2]).toContain('Begin the tale');
    // Repository text is escaped.
    expect(page.text).not.toContain('<forge>');
    // Before "Name the forge", line 2 was the first commit's, in the file's old name.
    const prior = new RegExp(`href="(/alice/story/blame/commit/${commits['Begin the tale']}/tale\\.txt)#L2"`).exec(page.text);
    expect(prior).not.toBeNull();
    const before = await http(`${host.url}${prior![1]}`, { headers: bearer(alice.token) });
    expect(before.text).toContain('there was a &lt;forge&gt;');
    const binary = await http(`${host.url}/alice/story/blame/branch/main/blob.bin`, { headers: bearer(alice.token) });
    expect(binary.text).toContain('A binary file has no blame.');
    expect((await http(`${host.url}/alice/story/blame/branch/main/story.txt`)).status).toBe(404);
    expect((await http(`${host.url}/alice/story/blame/branch/main/missing.txt`, { headers: bearer(alice.token) })).status).toBe(404);
  });

  it('is reached from the file page, passes axe, and fits a phone', async () => {
    const context = await browser.newContext({ bypassCSP: true, extraHTTPHeaders: { authorization: `Bearer ${alice.token}` } });
    const page = await context.newPage();
    await page.goto(`${host.url}/alice/story/src/branch/main/story.txt`);
    await page.click('a.button:has-text("Blame")');
    await page.waitForURL(/\/blame\/branch\/main\/story\.txt$/);
    expect(await page.textContent('table.blame')).toContain('Name the forge');
    await inspect(page, 'blame', 'blame', 1);
    await context.close();
  });
});
