import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inspect as inspectPage, launchChromium } from '../helpers/browser.js';
import type { RepoHost } from '../../lib/index.js';
import { cookie, http, startHost, tempDir } from '../helpers/host.js';

// Issue 22: SSH keys under account settings and deploy keys under repository settings, in the real browser; a key
// added on the page then clones over SSH with the real OpenSSH client.

const run = promisify(execFile);
const JOURNEY_MS = 120_000;

describe('SSH key pages', () => {
  let host: RepoHost;
  let browser: Browser;
  let page: Page;
  let session: string;
  let work: Awaited<ReturnType<typeof tempDir>>;
  const inspect = (name: string) => inspectPage(page, name, 'ssh', 1);

  beforeAll(async () => {
    host = await startHost({ sshPort: 0 });
    browser = await launchChromium();
    work = await tempDir('repohost-ssh-pages-');
    const context = await browser.newContext({ bypassCSP: true });
    page = await context.newPage();
    await page.goto(`${host.url}/register`);
    await page.fill('input[name=username]', 'pia');
    await page.fill('input[name=email]', 'pia@example.com');
    await page.fill('input[name=password]', 'password123');
    await page.click('main button[type=submit]');
    await page.waitForURL(`${host.url}/`);
    session = (await context.cookies()).find((entry) => entry.name === 'token')!.value;
    await page.goto(`${host.url}/new`);
    await page.fill('input[name=name]', 'tools');
    await page.selectOption('select[name=repo_visibility]', 'private');
    await page.click('main button[type=submit]');
    await page.waitForURL(`${host.url}/pia/tools`);
  }, JOURNEY_MS);

  afterAll(async () => {
    await browser?.close();
    await host?.close();
    await work?.cleanup();
  });

  it('adds an SSH key on the account page, which then pushes, and removes it', async () => {
    const key = join(work.path, 'pia');
    await run('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'pia@desk', '-f', key]);
    const fingerprint = (await run('ssh-keygen', ['-l', '-E', 'sha256', '-f', `${key}.pub`])).stdout.split(' ')[1]!;
    await page.goto(`${host.url}/user/settings`);
    expect(await page.textContent('#keys-heading + p')).toContain('No SSH keys yet');
    await page.fill('textarea[name=key]', 'ssh-rsa not-a-key');
    await page.click('button:has-text("Add SSH key")');
    expect(await page.textContent('[role=alert]')).toContain('OpenSSH public key format');
    await page.fill('textarea[name=key]', await readFile(`${key}.pub`, 'utf8'));
    await page.click('button:has-text("Add SSH key")');
    await page.waitForURL(/done=key-added$/);
    expect(await page.textContent('section[aria-labelledby=keys-heading] ul.keys')).toContain(fingerprint);
    expect(await page.textContent('section[aria-labelledby=keys-heading] ul.keys')).toContain('pia@desk');
    await inspect('account-ssh-keys');
    // The repository page names its SSH clone URL; that URL pushes with the key.
    await page.goto(`${host.url}/pia/tools`);
    const sshUrl = (await page.textContent('#ssh-url'))!;
    expect(sshUrl).toBe(`ssh://git@127.0.0.1:${host.sshPort}/pia/tools.git`);
    const repo = join(work.path, 'tools');
    const env = { PATH: process.env.PATH ?? '', HOME: work.path, GIT_CONFIG_NOSYSTEM: '1', GIT_SSH_COMMAND: `ssh -i ${key} -o IdentitiesOnly=yes -o IdentityAgent=none -o BatchMode=yes -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o LogLevel=ERROR` };
    await run('git', ['init', '-q', '-b', 'main', repo], { env });
    await run('git', ['-c', 'user.name=Pia', '-c', 'user.email=pia@example.com', 'commit', '-q', '--allow-empty', '-m', 'first'], { cwd: repo, env });
    await run('git', ['push', '-q', sshUrl, 'main'], { cwd: repo, env });
    await page.goto(`${host.url}/user/settings`);
    await page.click('button[aria-label="Remove pia@desk"]');
    await page.waitForURL(/done=key-removed$/);
    expect(await page.textContent('#keys-heading + p')).toContain('No SSH keys yet');
  }, JOURNEY_MS);

  it('manages deploy keys on the repository settings, for admins only, with the form token checked', async () => {
    const key = join(work.path, 'deploy');
    await run('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'ci-runner', '-f', key]);
    await page.goto(`${host.url}/pia/tools/settings/keys`);
    expect(await page.textContent('main')).toContain('No deploy keys yet');
    await page.fill('input[name=title]', 'CI runner');
    await page.fill('textarea[name=key]', await readFile(`${key}.pub`, 'utf8'));
    await page.click('button:has-text("Add deploy key")');
    await page.waitForURL(/settings\/keys\?saved=1$/);
    expect(await page.textContent('main ul.keys')).toContain('CI runner');
    expect(await page.textContent('main ul.keys')).toContain('Read');
    await inspect('settings-deploy-keys');
    // Another origin cannot add one with the owner's cookie; a stranger does not see the page at all.
    const forged = await http(`${host.url}/pia/tools/settings/keys`, {
      headers: { ...cookie(session), origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' },
      form: { title: 'evil', key: 'ssh-ed25519 AAAA' },
    });
    expect(forged.status).toBe(403);
    expect((await http(`${host.url}/pia/tools/settings/keys`)).status).toBe(404);
    await page.click('button[aria-label="Remove CI runner"]');
    await page.waitForURL(/settings\/keys\?saved=1$/);
    expect(await page.textContent('main')).toContain('No deploy keys yet');
  }, JOURNEY_MS);
});
