import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FixtureResult, RepoHost } from '../../lib/index.js';
import { bearer, http, startHost } from '../helpers/host.js';

// Issue 40: the complete fixture example docs/fixtures.md explains loads as written, and holds what it says.
const EXAMPLE = new URL('../../examples/fixtures/complete.json', import.meta.url);
const MARIA = 'ghp_complete_example_maria_0123456789';
const DEVON = 'ghp_complete_example_devon_0123456789';

describe('examples/fixtures/complete.json', () => {
  let host: RepoHost;
  let loaded: FixtureResult;

  beforeAll(async () => {
    host = await startHost();
    loaded = await host.admin.load(JSON.parse(await readFile(EXAMPLE, 'utf8')));
  });

  afterAll(async () => {
    await host?.close();
  });

  const get = async (path: string, token = MARIA) => {
    const answer = await http(`${host.url}/api/v3${path}`, { headers: bearer(token) });
    expect(answer.status, path).toBe(200);
    return answer.json;
  };

  it('makes the users with their tokens, the site admin among them', async () => {
    expect((await get('/user', DEVON)).login).toBe('devon');
    expect((await get('/users/maria')).site_admin).toBe(true);
    expect((await get('/users/devon')).site_admin).toBe(false);
  });

  it('makes the branches, histories, files and people of the commits', async () => {
    expect((await get('/repos/maria/service/branches')).map((branch: { name: string }) => branch.name).sort()).toEqual(['feature/greeting', 'main', 'orphan-docs']);
    const history = await get('/repos/maria/service/commits?sha=main');
    expect(history.map((commit: { commit: { message: string } }) => commit.commit.message)).toEqual(['Explain how to run it', 'Initial commit']);
    expect(history[0].commit.author).toMatchObject({ name: 'Devon Contributor', email: 'devon@example.com' });
    expect(history[0].commit.committer).toMatchObject({ name: 'Release Robot', email: 'robot@example.com' });
    expect(history[1].commit.author.date).toBe('2024-03-01T09:00:00Z');
    const top = await get('/repos/maria/service/contents/');
    expect(top.map((entry: { name: string }) => entry.name).sort()).toEqual(['README.md', 'bin', 'src']);
    const tree = await get(`/repos/maria/service/git/trees/${history[0].sha}?recursive=1`);
    expect(tree.tree.find((entry: { path: string }) => entry.path === 'bin/start').mode).toBe('100755');
    expect((await get('/repos/maria/service/commits?sha=orphan-docs')).length).toBe(1);
  });

  it('makes collaborators, labels, issues with comments, a closed issue and a pull request', async () => {
    expect((await get('/repos/maria/service/collaborators/devon/permission')).permission).toBe('write');
    expect((await get('/repos/maria/service/collaborators/riley/permission')).permission).toBe('read');
    expect((await get('/repos/maria/service/labels')).map((label: { name: string }) => label.name).sort()).toEqual(['bug', 'enhancement']);
    const first = await get('/repos/maria/service/issues/1');
    expect(first).toMatchObject({ title: 'The greeting is too curt', state: 'open', comments: 2, user: { login: 'riley' } });
    expect(first.labels.map((label: { name: string }) => label.name)).toEqual(['bug']);
    expect((await get('/repos/maria/service/issues/2')).state).toBe('closed');
    const pull = await get('/repos/maria/service/pulls/3');
    expect(pull).toMatchObject({ title: 'Greet politely', head: { ref: 'feature/greeting' }, base: { ref: 'main' }, user: { login: 'devon' } });
  });

  it('makes the hook, keeps the private repository private, and installs the app', async () => {
    const [hook] = await get('/repos/maria/service/hooks');
    expect(hook).toMatchObject({ active: true, events: ['push', 'pull_request', 'issues'], config: { url: 'https://hooks.example.com/repohost', content_type: 'json' } });
    expect((await http(`${host.url}/api/v3/repos/devon/notes`)).status).toBe(404);
    expect((await get('/repos/devon/notes', DEVON)).private).toBe(true);
    const [app] = loaded.apps;
    expect(app).toMatchObject({ slug: 'release-bot' });
    expect(Object.keys(app!.installations).sort()).toEqual(['devon', 'maria']);
    expect(app!.privateKey).toContain('PRIVATE KEY');
  });
});
