import { Octokit } from '@octokit/rest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RepoHost } from '../../lib/index.js';
import { DOCS, failure } from '../helpers/octokit.js';
import { http, startHost, type HttpResult } from '../helpers/host.js';
import { HookReceiver } from '../helpers/receiver.js';

/** GitHub's only timestamp form: UTC, whole seconds. */
const GITHUB_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;
const PUSHED_COMMIT_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:Z|[+-]\d{2}:\d{2})$/;
/** The clock of the host: a time with milliseconds, which GitHub-shaped answers must not show. */
const NOW = '2026-11-24T17:26:36.890Z';

/** Every string of a JSON value that reads as a date and time (`2026-11-24T...`), with where it is. */
function timestamps(value: unknown, path = '$'): Array<[string, string]> {
  if (typeof value === 'string') return /^\d{4}-\d{2}-\d{2}T\d/.test(value) ? [[path, value]] : [];
  if (Array.isArray(value)) return value.flatMap((item, index) => timestamps(item, `${path}[${index}]`));
  if (value && typeof value === 'object') return Object.entries(value).flatMap(([key, item]) => timestamps(item, `${path}.${key}`));
  return [];
}

/** Asserts the value holds timestamps (`fields` among them, by name) and that every one is in GitHub's form. */
function expectGitHubTimes(what: string, value: unknown, fields: readonly string[]): void {
  const found = timestamps(value);
  for (const field of fields) expect(found.some(([path]) => path.endsWith(`.${field}`)), `${what}: ${field} present`).toBe(true);
  for (const [path, time] of found) {
    // A pushed commit's `timestamp` is git's own (`%aI`, with the author's offset), on GitHub as here: whole seconds.
    expect(time, `${what} ${path}`).toMatch(path.endsWith('.timestamp') ? PUSHED_COMMIT_TIME : GITHUB_TIME);
  }
}

/** Octokit logs every failed request; these tests make failures on purpose. */
const quiet = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };

const RATE_HEADERS = ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset', 'x-ratelimit-used', 'x-ratelimit-resource'] as const;

function expectRateHeaders(what: string, headers: Record<string, unknown>): void {
  for (const name of RATE_HEADERS) expect(headers[name], `${what}: ${name}`).toBeDefined();
  expect(Number(headers['x-ratelimit-remaining']), what).toBeGreaterThan(0);
  expect(Number(headers['x-ratelimit-reset']), what).toBeGreaterThan(Date.now() / 1000);
  expect(headers['x-ratelimit-resource'], what).toBe('core');
  expect(headers['x-github-media-type'], what).toBe('github.v3; format=json');
}

describe('GitHub fidelity of /api/v3 (issue 20: what is wrong today)', () => {
  let host: RepoHost;
  let receiver: HookReceiver;
  const tokens: Record<string, string> = {};
  const clients: Record<string, Octokit> = {};
  let anonymous: Octokit;
  let api: string;

  beforeAll(async () => {
    receiver = await HookReceiver.start();
    host = await startHost({ now: () => new Date(NOW), allowLocalNetwork: true });
    api = `${host.url}/api/v3`;
    for (const username of ['alice', 'bob', 'carol', 'dave']) {
      await host.admin.createUser({ username, email: `${username}@example.com`, password: 'password123' });
      tokens[username] = await host.admin.createToken(username);
      clients[username] = new Octokit({ baseUrl: api, auth: tokens[username], log: quiet });
    }
    anonymous = new Octokit({ baseUrl: api, log: quiet });
    await clients.alice!.repos.createForAuthenticatedUser({ name: 'public', auto_init: true });
    await clients.alice!.repos.createForAuthenticatedUser({ name: 'secret', private: true, auto_init: true });
    for (const [username, permission] of [['bob', 'write'], ['carol', 'read']]) {
      const added = await http(`${host.url}/api/v1/repos/alice/public/collaborators/${username}`, { method: 'PUT', headers: { authorization: `Bearer ${tokens.alice}` }, json: { permission } });
      expect(added.status).toBe(200);
    }
  });

  afterAll(async () => {
    await host?.close();
    await receiver?.close();
  });

  const v3 = (path: string, init: Parameters<typeof http>[1] = {}): Promise<HttpResult> => http(`${api}${path}`, init);
  const as = (username: string) => ({ authorization: `token ${tokens[username]}` });

  it('writes every timestamp of its answers and webhook payloads in whole seconds (the spec API keeps milliseconds)', async () => {
    const alice = clients.alice!;
    const repo = { owner: 'alice', repo: 'public' };
    const hook = await alice.repos.createWebhook({ ...repo, config: { url: receiver.url, content_type: 'json' }, events: ['*'] });
    expectGitHubTimes('hook', hook.data, ['created_at', 'updated_at']);

    const issue = await alice.issues.create({ ...repo, title: 'Timed' });
    const comment = await alice.issues.createComment({ ...repo, issue_number: issue.data.number, body: 'now' });
    const closed = await alice.issues.update({ ...repo, issue_number: issue.data.number, state: 'closed' });
    expectGitHubTimes('issue', issue.data, ['created_at', 'updated_at']);
    expectGitHubTimes('comment', comment.data, ['created_at', 'updated_at']);
    expectGitHubTimes('closed issue', closed.data, ['closed_at']);
    expectGitHubTimes('issue list', (await alice.issues.listForRepo({ ...repo, state: 'all' })).data, ['created_at']);
    expectGitHubTimes('comment list', (await alice.issues.listComments({ ...repo, issue_number: issue.data.number })).data, ['created_at']);
    expectGitHubTimes('repository', (await alice.repos.get(repo)).data, ['created_at', 'updated_at']);

    const main = (await alice.git.getRef({ ...repo, ref: 'heads/main' })).data.object.sha;
    await alice.git.createRef({ ...repo, ref: 'refs/heads/topic', sha: main });
    const file = await alice.repos.createOrUpdateFileContents({ ...repo, path: 'topic.txt', branch: 'topic', message: 'Topic', content: Buffer.from('t').toString('base64') });
    expectGitHubTimes('contents commit', file.data.commit, ['date']);
    const pull = await alice.pulls.create({ ...repo, title: 'Topic', head: 'topic', base: 'main' });
    expectGitHubTimes('pull', pull.data, ['created_at', 'updated_at']);
    const status = await alice.repos.createCommitStatus({ ...repo, sha: file.data.commit.sha!, state: 'success', context: 'ci' });
    expectGitHubTimes('status', status.data, ['created_at', 'updated_at']);
    expectGitHubTimes('combined status', (await alice.repos.getCombinedStatusForRef({ ...repo, ref: 'topic' })).data, ['created_at']);
    await alice.pulls.merge({ ...repo, pull_number: pull.data.number });
    expectGitHubTimes('merged pull', (await alice.pulls.get({ ...repo, pull_number: pull.data.number })).data, ['merged_at', 'closed_at']);
    expectGitHubTimes('pull list', (await alice.pulls.list({ ...repo, state: 'all' })).data, ['merged_at']);
    expectGitHubTimes('commit', (await alice.repos.getCommit({ ...repo, ref: 'main' })).data, ['date']);
    const repoId = (await alice.repos.get(repo)).data.id;
    expect((await http(`${host.url}/api/v1/repos/${repoId}/star`, { method: 'POST', headers: { authorization: `Bearer ${tokens.alice}` } })).status).toBe(200);

    // The payloads as delivered, byte for byte, and as listeners in the process hear them.
    await host.idle();
    const kinds = ['issues', 'issue_comment', 'pull_request', 'status', 'star', 'push'];
    for (const kind of kinds) expect(receiver.ofEvent(kind).length, kind).toBeGreaterThan(0);
    for (const delivery of receiver.received) expectGitHubTimes(`${String(delivery.headers['x-github-event'])} payload`, delivery.json, []);
    expectGitHubTimes('issues payload', receiver.ofEvent('issues')[0]!.json, ['created_at', 'updated_at']);
    expectGitHubTimes('issue_comment payload', receiver.ofEvent('issue_comment')[0]!.json, ['created_at']);
    expectGitHubTimes('pull_request payload', receiver.ofEvent('pull_request').at(-1)!.json, ['merged_at', 'closed_at']);
    expectGitHubTimes('status payload', receiver.ofEvent('status')[0]!.json, ['created_at', 'updated_at']);
    expectGitHubTimes('star payload', receiver.ofEvent('star')[0]!.json, ['starred_at']);
    const deliveries = await alice.repos.listWebhookDeliveries({ ...repo, hook_id: hook.data.id });
    expectGitHubTimes('deliveries', deliveries.data, ['delivered_at']);

    // The spec's /api/v1 answers are not GitHub's shapes: they keep the stored milliseconds.
    const spec = await http(`${host.url}/api/v1/repos/alice/public/issues/${issue.data.id}`, { headers: { authorization: `Bearer ${tokens.alice}` } });
    expect(spec.json.created_at).toBe(NOW);
  });

  it('answers GET /repos/:o/:r/collaborators/:username with 204 or 404, to callers with push access', async () => {
    const check = (client: Octokit, username: string, repo = 'public') => client.repos.checkCollaborator({ owner: 'alice', repo, username });
    for (const username of ['alice', 'bob', 'carol']) expect((await check(clients.alice!, username)).status, username).toBe(204);
    for (const username of ['dave', 'nobody']) expect(await failure(check(clients.alice!, username)), username).toEqual({ status: 404, data: { message: 'Not Found', documentation_url: DOCS } });
    // A write collaborator may ask; what PyGithub's has_in_collaborators and octokit.rb's collaborator? read.
    expect((await check(clients.bob!, 'carol')).status).toBe(204);
    expect(await failure(check(clients.bob!, 'dave'))).toMatchObject({ status: 404 });
    // Read access is not enough; a private repository the caller cannot see is not found; anonymous callers sign in.
    expect(await failure(check(clients.carol!, 'bob'))).toEqual({ status: 403, data: { message: 'Must have push access to view repository collaborators.', documentation_url: DOCS } });
    expect(await failure(check(clients.dave!, 'alice'))).toMatchObject({ status: 403 });
    expect(await failure(check(clients.bob!, 'alice', 'secret'))).toEqual({ status: 404, data: { message: 'Not Found', documentation_url: DOCS } });
    expect(await failure(check(anonymous, 'bob'))).toEqual({ status: 401, data: { message: 'Requires authentication', documentation_url: DOCS } });
  });


  it('says OWNER, COLLABORATOR or NONE as author_association alike in lists, single objects and comments', async () => {
    const repo = { owner: 'alice', repo: 'public' };
    const expected: Record<string, string> = { alice: 'OWNER', bob: 'COLLABORATOR', carol: 'COLLABORATOR', dave: 'NONE' };
    const numbers: Record<string, number> = {};
    for (const username of Object.keys(expected)) {
      numbers[username] = (await clients[username]!.issues.create({ ...repo, title: `Association of ${username}` })).data.number;
      await clients[username]!.issues.createComment({ ...repo, issue_number: numbers.alice!, body: `Comment by ${username}` });
    }
    const main = (await clients.alice!.git.getRef({ ...repo, ref: 'heads/main' })).data.object.sha;
    await clients.bob!.git.createRef({ ...repo, ref: 'refs/heads/association', sha: main });
    await clients.alice!.repos.createOrUpdateFileContents({ ...repo, path: 'association.txt', message: 'A change', content: Buffer.from('x\n').toString('base64'), branch: 'association' });
    const pull = (await clients.bob!.pulls.create({ ...repo, title: 'Association of a pull request', head: 'association', base: 'main' })).data;
    expect(pull.author_association).toBe('COLLABORATOR');

    const listed = (await clients.carol!.issues.listForRepo({ ...repo, state: 'all', per_page: 100 })).data;
    for (const [username, association] of Object.entries(expected)) {
      const issue = listed.find((item) => item.number === numbers[username]);
      expect(issue?.author_association, `${username} in the list`).toBe(association);
      expect((await anonymous.issues.get({ ...repo, issue_number: numbers[username]! })).data.author_association, `${username} alone`).toBe(association);
    }
    expect(listed.find((item) => item.number === pull.number)?.author_association, 'the pull request in the issue list').toBe('COLLABORATOR');
    expect((await anonymous.pulls.list({ ...repo, state: 'all' })).data.find((item) => item.number === pull.number)?.author_association).toBe('COLLABORATOR');
    const comments = (await anonymous.issues.listComments({ ...repo, issue_number: numbers.alice! })).data;
    expect(comments.map((comment) => [comment.user?.login, comment.author_association])).toEqual(Object.entries(expected));
  });
  it('refuses a duplicate label, repository or pull request with 422 as GitHub does (409 stays under /api/v1)', async () => {
    const alice = clients.alice!;
    const repo = { owner: 'alice', repo: 'public' };
    await alice.issues.createLabel({ ...repo, name: 'dup', color: 'ff0000' });
    await alice.issues.createLabel({ ...repo, name: 'other', color: '00ff00' });
    const labelExists = { status: 422, data: { message: 'Validation Failed', errors: [{ resource: 'Label', code: 'already_exists', field: 'name' }], documentation_url: DOCS } };
    expect(await failure(alice.issues.createLabel({ ...repo, name: 'DUP', color: '0000ff' }))).toEqual(labelExists);
    expect(await failure(alice.issues.updateLabel({ ...repo, name: 'other', new_name: 'dup' }))).toEqual(labelExists);

    const nameTaken = [{ resource: 'Repository', code: 'custom', field: 'name', message: 'name already exists on this account' }];
    expect(await failure(alice.repos.createForAuthenticatedUser({ name: 'public' }))).toEqual({ status: 422, data: { message: 'Repository creation failed.', errors: nameTaken, documentation_url: DOCS } });
    expect(await failure(alice.repos.update({ owner: 'alice', repo: 'secret', name: 'public' }))).toEqual({ status: 422, data: { message: 'Validation Failed', errors: nameTaken, documentation_url: DOCS } });

    const main = (await alice.git.getRef({ ...repo, ref: 'heads/main' })).data.object.sha;
    await alice.git.createRef({ ...repo, ref: 'refs/heads/twice', sha: main });
    await alice.repos.createOrUpdateFileContents({ ...repo, path: 'twice.txt', branch: 'twice', message: 'Twice', content: Buffer.from('2').toString('base64') });
    await alice.pulls.create({ ...repo, title: 'Once', head: 'twice', base: 'main' });
    expect(await failure(alice.pulls.create({ ...repo, title: 'Again', head: 'alice:twice', base: 'main' }))).toEqual({
      status: 422,
      data: { message: 'Validation Failed', errors: [{ resource: 'PullRequest', code: 'custom', message: 'A pull request already exists for alice:twice.' }], documentation_url: DOCS },
    });

    const spec = await http(`${host.url}/api/v1/repos/alice/public/labels`, { headers: { authorization: `Bearer ${tokens.alice}` }, json: { name: 'dup', color: '#ff0000' } });
    expect(spec.status).toBe(409);
  });

  it('makes the labels an issue is given that the repository does not have yet (ededed), as GitHub does; /api/v1 refuses them', async () => {
    const alice = clients.alice!;
    const repo = { owner: 'alice', repo: 'public' };
    const issue = (await alice.issues.create({ ...repo, title: 'New labels', labels: ['made-on-create'] })).data;
    expect(issue.labels.map((label) => (typeof label === 'string' ? label : label.name))).toEqual(['made-on-create']);
    expect((await alice.issues.getLabel({ ...repo, name: 'made-on-create' })).data).toMatchObject({ name: 'made-on-create', color: 'ededed', description: null });
    // Added, set and patched alike; a name that differs only in case finds the label made for the one before it.
    const added = (await alice.issues.addLabels({ ...repo, issue_number: issue.number, labels: ['Made-On-Add', 'made-on-add', 'MADE-ON-CREATE'] })).data;
    expect(added.map((label) => label.name).sort()).toEqual(['Made-On-Add', 'made-on-create']);
    expect((await alice.issues.setLabels({ ...repo, issue_number: issue.number, labels: ['made-on-set'] })).data.map((label) => label.name)).toEqual(['made-on-set']);
    expect((await alice.issues.update({ ...repo, issue_number: issue.number, labels: ['made-on-patch'] })).data.labels.map((label) => (typeof label === 'string' ? label : label.name))).toEqual(['made-on-patch']);
    // Labels are a list (the spec API's comma-separated string is not GitHub's).
    expect(await failure(alice.request('POST /repos/{owner}/{repo}/issues', { ...repo, title: 'Stringly', labels: 'bug' as unknown as string[] }))).toEqual({
      status: 422,
      data: { message: 'Invalid request.\n\nFor \'properties/labels\', "bug" is not an array.', documentation_url: DOCS },
    });
    // A name no label could have is refused before the issue is written.
    const before = (await alice.issues.listForRepo({ ...repo, state: 'all', per_page: 1 })).data[0]!.number;
    expect((await failure(alice.issues.create({ ...repo, title: 'Refused', labels: ['x'.repeat(51)] }))).status).toBe(422);
    expect((await alice.issues.listForRepo({ ...repo, state: 'all', per_page: 1 })).data[0]!.number).toBe(before);
    const spec = await http(`${host.url}/api/v1/repos/alice/public/issues/${issue.id}/labels`, { headers: { authorization: `Bearer ${tokens.alice}` }, json: { labels: ['never-made'] } });
    expect(spec.status).toBe(400);
    expect(spec.json.message).toBe("label 'never-made' does not exist");
    expect((await failure(alice.issues.getLabel({ ...repo, name: 'never-made' }))).status).toBe(404);
  });

  it('takes the fields of a new repository that ask for what repohost does, and refuses the others by name', async () => {
    const alice = clients.alice!;
    const refusal = async (body: Record<string, unknown>) => (await failure(alice.request('POST /user/repos', { name: 'refused', ...body }))).data.errors?.map((error: { field: string }) => error.field);
    expect(await refusal({ gitignore_template: 'Node', license_template: 'mit' })).toEqual(['gitignore_template', 'license_template']);
    expect(await refusal({ has_issues: false })).toEqual(['has_issues']);
    expect(await refusal({ homepage: 'https://example.com' })).toEqual(['homepage']);
    expect(await refusal({ visibility: 'internal' })).toEqual(['visibility']);
    expect(await refusal({ visibility: 'private', private: false })).toEqual(['visibility']);
    expect((await failure(alice.repos.get({ owner: 'alice', repo: 'refused' }))).status).toBe(404);
    const made = await alice.request('POST /user/repos', { name: 'settled', visibility: 'private', has_issues: true, has_wiki: false, homepage: '', is_template: false, delete_branch_on_merge: false });
    expect(made.status).toBe(201);
    expect(made.data).toMatchObject({ private: true, visibility: 'private', has_issues: true });
  });

  it('refuses the list parameters it does not honour, naming them, and takes those that ask for its own order', async () => {
    const alice = clients.alice!;
    const USER_REPOS: string = 'GET /user/repos';
    for (const params of [{ visibility: 'private' }, { sort: 'created' }, { direction: 'desc' }, { since: '2020-01-01T00:00:00Z' }, { affiliation: 'collaborator' }, { type: 'member' }]) {
      expect((await failure(alice.request(USER_REPOS, params))).status, JSON.stringify(params)).toBe(422);
    }
    expect((await alice.request('GET /user/repos', { sort: 'full_name', direction: 'asc', type: 'owner', visibility: 'all' })).status).toBe(200);
    expect((await failure(alice.request('GET /users/{username}/repos', { username: 'alice', type: 'member' }))).data.message).toBe('repohost does not support type=member on /users/{username}/repos');
    // Review comments take all of GitHub's (test/github/reviews.test.ts checks the orders); values they cannot have are refused.
    for (const params of [{ since: '2020-01-01T00:00:00Z' }, { sort: 'updated' }, { sort: 'created', direction: 'desc' }, { sort: 'created', direction: 'asc' }]) {
      expect((await alice.request('GET /repos/alice/public/pulls/comments', params)).status, JSON.stringify(params)).toBe(200);
    }
    expect((await failure(alice.request('GET /repos/alice/public/pulls/comments', { sort: 'length' }))).status).toBe(422);
  });

  it('names the field of a 422 as GitHub\'s request does: a label\'s description is not an issue\'s body', async () => {
    const alice = clients.alice!;
    const repo = { owner: 'alice', repo: 'public' };
    const fieldOf = async (request: Promise<unknown>) => (await failure(request)).data.errors?.[0]?.field;
    expect(await fieldOf(alice.request('POST /repos/{owner}/{repo}/labels', { ...repo, name: 'described', color: 'ffffff', description: 5 as unknown as string }))).toBe('description');
    // A check run's `status` is named the same way (test/github/checks.test.ts: only apps write check runs).
    expect(await fieldOf(alice.request('POST /repos/{owner}/{repo}/issues', { ...repo, title: 'x', body: 5 as unknown as string }))).toBe('body');
  });

  it('holds GitHub\'s bounds: a body of 65,536 characters, a label description of 100', async () => {
    const alice = clients.alice!;
    const repo = { owner: 'alice', repo: 'public' };
    const issue = (await alice.issues.create({ ...repo, title: 'Long', body: 'b'.repeat(65_536) })).data;
    expect(issue.body).toHaveLength(65_536);
    expect((await alice.issues.createComment({ ...repo, issue_number: issue.number, body: 'c'.repeat(65_536) })).status).toBe(201);
    expect((await failure(alice.issues.createComment({ ...repo, issue_number: issue.number, body: 'c'.repeat(65_537) }))).status).toBe(422);
    expect((await alice.issues.createLabel({ ...repo, name: 'described-100', description: 'd'.repeat(100) })).status).toBe(201);
    expect((await failure(alice.issues.createLabel({ ...repo, name: 'described-101', description: 'd'.repeat(101) }))).data.errors).toEqual([
      { resource: 'Label', code: 'custom', field: 'description', message: 'description is too long (maximum is 100 characters)' },
    ]);
  });

  it('shows an account as GitHub\'s full user: what it owns, when it came, and no private address', async () => {
    const owned = (await clients.alice!.repos.listForAuthenticatedUser({ per_page: 100 })).data;
    const counts = { public: owned.filter((repo) => !repo.private).length, private: owned.filter((repo) => repo.private).length };
    expect(counts.private).toBeGreaterThan(0);
    const shown = (await anonymous.users.getByUsername({ username: 'alice' })).data;
    expect(shown).toMatchObject({ login: 'alice', name: null, email: null, company: null, blog: '', location: null, bio: null, hireable: null, public_repos: counts.public, public_gists: 0, followers: 0, following: 0 });
    expect(shown.created_at).toBe(NOW.replace(/\.\d+Z$/, 'Z'));
    expect(shown).not.toHaveProperty('owned_private_repos');
    const self = (await clients.alice!.users.getAuthenticated()).data;
    expect(self).toMatchObject({ login: 'alice', public_repos: counts.public, owned_private_repos: counts.private, total_private_repos: counts.private, two_factor_authentication: false });
  });

  it('answers the commits of an empty repository 409, an unknown commit 422 and unrelated histories 404, in GitHub\'s words', async () => {
    const alice = clients.alice!;
    await alice.repos.createForAuthenticatedUser({ name: 'empty-history' });
    expect(await failure(alice.repos.listCommits({ owner: 'alice', repo: 'empty-history' }))).toEqual({ status: 409, data: { message: 'Git Repository is empty.', documentation_url: DOCS } });
    const repo = { owner: 'alice', repo: 'public' };
    expect(await failure(alice.repos.getCommit({ ...repo, ref: 'nope' }))).toEqual({ status: 422, data: { message: 'No commit found for SHA: nope', documentation_url: DOCS } });
    expect((await failure(alice.repos.listCommits({ ...repo, sha: 'nope' }))).status).toBe(422);
    const tree = (await alice.git.createTree({ ...repo, tree: [{ path: 'orphan.txt', mode: '100644', type: 'blob', content: 'o' }, { path: 'deep/er.txt', mode: '100644', type: 'blob', content: 'd' }] })).data.sha;
    // `recursive` with any value recurses, `0` and `false` too (GitHub's documented rule).
    for (const recursive of ['0', 'false', '1']) expect((await alice.request(`GET /repos/alice/public/git/trees/${tree}?recursive=${recursive}`)).data.tree.map((entry: { path: string }) => entry.path), recursive).toContain('deep/er.txt');
    expect((await alice.git.getTree({ ...repo, tree_sha: tree })).data.tree.map((entry) => entry.path)).toEqual(['deep', 'orphan.txt']);
    const made = (await alice.git.createCommit({ ...repo, message: 'Orphan', tree, parents: [] })).data;
    const orphan = made.sha;
    expect(made).toMatchObject({ node_id: expect.any(String), verification: { verified: false, reason: 'unsigned', signature: null, payload: null } });
    expect((await alice.git.getCommit({ ...repo, commit_sha: orphan })).data.verification).toMatchObject({ verified: false, reason: 'unsigned' });
    // A signature would be dropped: refused. A blob's raw media type gives its bytes.
    expect(await failure(alice.git.createCommit({ ...repo, message: 'Signed', tree, parents: [], signature: '-----BEGIN PGP SIGNATURE-----\n-----END PGP SIGNATURE-----' }))).toEqual({
      status: 422,
      data: { message: 'repohost does not write signed commits: leave out signature', documentation_url: DOCS },
    });
    const blob = (await alice.git.getTree({ ...repo, tree_sha: tree })).data.tree.find((entry) => entry.path === 'orphan.txt')!.sha!;
    expect((await http(`${api}/repos/alice/public/git/blobs/${blob}`, { headers: { authorization: `Bearer ${tokens.alice}`, accept: 'application/vnd.github.raw+json' } })).text).toBe('o');
    await alice.git.createRef({ ...repo, ref: 'refs/heads/orphan', sha: orphan });
    expect(await failure(alice.repos.compareCommitsWithBasehead({ ...repo, basehead: 'main...orphan' }))).toEqual({ status: 404, data: { message: 'No common ancestor between main and orphan.', documentation_url: DOCS } });
  });

  it('gives tags their archives and node id, a branch its links and protection summary, and search hits a score', async () => {
    const alice = clients.alice!;
    const repo = { owner: 'alice', repo: 'public' };
    const main = (await alice.git.getRef({ ...repo, ref: 'heads/main' })).data.object.sha;
    await alice.git.createRef({ ...repo, ref: 'refs/tags/v1.0', sha: main });
    const tag = (await alice.repos.listTags(repo)).data.find((entry) => entry.name === 'v1.0')!;
    expect(tag).toMatchObject({ zipball_url: `${api}/repos/alice/public/zipball/v1.0`, tarball_url: `${api}/repos/alice/public/tarball/v1.0`, node_id: Buffer.from('03:Refrefs/tags/v1.0').toString('base64') });
    // As GitHub's, the archive answers 302 to its download.
    const archive = await http(tag.zipball_url, { headers: { authorization: `Bearer ${tokens.alice}` } });
    expect(archive.status).toBe(302);
    expect((await http(String(archive.headers.location), { headers: { authorization: `Bearer ${tokens.alice}` } })).status).toBe(200);
    const branch = (await alice.repos.getBranch({ ...repo, branch: 'main' })).data;
    expect(branch._links).toEqual({ self: `${api}/repos/alice/public/branches/main`, html: `${host.url}/alice/public/src/branch/main` });
    expect((await http(branch._links.html, { headers: { accept: 'text/html' } })).status).toBe(200);
    expect(branch.protection).toEqual({ enabled: false, required_status_checks: { enforcement_level: 'off', contexts: [], checks: [] } });
    // A changed file names its blob and where to read it, and those URLs answer.
    const written = (await alice.repos.createOrUpdateFileContents({ ...repo, path: 'notes/read me.txt', message: 'Notes', content: Buffer.from('noted\n').toString('base64') })).data;
    const [changed] = (await alice.repos.getCommit({ ...repo, ref: written.commit.sha! })).data.files!;
    expect(changed!.sha).toBe(written.content!.sha);
    expect((await http(changed!.raw_url)).text).toBe('noted\n');
    expect((await http(changed!.blob_url, { headers: { accept: 'text/html' } })).status).toBe(200);
    expect((await http(changed!.contents_url, { headers: { authorization: `Bearer ${tokens.alice}` } })).json.sha).toBe(written.content!.sha);
    await alice.issues.create({ ...repo, title: 'Searchable' });
    const hits = (await alice.search.issuesAndPullRequests({ q: 'repo:alice/public' })).data.items;
    expect(hits.length).toBeGreaterThan(0);
    for (const hit of hits) expect(hit.score).toBe(1);
  });

  it('never gives one id to two issues (a pull request\'s included) nor to two comments, a deleted one\'s included', async () => {
    const alice = clients.alice!;
    const repo = { owner: 'alice', repo: 'ids' };
    await alice.repos.createForAuthenticatedUser({ name: 'ids', auto_init: true });
    const issue = (await alice.issues.create({ ...repo, title: 'An issue' })).data;
    const main = (await alice.git.getRef({ ...repo, ref: 'heads/main' })).data.object.sha;
    await alice.git.createRef({ ...repo, ref: 'refs/heads/change', sha: main });
    await alice.repos.createOrUpdateFileContents({ ...repo, path: 'c.txt', branch: 'change', message: 'Change', content: Buffer.from('c').toString('base64') });
    const pull = (await alice.pulls.create({ ...repo, title: 'A change', head: 'change', base: 'main' })).data;
    const asIssue = (await alice.issues.get({ ...repo, issue_number: pull.number })).data;
    expect(asIssue.id).not.toBe(issue.id);
    expect((await alice.issues.listForRepo({ ...repo, state: 'all' })).data.map((item) => item.id).sort()).toEqual([issue.id, asIssue.id].sort());
    const kept = (await alice.issues.createComment({ ...repo, issue_number: issue.number, body: 'kept' })).data;
    const dropped = (await alice.issues.createComment({ ...repo, issue_number: pull.number, body: 'dropped' })).data;
    await alice.issues.deleteComment({ ...repo, comment_id: dropped.id });
    const next = (await alice.issues.createComment({ ...repo, issue_number: issue.number, body: 'next' })).data;
    expect(new Set([kept.id, dropped.id, next.id]).size).toBe(3);
  });

  it('refuses a pull request that brings no commits, and a draft, in GitHub\'s words', async () => {
    const alice = clients.alice!;
    const repo = { owner: 'alice', repo: 'public' };
    const main = (await alice.git.getRef({ ...repo, ref: 'heads/main' })).data.object.sha;
    await alice.git.createRef({ ...repo, ref: 'refs/heads/same-as-main', sha: main });
    expect(await failure(alice.pulls.create({ ...repo, title: 'Nothing', head: 'same-as-main', base: 'main' }))).toEqual({
      status: 422,
      data: { message: 'Validation Failed', errors: [{ resource: 'PullRequest', code: 'custom', message: 'No commits between main and same-as-main' }], documentation_url: DOCS },
    });
    await alice.repos.createOrUpdateFileContents({ ...repo, path: 'drafted.txt', branch: 'same-as-main', message: 'Something', content: Buffer.from('d').toString('base64') });
    const draft = await failure(alice.pulls.create({ ...repo, title: 'Draft', head: 'same-as-main', base: 'main', draft: true }));
    expect(draft).toEqual({ status: 422, data: { message: 'repohost does not support draft pull requests', documentation_url: DOCS } });
    const ready = (await alice.pulls.create({ ...repo, title: 'Ready', head: 'same-as-main', base: 'main', draft: false })).data;
    expect(ready.draft).toBe(false);
    // A merge of a head that moved since it was read: GitHub's 409, in its words.
    expect(await failure(alice.pulls.merge({ ...repo, pull_number: ready.number, sha: 'f'.repeat(40) }))).toEqual({ status: 409, data: { message: 'Head branch was modified. Review and try the merge again.', documentation_url: DOCS } });
  });

  it('answers a status on an unknown commit, or with a description over 140 characters, 422 as GitHub does', async () => {
    const alice = clients.alice!;
    const repo = { owner: 'alice', repo: 'public' };
    const unknown = 'f'.repeat(40);
    expect(await failure(alice.repos.createCommitStatus({ ...repo, sha: unknown, state: 'success' }))).toEqual({ status: 422, data: { message: `No commit found for SHA: ${unknown}`, documentation_url: DOCS } });
    const main = (await alice.git.getRef({ ...repo, ref: 'heads/main' })).data.object.sha;
    expect((await failure(alice.repos.createCommitStatus({ ...repo, sha: main, state: 'success', description: 'x'.repeat(141) }))).data.errors).toEqual([
      { resource: 'Status', code: 'custom', field: 'description', message: 'description is too long (maximum is 140 characters)' },
    ]);
    expect((await alice.repos.createCommitStatus({ ...repo, sha: main, state: 'success', description: 'x'.repeat(140) })).status).toBe(201);
    // The spec API keeps its own answer for a commit it does not have.
    expect((await http(`${host.url}/api/v1/repos/alice/public/statuses/${unknown}`, { headers: { authorization: `Bearer ${tokens.alice}` }, json: { state: 'success' } })).status).toBe(404);
  });

  it('takes an issue’s labels as a bare JSON array, and JSON sent with a form content type, as GitHub does', async () => {
    const alice = clients.alice!;
    const repo = { owner: 'alice', repo: 'public' };
    for (const name of ['bug', 'enhancement', 'docs']) await alice.issues.createLabel({ ...repo, name, color: 'ededed' }).catch(() => undefined);
    const issue = await alice.issues.create({ ...repo, title: 'Labelled' });
    const labels = `/repos/alice/public/issues/${issue.data.number}/labels`;
    const json = { ...as('alice'), 'content-type': 'application/json' };
    const names = (result: HttpResult) => result.json.map((label: { name: string }) => label.name).sort();

    // octokit.rb and PyGithub send the list itself.
    const added = await v3(labels, { method: 'POST', headers: json, body: '["bug"]' });
    expect([added.status, names(added)]).toEqual([200, ['bug']]);
    const set = await v3(labels, { method: 'PUT', headers: json, body: JSON.stringify(['enhancement', { name: 'docs' }]) });
    expect([set.status, names(set)]).toEqual([200, ['docs', 'enhancement']]);
    // Octokit sends { labels }.
    expect((await alice.issues.addLabels({ ...repo, issue_number: issue.data.number, labels: ['bug'] })).data.map((label) => label.name).sort()).toEqual(['bug', 'docs', 'enhancement']);
    expect((await v3(labels, { method: 'POST', headers: json, body: '[5]' })).status).toBe(422);

    // `curl -d '{...}'`: JSON with application/x-www-form-urlencoded, parsed as JSON.
    const form = { ...as('alice'), 'content-type': 'application/x-www-form-urlencoded' };
    const created = await v3('/repos/alice/public/issues', { method: 'POST', headers: form, body: JSON.stringify({ title: 'From curl', labels: ['bug'] }) });
    expect(created.status).toBe(201);
    expect([created.json.title, created.json.labels.map((label: { name: string }) => label.name)]).toEqual(['From curl', ['bug']]);
    const label = await v3('/repos/alice/public/labels', { method: 'POST', headers: form, body: '{"name":"curl","color":"123456"}' });
    expect([label.status, label.json.name, label.json.color]).toEqual([201, 'curl', '123456']);
    const list = await v3(labels, { method: 'POST', headers: form, body: '["curl"]' });
    expect(names(list)).toContain('curl');
    // Without a content type too; a form-encoded body is not JSON, for GitHub either.
    expect((await v3('/repos/alice/public/issues', { method: 'POST', headers: as('alice'), body: '{"title":"No type"}' })).status).toBe(201);
    const encoded = await v3('/repos/alice/public/issues', { method: 'POST', headers: form, body: 'title=encoded' });
    expect([encoded.status, encoded.json]).toEqual([400, { message: 'Problems parsing JSON', documentation_url: DOCS }]);
    // A bare array is an issue's labels only.
    expect((await v3('/repos/alice/public/issues', { method: 'POST', headers: json, body: '["x"]' })).json).toEqual({ message: 'Problems parsing JSON', documentation_url: DOCS });
  });

  it('sends the rate-limit headers on every answer, failures included, and serves GET / and GET /rate_limit', async () => {
    const answers: Array<[string, HttpResult]> = [
      ['401', await v3('/user')],
      ['401 bad token', await v3('/', { headers: { authorization: 'token not-a-real-token' } })],
      ['403', await v3('/repos/alice/public/collaborators/bob', { headers: as('carol') })],
      ['404 hidden', await v3('/repos/alice/secret')],
      ['404 not implemented', await v3('/repos/alice/public/actions/runs', { headers: as('alice') })],
      ['400', await v3('/repos/alice/public/issues', { method: 'POST', headers: { ...as('alice'), 'content-type': 'application/json' }, body: '{nope' })],
      ['422', await v3('/repos/alice/public/issues', { method: 'POST', headers: { ...as('alice'), 'content-type': 'application/json' }, body: '{"title":""}' })],
      ['204', await v3('/repos/alice/public/collaborators/bob', { headers: as('alice') })],
      ['200', await v3('/repos/alice/public')],
    ];
    const etag = String(answers.at(-1)![1].headers.etag);
    answers.push(['304', await v3('/repos/alice/public', { headers: { 'if-none-match': etag } })]);
    expect(answers.map(([what, result]) => [what, result.status])).toEqual([
      ['401', 401],
      ['401 bad token', 401],
      ['403', 403],
      ['404 hidden', 404],
      ['404 not implemented', 404],
      ['400', 400],
      ['422', 422],
      ['204', 204],
      ['200', 200],
      ['304', 304],
    ]);
    for (const [what, result] of answers) expectRateHeaders(what, result.headers);

    // The root gh asks to check a token: URL templates pointing at this host; a wrong token is refused there.
    for (const path of ['', '/']) {
      const root = await v3(path, { headers: as('alice') });
      expect(root.status, path).toBe(200);
      expect(root.json).toMatchObject({ current_user_url: `${api}/user`, repository_url: `${api}/repos/{owner}/{repo}`, rate_limit_url: `${api}/rate_limit`, user_url: `${api}/users/{user}` });
      expectRateHeaders(`GET ${path}`, root.headers);
    }
    expect((await v3('/')).status).toBe(200);
    expect(answers[1]![1].json).toEqual({ message: 'Bad credentials', documentation_url: DOCS });
    const followed = await v3(((await v3('/')).json.repository_url as string).slice(api.length).replace('{owner}', 'alice').replace('{repo}', 'public'));
    expect(followed.json.full_name).toBe('alice/public');

    const limits = await clients.alice!.rateLimit.get();
    expect(limits.status).toBe(200);
    const { core, search, graphql } = limits.data.resources;
    for (const resource of [core, search, graphql]) expect(Object.keys(resource!).sort()).toEqual(['limit', 'remaining', 'reset', 'used']);
    expect(limits.data.rate).toEqual(core);
    expect(core.remaining).toBeGreaterThan(0);
    expect(core.reset).toBeGreaterThan(Date.now() / 1000);
    expectRateHeaders('rate_limit', limits.headers);
    expect((await anonymous.rateLimit.get()).status).toBe(200);
    expect((await v3('/rate_limit', { headers: { authorization: 'Bearer nope' } })).status).toBe(401);
  });
});

// Comments with times apart: a clock of its own, moved between them.
describe('comment lists through /api/v3', () => {
  let host: RepoHost;
  let alice: Octokit;
  let clock = Date.parse('2026-11-24T12:00:00Z');

  beforeAll(async () => {
    host = await startHost({ now: () => new Date(clock) });
    await host.admin.createUser({ username: 'alice', email: 'alice@example.com', password: 'password123' });
    alice = new Octokit({ baseUrl: `${host.url}/api/v3`, auth: await host.admin.createToken('alice'), log: quiet });
  });

  afterAll(async () => {
    await host?.close();
  });

  it('lists the comments of an issue since a time, and every comment of the repository in the order asked', async () => {
    const repo = { owner: 'alice', repo: 'comments' };
    await alice.repos.createForAuthenticatedUser({ name: 'comments', auto_init: true });
    const issue = (await alice.issues.create({ ...repo, title: 'Talked about' })).data;
    const first = (await alice.issues.createComment({ ...repo, issue_number: issue.number, body: 'first' })).data;
    const main = (await alice.git.getRef({ ...repo, ref: 'heads/main' })).data.object.sha;
    await alice.git.createRef({ ...repo, ref: 'refs/heads/topic', sha: main });
    await alice.repos.createOrUpdateFileContents({ ...repo, path: 't.txt', branch: 'topic', message: 'Topic', content: Buffer.from('t').toString('base64') });
    const pull = (await alice.pulls.create({ ...repo, title: 'Topic', head: 'topic', base: 'main' })).data;
    clock += 3_600_000;
    const second = (await alice.issues.createComment({ ...repo, issue_number: pull.number, body: 'second' })).data;
    const third = (await alice.issues.createComment({ ...repo, issue_number: issue.number, body: 'third' })).data;

    const since = await alice.issues.listComments({ ...repo, issue_number: issue.number, since: second.created_at });
    expect(since.data.map((comment) => comment.body)).toEqual(['third']);
    expect((await alice.issues.listComments({ ...repo, issue_number: issue.number, since: '2099-01-01T00:00:00Z' })).data).toEqual([]);
    expect((await failure(alice.issues.listComments({ ...repo, issue_number: issue.number, since: 'yesterday' }))).status).toBe(422);

    const all = await alice.issues.listCommentsForRepo(repo);
    expect(all.data.map((comment) => [comment.body, comment.issue_url.split('/').pop()])).toEqual([
      ['first', String(issue.number)],
      ['second', String(pull.number)],
      ['third', String(issue.number)],
    ]);
    expect((await alice.issues.listCommentsForRepo({ ...repo, sort: 'created', direction: 'desc' })).data.map((comment) => comment.id)).toEqual([third.id, second.id, first.id]);
    expect((await alice.issues.listCommentsForRepo({ ...repo, since: second.created_at })).data.map((comment) => comment.id)).toEqual([second.id, third.id]);
    const paged = await alice.issues.listCommentsForRepo({ ...repo, per_page: 2 });
    expect(paged.data.map((comment) => comment.id)).toEqual([first.id, second.id]);
    expect(paged.headers.link).toContain('rel="next"');
    expect((await failure(alice.issues.listCommentsForRepo({ ...repo, sort: 'author' as 'created' }))).status).toBe(422);
    await alice.repos.createForAuthenticatedUser({ name: 'secret', private: true });
    expect((await failure(new Octokit({ baseUrl: `${host.url}/api/v3`, log: quiet }).issues.listCommentsForRepo({ owner: 'alice', repo: 'secret' }))).status).toBe(404);
  });
});
