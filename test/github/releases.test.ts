import { createHash, randomBytes } from 'node:crypto';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { Octokit } from '@octokit/rest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RepoHost } from '../../lib/index.js';
import { startHost } from '../helpers/host.js';
import { failure } from '../helpers/octokit.js';

// Issue 20: releases, their assets, source archives and annotated tags, driven by the real @octokit/rest as
// semantic-release's GitHub plugin and `gh release` drive GitHub.
describe('releases through the GitHub-compatible API', () => {
  let host: RepoHost;
  let alice: Octokit;
  let bob: Octokit;
  let anonymous: Octokit;
  const owner = 'alice';
  const repo = 'rel';
  const MAX_ASSET = 4096;

  beforeAll(async () => {
    host = await startHost({ maxReleaseAssetBytes: MAX_ASSET });
    await host.admin.createUser({ username: owner, email: 'alice@example.com', password: 'password123' });
    await host.admin.createUser({ username: 'bob', email: 'bob@example.com', password: 'password123' });
    alice = new Octokit({ baseUrl: `${host.url}/api/v3`, auth: await host.admin.createToken(owner, 'releases') });
    bob = new Octokit({ baseUrl: `${host.url}/api/v3`, auth: await host.admin.createToken('bob', 'releases') });
    anonymous = new Octokit({ baseUrl: `${host.url}/api/v3` });
    await alice.repos.createForAuthenticatedUser({ name: repo, auto_init: true });
  });

  afterAll(async () => {
    await host?.close();
  });

  const assetFolder = async () => {
    const dir = join(host.options.dataDir, 'repositories', owner, `${repo}.git`, 'repohost-assets');
    return (await readdir(dir).catch(() => [] as string[])).sort();
  };

  it('publishes a release, creating its tag at the target, and refuses a second release of that tag', async () => {
    const main = (await alice.git.getRef({ owner, repo, ref: 'heads/main' })).data.object.sha;
    const created = await alice.repos.createRelease({ owner, repo, tag_name: 'v1.0.0', name: 'First', body: 'Notes', target_commitish: 'main' });
    expect(created.status).toBe(201);
    expect(created.data).toMatchObject({
      tag_name: 'v1.0.0',
      target_commitish: 'main',
      name: 'First',
      body: 'Notes',
      draft: false,
      prerelease: false,
      assets: [],
      author: { login: owner },
      url: `${host.url}/api/v3/repos/${owner}/${repo}/releases/${created.data.id}`,
      assets_url: `${host.url}/api/v3/repos/${owner}/${repo}/releases/${created.data.id}/assets`,
      upload_url: `${host.url}/api/uploads/repos/${owner}/${repo}/releases/${created.data.id}/assets{?name,label}`,
      html_url: `${host.url}/${owner}/${repo}/releases/tag/v1.0.0`,
      tarball_url: `${host.url}/api/v3/repos/${owner}/${repo}/tarball/v1.0.0`,
      zipball_url: `${host.url}/api/v3/repos/${owner}/${repo}/zipball/v1.0.0`,
    });
    expect(created.data.published_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(created.data.node_id).toBe(Buffer.from(`07:Release${created.data.id}`).toString('base64'));
    expect((await alice.git.getRef({ owner, repo, ref: 'tags/v1.0.0' })).data.object.sha).toBe(main);

    const again = await failure(alice.repos.createRelease({ owner, repo, tag_name: 'v1.0.0' }));
    expect(again.status).toBe(422);
    expect(again.data).toMatchObject({ message: 'Validation Failed', errors: [{ resource: 'Release', code: 'already_exists', field: 'tag_name' }] });
    const missing = await failure(alice.repos.createRelease({ owner, repo } as never));
    expect(missing).toMatchObject({ status: 422, data: { errors: [{ resource: 'Release', field: 'tag_name', code: 'missing_field' }] } });
    const badTarget = await failure(alice.repos.createRelease({ owner, repo, tag_name: 'v0.9', target_commitish: 'no-such-branch' }));
    expect(badTarget.status).toBe(422);
    const notes = await failure(alice.repos.createRelease({ owner, repo, tag_name: 'v0.8', generate_release_notes: 'yes' as unknown as boolean }));
    expect(notes).toMatchObject({ status: 422, data: { errors: [{ field: 'generate_release_notes', code: 'invalid' }] } });
    // Neither refusal left a tag behind.
    expect((await failure(alice.git.getRef({ owner, repo, ref: 'tags/v0.9' }))).status).toBe(404);
    expect((await failure(alice.git.getRef({ owner, repo, ref: 'tags/v0.8' }))).status).toBe(404);
  });

  it('keeps drafts to those with write access, without a tag until published', async () => {
    const draft = await alice.repos.createRelease({ owner, repo, tag_name: 'v2.0.0', draft: true });
    expect(draft.data).toMatchObject({ draft: true, published_at: null, tarball_url: null, zipball_url: null });
    expect((await failure(alice.git.getRef({ owner, repo, ref: 'tags/v2.0.0' }))).status).toBe(404);
    expect((await alice.repos.listReleases({ owner, repo })).data.map((release) => release.tag_name)).toEqual(['v2.0.0', 'v1.0.0']);
    expect((await anonymous.repos.listReleases({ owner, repo })).data.map((release) => release.tag_name)).toEqual(['v1.0.0']);
    expect((await failure(bob.repos.getRelease({ owner, repo, release_id: draft.data.id }))).status).toBe(404);
    expect((await failure(alice.repos.getReleaseByTag({ owner, repo, tag: 'v2.0.0' }))).status).toBe(404);
    expect((await failure(bob.repos.createRelease({ owner, repo, tag_name: 'v9' }))).status).toBe(403);
    expect((await failure(anonymous.repos.createRelease({ owner, repo, tag_name: 'v9' }))).status).toBe(401);
  });

  it('takes the latest release to be the newest full one, and publishes a draft (its tag made then)', async () => {
    await alice.repos.createRelease({ owner, repo, tag_name: 'v1.1.0-rc.1', prerelease: true });
    expect((await anonymous.repos.getLatestRelease({ owner, repo })).data.tag_name).toBe('v1.0.0');
    const draft = (await alice.repos.getReleaseByTag({ owner, repo, tag: 'v1.1.0-rc.1' })).data;
    expect(draft.prerelease).toBe(true);

    const [v2] = (await alice.repos.listReleases({ owner, repo })).data.filter((release) => release.tag_name === 'v2.0.0');
    const published = await alice.repos.updateRelease({ owner, repo, release_id: v2!.id, draft: false, name: 'Second', body: null as unknown as string });
    expect(published.data).toMatchObject({ draft: false, name: 'Second', body: null, tag_name: 'v2.0.0' });
    expect(published.data.published_at).not.toBeNull();
    expect((await alice.git.getRef({ owner, repo, ref: 'tags/v2.0.0' })).status).toBe(200);
    expect((await anonymous.repos.getLatestRelease({ owner, repo })).data.tag_name).toBe('v2.0.0');
    expect((await anonymous.repos.getReleaseByTag({ owner, repo, tag: 'v2.0.0' })).data.id).toBe(v2!.id);
    const clash = await failure(alice.repos.updateRelease({ owner, repo, release_id: v2!.id, tag_name: 'v1.0.0' }));
    expect(clash.data.errors).toEqual([{ resource: 'Release', code: 'already_exists', field: 'tag_name' }]);
  });

  it('makes a release latest as make_latest says: a published one by default, never a backport asked not to be', async () => {
    const marks = 'marks';
    await alice.repos.createForAuthenticatedUser({ name: marks, auto_init: true });
    const latest = async () => (await anonymous.repos.getLatestRelease({ owner, repo: marks })).data.tag_name;
    const release = async (tag_name: string, options: { make_latest?: 'true' | 'false' | 'legacy'; draft?: boolean; prerelease?: boolean } = {}) =>
      (await alice.repos.createRelease({ owner, repo: marks, tag_name, ...options })).data;
    const v1 = await release('v1.0.0');
    expect(await latest()).toBe('v1.0.0');
    // A backport published after the newest release: the latest stays.
    const backport = await release('v0.9.1', { make_latest: 'false' });
    expect(await latest()).toBe('v1.0.0');
    await alice.repos.updateRelease({ owner, repo: marks, release_id: backport.id, make_latest: 'true' });
    expect(await latest()).toBe('v0.9.1');
    await alice.repos.updateRelease({ owner, repo: marks, release_id: backport.id, make_latest: 'false' });
    expect(await latest()).toBe('v1.0.0');
    // semantic-release's way: a draft, its assets, then published; a release made meanwhile does not stay latest.
    const draft = await release('v2.0.0', { draft: true });
    await release('v1.1.0');
    expect(await latest()).toBe('v1.1.0');
    await alice.repos.updateRelease({ owner, repo: marks, release_id: draft.id, draft: false });
    expect(await latest()).toBe('v2.0.0');
    // An edit of a published release leaves the latest as it is; `legacy` makes it the newest full release again.
    await alice.repos.updateRelease({ owner, repo: marks, release_id: v1.id, name: 'First' });
    expect(await latest()).toBe('v2.0.0');
    await alice.repos.updateRelease({ owner, repo: marks, release_id: v1.id, make_latest: 'true' });
    expect(await latest()).toBe('v1.0.0');
    // `legacy`: the newest full release by creation (v2.0.0 was made, as a draft, before v1.1.0).
    await alice.repos.updateRelease({ owner, repo: marks, release_id: v1.id, make_latest: 'legacy' });
    expect(await latest()).toBe('v1.1.0');
    // The latest made a pre-release: the newest full release.
    await alice.repos.updateRelease({ owner, repo: marks, release_id: draft.id, make_latest: 'true' });
    expect(await latest()).toBe('v2.0.0');
    await alice.repos.updateRelease({ owner, repo: marks, release_id: draft.id, prerelease: true });
    expect(await latest()).toBe('v1.1.0');
    for (const options of [{ make_latest: 'true' as const, prerelease: true }, { make_latest: 'true' as const, draft: true }, { make_latest: 'yes' as 'true' }]) {
      expect((await failure(release('v9.0.0', options))).status).toBe(422);
    }
  });

  it('generates release notes as GitHub words them: the pull requests merged since the last release, first contributions, the changelog', async () => {
    const notes = 'notes';
    await alice.repos.createForAuthenticatedUser({ name: notes, auto_init: true });
    await alice.repos.addCollaborator({ owner, repo: notes, username: 'bob', permission: 'push' });
    await alice.repos.createRelease({ owner, repo: notes, tag_name: 'v1.0.0' });
    const merge = async (author: Octokit, branch: string, title: string) => {
      const main = (await author.git.getRef({ owner, repo: notes, ref: 'heads/main' })).data.object.sha;
      await author.git.createRef({ owner, repo: notes, ref: `refs/heads/${branch}`, sha: main });
      await author.repos.createOrUpdateFileContents({ owner, repo: notes, path: `${branch}.txt`, branch, message: title, content: Buffer.from(branch).toString('base64') });
      const pull = (await author.pulls.create({ owner, repo: notes, title, head: branch, base: 'main' })).data;
      await alice.pulls.merge({ owner, repo: notes, pull_number: pull.number });
      return `${host.url}/${owner}/${notes}/pull/${pull.number}`;
    };
    const first = await merge(bob, 'b1', 'Add b1');
    const second = await merge(alice, 'a1', 'Add a1');
    const generated = await alice.repos.generateReleaseNotes({ owner, repo: notes, tag_name: 'v1.1.0' });
    expect(generated.data).toEqual({
      name: 'v1.1.0',
      body: [
        "## What's Changed",
        `* Add b1 by @bob in ${first}`,
        `* Add a1 by @alice in ${second}`,
        '',
        '## New Contributors',
        `* @bob made their first contribution in ${first}`,
        `* @alice made their first contribution in ${second}`,
        '',
        `**Full Changelog**: ${host.url}/${owner}/${notes}/compare/v1.0.0...v1.1.0`,
      ].join('\n'),
    });
    // Created with notes: the body given comes first.
    const created = await alice.repos.createRelease({ owner, repo: notes, tag_name: 'v1.1.0', body: 'Intro', generate_release_notes: true });
    expect(created.data.body).toBe(`Intro\n\n${generated.data.body}`);
    const third = await merge(alice, 'a2', 'Add a2');
    expect((await alice.repos.generateReleaseNotes({ owner, repo: notes, tag_name: 'v1.2.0' })).data.body).toBe(
      `## What's Changed\n* Add a2 by @alice in ${third}\n\n**Full Changelog**: ${host.url}/${owner}/${notes}/compare/v1.1.0...v1.2.0`,
    );
    expect((await alice.repos.generateReleaseNotes({ owner, repo: notes, tag_name: 'v1.2.0', previous_tag_name: 'v1.0.0' })).data.body).toContain('* Add b1 by @bob');
    expect((await failure(alice.repos.generateReleaseNotes({ owner, repo: notes, tag_name: 'v1.2.0', previous_tag_name: 'v0.0.1' }))).status).toBe(422);
    expect((await failure(alice.repos.generateReleaseNotes({ owner, repo: notes, tag_name: 'v1.2.0', configuration_file_path: '.github/release.yml' }))).status).toBe(422);
    expect((await failure(bob.repos.updateRelease({ owner, repo: notes, release_id: created.data.id, generate_release_notes: true } as never))).status).toBe(422);
    expect((await failure(anonymous.repos.generateReleaseNotes({ owner, repo: notes, tag_name: 'v1.2.0' }))).status).toBe(401);
  });

  it('uploads assets at upload_url (streamed to disk, checked, digested), serves them and counts downloads', async () => {
    const release = (await alice.repos.getReleaseByTag({ owner, repo, tag: 'v1.0.0' })).data;
    const bytes = Buffer.from(Array.from({ length: 3000 }, (_, i) => i % 251));
    // What semantic-release does: POST to the release's upload_url with the file as the body.
    const uploaded = await alice.request({
      method: 'POST',
      url: release.upload_url,
      name: 'app-linux.bin',
      label: 'Linux build',
      data: bytes,
      headers: { 'content-type': 'application/x-executable' },
    });
    expect(uploaded.status).toBe(201);
    expect(uploaded.data).toMatchObject({
      name: 'app-linux.bin',
      label: 'Linux build',
      state: 'uploaded',
      content_type: 'application/x-executable',
      size: bytes.length,
      digest: `sha256:${createHash('sha256').update(bytes).digest('hex')}`,
      download_count: 0,
      uploader: { login: owner },
      browser_download_url: `${host.url}/${owner}/${repo}/releases/download/v1.0.0/app-linux.bin`,
    });
    // Octokit's own method, with GitHub Enterprise Server's upload origin.
    const notes = await alice.repos.uploadReleaseAsset({ owner, repo, release_id: release.id, name: 'notes.txt', data: 'plain notes' as unknown as string, baseUrl: `${host.url}/api/uploads`, headers: { 'content-type': 'text/plain' } });
    expect(notes.data).toMatchObject({ name: 'notes.txt', size: 11, content_type: 'text/plain' });

    const duplicate = await failure(alice.request({ method: 'POST', url: release.upload_url, name: 'notes.txt', data: 'again', headers: { 'content-type': 'text/plain' } }));
    expect(duplicate).toMatchObject({ status: 422, data: { errors: [{ resource: 'ReleaseAsset', code: 'already_exists', field: 'name' }] } });
    const tooLarge = await failure(alice.request({ method: 'POST', url: release.upload_url, name: 'big.bin', data: Buffer.alloc(MAX_ASSET + 1), headers: { 'content-type': 'application/octet-stream' } }));
    expect(tooLarge.status).toBe(413);
    expect((await failure(bob.request({ method: 'POST', url: release.upload_url, name: 'evil.bin', data: 'x', headers: { 'content-type': 'text/plain' } }))).status).toBe(403);
    // The refused uploads left no file: two assets, two files.
    expect(await assetFolder()).toHaveLength(2);

    const viaBrowser = await fetch(uploaded.data.browser_download_url);
    expect(viaBrowser.status).toBe(200);
    expect(viaBrowser.headers.get('content-type')).toBe('application/octet-stream');
    expect(Buffer.from(await viaBrowser.arrayBuffer()).equals(bytes)).toBe(true);
    const viaApi = await anonymous.request('GET /repos/{owner}/{repo}/releases/assets/{asset_id}', { owner, repo, asset_id: uploaded.data.id, headers: { accept: 'application/octet-stream' } });
    expect(Buffer.from(viaApi.data as unknown as ArrayBuffer).equals(bytes)).toBe(true);
    const listed = await anonymous.repos.listReleaseAssets({ owner, repo, release_id: release.id });
    expect(listed.data.map((asset) => [asset.name, asset.download_count])).toEqual([
      ['app-linux.bin', 2],
      ['notes.txt', 0],
    ]);
    expect((await anonymous.repos.getRelease({ owner, repo, release_id: release.id })).data.assets).toHaveLength(2);

    const renamed = await alice.repos.updateReleaseAsset({ owner, repo, asset_id: notes.data.id, name: 'NOTES.md', label: 'Notes' });
    expect(renamed.data).toMatchObject({ name: 'NOTES.md', label: 'Notes', browser_download_url: `${host.url}/${owner}/${repo}/releases/download/v1.0.0/NOTES.md` });
    expect((await alice.repos.deleteReleaseAsset({ owner, repo, asset_id: renamed.data.id })).status).toBe(204);
    expect((await fetch(renamed.data.browser_download_url)).status).toBe(404);
    expect(await assetFolder()).toHaveLength(1);
  });

  it('sends release events in GitHub\'s order: created, published, released or prereleased; edited with its changes', async () => {
    const heard: string[] = [];
    const stop = host.events.on('release', (payload) => {
      heard.push(`${payload.release.tag_name} ${payload.action}${payload.action === 'edited' ? ` ${Object.keys(payload.changes).join(',')}` : ''}`);
    });
    try {
      const draft = (await alice.repos.createRelease({ owner, repo, tag_name: 'v4.0.0', draft: true })).data;
      await alice.repos.updateRelease({ owner, repo, release_id: draft.id, draft: false, prerelease: true, name: 'Four' });
      await alice.repos.updateRelease({ owner, repo, release_id: draft.id, prerelease: false });
      await alice.repos.createRelease({ owner, repo, tag_name: 'v4.0.1' });
      await host.idle();
      expect(heard).toEqual(['v4.0.0 created', 'v4.0.0 edited name', 'v4.0.0 published', 'v4.0.0 prereleased', 'v4.0.0 released', 'v4.0.1 created', 'v4.0.1 published', 'v4.0.1 released']);
    } finally {
      stop();
    }
  });

  it('shows releases on pages at their html_url, notes rendered without raw HTML, drafts to writers only', async () => {
    const release = (await alice.repos.createRelease({ owner, repo, tag_name: 'v5.0.0', name: 'Five', body: '**Bold** <script>alert(1)</script>' })).data;
    const draft = (await alice.repos.createRelease({ owner, repo, tag_name: 'v6.0.0', name: 'Six (draft)', draft: true })).data;
    const page = await fetch(release.html_url);
    expect(page.status).toBe(200);
    const text = await page.text();
    expect(text).toContain('<strong>Bold</strong>');
    expect(text).not.toContain('<script>alert(1)</script>');
    const list = await (await fetch(`${host.url}/${owner}/${repo}/releases`)).text();
    expect(list).toContain('Five');
    expect(list).not.toContain('Six (draft)');
    expect((await fetch(draft.html_url)).status).toBe(404);
    const token = await host.admin.createToken(owner, 'pages');
    expect(await (await fetch(draft.html_url, { headers: { authorization: `token ${token}` } })).text()).toContain('Six (draft)');
  });

  it('serves the tarball and zipball of a ref as GitHub names them', async () => {
    const tag = (await alice.git.getRef({ owner, repo, ref: 'tags/v1.0.0' })).data.object.sha;
    const prefix = `${owner}-${repo}-${tag.slice(0, 7)}/`;
    const tarball = await anonymous.repos.downloadTarballArchive({ owner, repo, ref: 'v1.0.0' });
    const tar = gunzipSync(Buffer.from(tarball.data as ArrayBuffer));
    expect(tar.includes(Buffer.from(`${prefix}README.md`))).toBe(true);
    const zipball = await anonymous.repos.downloadZipballArchive({ owner, repo, ref: 'main' });
    const zip = Buffer.from(zipball.data as ArrayBuffer);
    expect(zip.subarray(0, 4).equals(Buffer.from('PK\x03\x04', 'latin1'))).toBe(true);
    expect(zip.includes(Buffer.from(`${prefix}README.md`))).toBe(true);
    expect((await failure(anonymous.repos.downloadTarballArchive({ owner, repo, ref: 'no-such-ref' }))).status).toBe(404);
  });

  it('makes as many archives at once as git transfers may run, answering 503 with Retry-After beyond', async () => {
    // Incompressible content, more than socket buffers hold: the first archive cannot be sent whole while unread.
    const noise = randomBytes(12 * 1024 * 1024).toString('base64');
    const small = await startHost({
      maxGitTransfers: 1,
      fixtures: { users: [{ username: 'dora', email: 'dora@example.com', password: 'password123' }], repositories: [{ owner: 'dora', name: 'big', branches: { main: { commits: [{ message: 'big', files: { 'noise.txt': noise } }] } } }] },
    });
    try {
      const { request } = await import('undici');
      // As GitHub's, the API answers 302 to the download (the archive of the commit the ref names).
      const download = async (kind: 'tarball' | 'zipball') => {
        const redirect = await request(`${small.url}/api/v3/repos/dora/big/${kind}/main`);
        await redirect.body.text();
        expect(redirect.statusCode).toBe(302);
        expect(redirect.headers.location).toMatch(new RegExp(`^${small.url}/dora/big/archive/[0-9a-f]{40}\\.${kind === 'tarball' ? 'tar\\.gz' : 'zip'}$`));
        return await request(String(redirect.headers.location));
      };
      // The first archive is answered but not read: its git process holds the only place.
      const first = await download('tarball');
      expect(first.statusCode).toBe(200);
      const second = await download('zipball');
      expect(second.statusCode).toBe(503);
      expect(second.headers['retry-after']).toBe('5');
      await second.body.text();
      await first.body.arrayBuffer();
      const third = await download('zipball');
      expect(third.statusCode).toBe(200);
      await third.body.arrayBuffer();
    } finally {
      await small.close();
    }
  });

  it('writes annotated tags (POST /git/tags) that a ref can then point at', async () => {
    const main = (await alice.git.getRef({ owner, repo, ref: 'heads/main' })).data.object.sha;
    const tagger = { name: 'Release Bot', email: 'bot@example.com', date: '2026-11-25T10:00:00Z' };
    const tag = await alice.git.createTag({ owner, repo, tag: 'v3.0.0', message: 'Version 3\n', object: main, type: 'commit', tagger });
    expect(tag.status).toBe(201);
    expect(tag.data).toMatchObject({ tag: 'v3.0.0', message: 'Version 3\n', object: { sha: main, type: 'commit' }, tagger, verification: { verified: false, reason: 'unsigned' } });
    await alice.git.createRef({ owner, repo, ref: 'refs/tags/v3.0.0', sha: tag.data.sha });
    expect((await alice.git.getRef({ owner, repo, ref: 'tags/v3.0.0' })).data.object).toMatchObject({ sha: tag.data.sha, type: 'tag' });
    expect((await alice.git.getTag({ owner, repo, tag_sha: tag.data.sha })).data.tag).toBe('v3.0.0');
    const wrongType = await failure(alice.git.createTag({ owner, repo, tag: 'v3.0.1', message: 'x', object: main, type: 'tree', tagger }));
    expect(wrongType.status).toBe(422);
  });

  it('keeps assets in harness snapshots, and deletes a release with its assets but not its tag', async () => {
    const release = (await alice.repos.getReleaseByTag({ owner, repo, tag: 'v1.0.0' })).data;
    const snapshot = await host.snapshot();
    expect((await alice.repos.deleteRelease({ owner, repo, release_id: release.id })).status).toBe(204);
    expect(await assetFolder()).toEqual([]);
    expect((await failure(anonymous.repos.getRelease({ owner, repo, release_id: release.id }))).status).toBe(404);
    expect((await alice.git.getRef({ owner, repo, ref: 'tags/v1.0.0' })).status).toBe(200);

    await host.restore(snapshot);
    const back = await fetch(release.assets[0]!.browser_download_url);
    expect(back.status).toBe(200);
    expect((await back.arrayBuffer()).byteLength).toBe(3000);
  });

  it('hides the releases of a private repository from those who cannot see it', async () => {
    await alice.repos.createForAuthenticatedUser({ name: 'secret', private: true, auto_init: true });
    const release = await alice.repos.createRelease({ owner, repo: 'secret', tag_name: 'v1' });
    const asset = await alice.request({ method: 'POST', url: release.data.upload_url, name: 'a.txt', data: 'secret bytes', headers: { 'content-type': 'text/plain' } });
    expect((await failure(anonymous.repos.listReleases({ owner, repo: 'secret' }))).status).toBe(404);
    expect((await failure(bob.repos.getRelease({ owner, repo: 'secret', release_id: release.data.id }))).status).toBe(404);
    expect((await failure(bob.repos.downloadTarballArchive({ owner, repo: 'secret', ref: 'v1' }))).status).toBe(404);
    expect((await fetch(asset.data.browser_download_url)).status).toBe(404);
    const withToken = await fetch(asset.data.browser_download_url, { headers: { authorization: `token ${await host.admin.createToken(owner, 'download')}` } });
    expect(await withToken.text()).toBe('secret bytes');
  });

  it('dates a published release by its commit, as GitHub documents, and a draft by when it was saved', async () => {
    const main = (await alice.git.getRef({ owner, repo, ref: 'heads/main' })).data.object.sha;
    const { tree } = (await alice.git.getCommit({ owner, repo, commit_sha: main })).data;
    const dated = async (date: string) =>
      (await alice.git.createCommit({ owner, repo, message: `Dated ${date}`, tree: tree.sha, parents: [main], author: { name: 'A', email: 'a@example.com', date: '2001-01-01T00:00:00Z' }, committer: { name: 'C', email: 'c@example.com', date } })).data.sha;
    const published = await alice.repos.createRelease({ owner, repo, tag_name: 'dated-1', target_commitish: await dated('2020-01-02T03:04:05Z') });
    // The committer's date, not the author's; published now.
    expect(published.data.created_at).toBe('2020-01-02T03:04:05Z');
    expect(Date.parse(published.data.published_at!)).toBeGreaterThan(Date.parse('2025-01-01'));
    // A tag pushed before: its commit's date too.
    await alice.git.createRef({ owner, repo, ref: 'refs/tags/dated-2', sha: await dated('2021-05-06T07:08:09Z') });
    expect((await alice.repos.createRelease({ owner, repo, tag_name: 'dated-2' })).data.created_at).toBe('2021-05-06T07:08:09Z');
    // A draft is dated when saved, and by its commit once published.
    const draft = await alice.repos.createRelease({ owner, repo, tag_name: 'dated-3', target_commitish: await dated('2019-09-09T09:09:09Z'), draft: true });
    expect(Date.parse(draft.data.created_at)).toBeGreaterThan(Date.parse('2025-01-01'));
    expect((await alice.repos.updateRelease({ owner, repo, release_id: draft.data.id, draft: false })).data.created_at).toBe('2019-09-09T09:09:09Z');
    for (const release of [published.data.id, draft.data.id]) await alice.repos.deleteRelease({ owner, repo, release_id: release });
    await alice.repos.deleteRelease({ owner, repo, release_id: (await alice.repos.getReleaseByTag({ owner, repo, tag: 'dated-2' })).data.id });
  });

  it('keeps the release assets of a repository within its quota, as LFS objects are (issue 38)', async () => {
    const small = await startHost({ maxReleaseAssetBytes: 4096, maxReleaseBytesPerRepository: 6000 });
    try {
      await small.admin.createUser({ username: owner, email: 'alice@example.com', password: 'password123' });
      const client = new Octokit({ baseUrl: `${small.url}/api/v3`, auth: await small.admin.createToken(owner, 'quota') });
      await client.repos.createForAuthenticatedUser({ name: repo, auto_init: true });
      const release = (await client.repos.createRelease({ owner, repo, tag_name: 'v1' })).data;
      const upload = (name: string, size: number) => client.request({ method: 'POST', url: release.upload_url, name, data: Buffer.alloc(size), headers: { 'content-type': 'application/octet-stream' } });
      const first = await upload('first.bin', 4000);
      expect(first.status).toBe(201);
      const over = await failure(upload('second.bin', 3000));
      expect(over.status).toBe(413);
      expect(over.data.message).toBe("a release asset (a repository's assets may take 6000 bytes in all) may be at most 2000 bytes");
      expect((await upload('fits.bin', 2000)).status).toBe(201);
      await client.repos.deleteReleaseAsset({ owner, repo, asset_id: (first.data as { id: number }).id });
      expect((await upload('second.bin', 3000)).status).toBe(201);
      // Side by side, two uploads that each fit what is left but not together: one is kept, the other refused.
      const both = await Promise.allSettled([upload('a.bin', 800), upload('b.bin', 800)]);
      expect(both.map((outcome) => (outcome.status === 'fulfilled' ? outcome.value.status : (outcome.reason as { status: number }).status)).sort()).toEqual([201, 413]);
    } finally {
      await small.close();
    }
  });
});
