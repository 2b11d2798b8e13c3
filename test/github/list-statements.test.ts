import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openHostCore, type HostCore } from '../../lib/host.js';
import { createApp } from '../../lib/http/app.js';
import type { Fixtures } from '../../lib/index.js';

const TOKEN = 'ghp_liststatements0123456789abcdef';

/** 60 issues by three authors, some labelled, with comments, and 8 pull requests, one merged. */
function fixtures(): Fixtures {
  const authors = ['alice', 'bob', 'carol'];
  const branches: Record<string, { from?: string; commits?: Array<{ message: string; files: Record<string, string> }> }> = {
    main: { commits: [{ message: 'root', files: { 'a.txt': 'a\n' } }] },
  };
  for (let i = 0; i < 8; i++) branches[`topic-${i}`] = { from: 'main', commits: [{ message: `topic ${i}`, files: { [`t${i}.txt`]: `${i}\n` } }] };
  return {
    users: authors.map((username) => ({ username, email: `${username}@example.com`, password: 'password123', ...(username === 'alice' ? { tokens: [{ name: 'bot', token: TOKEN }] } : {}) })),
    repositories: [
      {
        owner: 'alice',
        name: 'app',
        collaborators: { bob: 'write', carol: 'write' },
        branches,
        labels: [{ name: 'bug', color: 'd73a4a' }, { name: 'docs', color: '0075ca' }],
        issues: Array.from({ length: 60 }, (_, i) => ({
          title: `Issue ${i}`,
          author: authors[i % 3],
          labels: i % 4 === 0 ? ['bug'] : i % 5 === 0 ? ['bug', 'docs'] : [],
          comments: i % 10 === 0 ? [{ author: authors[(i + 1) % 3]!, body: 'seen' }] : [],
          closed: i % 7 === 0,
        })),
        pulls: Array.from({ length: 8 }, (_, i) => ({ title: `Pull ${i}`, head: `topic-${i}`, base: 'main', author: authors[i % 3], comments: Array.from({ length: 12 }, (_, c) => ({ author: authors[c % 3]!, body: `comment ${c}` })) })),
      },
      // Repositories of three owners, one private with alice a collaborator, for the lists of repositories.
      ...Array.from({ length: 6 }, (_, i) => ({
        owner: authors[i % 3]!,
        name: `lib-${i}`,
        private: i === 4,
        ...(i === 4 ? { collaborators: { alice: 'read' as const } } : {}),
        issues: [{ title: 'open', author: authors[i % 3]! }],
      })),
    ],
  };
}

/** Issue 18: every list costs a fixed number of statements, whatever its length (no statement per item). */
describe('statements per list', () => {
  let core: HostCore;
  let app: ReturnType<typeof createApp>;

  beforeAll(async () => {
    core = await openHostCore({ bcryptCost: 4 });
    core.setBaseUrl('http://repohost.test');
    await core.admin.load(fixtures());
    app = createApp(core.ctx, () => undefined);
    // 12 CI runs with two reports each (spec §4.1 endpoint 18).
    const repoId = (await core.ctx.repos.findByName('alice', 'app'))!.id;
    for (let run = 0; run < 12; run++) {
      for (const status of ['running', 'success']) {
        const report = { run_id: `run-${run}`, repo_id: String(repoId), commit_hash: '0123456789abcdef0123456789abcdef01234567', branch: 'main', status };
        const response = await app.fetch(new Request('http://repohost.test/api/v1/ci/status', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(report) }));
        expect(response.status).toBe(200);
      }
    }
    // 6 releases, each with an asset uploaded by a different account.
    const authorization = `Bearer ${TOKEN}`;
    for (let release = 0; release < 6; release++) {
      const made = await app.fetch(
        new Request('http://repohost.test/api/v3/repos/alice/app/releases', { method: 'POST', headers: { authorization, 'content-type': 'application/json' }, body: JSON.stringify({ tag_name: `v${release}` }) }),
      );
      expect(made.status).toBe(201);
      const { id } = (await made.json()) as { id: number };
      const upload = await app.fetch(
        new Request(`http://repohost.test/api/uploads/repos/alice/app/releases/${id}/assets?name=notes-${release}.txt`, { method: 'POST', headers: { authorization, 'content-type': 'text/plain' }, body: `release ${release}` }),
      );
      expect(upload.status).toBe(201);
    }
  });

  afterAll(async () => {
    await core?.close();
  });

  beforeAll(async () => {
    // alice stars and watches every repository she sees, and gives each topics.
    const authorization = `Bearer ${TOKEN}`;
    for (const [owner, name] of [['alice', 'app'], ...Array.from({ length: 6 }, (_, i) => [['alice', 'bob', 'carol'][i % 3]!, `lib-${i}`])] as const) {
      for (const path of [`/api/v3/user/starred/${owner}/${name}`, `/api/v3/repos/${owner}/${name}/subscription`]) {
        const response = await app.fetch(new Request(`http://repohost.test${path}`, { method: 'PUT', headers: { authorization, 'content-type': 'application/json' }, body: '{}' }));
        expect(response.status).toBeLessThan(300);
      }
    }
    const topics = await app.fetch(new Request('http://repohost.test/api/v3/repos/alice/app/topics', { method: 'PUT', headers: { authorization, 'content-type': 'application/json' }, body: JSON.stringify({ names: ['forge'] }) }));
    expect(topics.status).toBe(200);
  });

  /** What one GET costs in statements, with the answer's length. */
  const cost = async (path: string, headers: Record<string, string> = {}) => {
    const before = core.ctx.store.statementsRun();
    const response = await app.fetch(new Request(`http://repohost.test${path}`, { headers: { authorization: `Bearer ${TOKEN}`, ...headers } }));
    const body = (await response.json()) as unknown[];
    expect(response.status).toBe(200);
    return { statements: core.ctx.store.statementsRun() - before, length: body.length };
  };

  // Each short page holds every kind of row the long one does: the newest 10 conversations are 8 pull requests and 2
  // issues (with labels and authors of every kind).
  for (const [label, path, shortPage] of [
    ['/api/v3 issues (issues and pull requests together)', '/api/v3/repos/alice/app/issues?state=all&per_page=PAGE', 10],
    ['/api/v3 pull requests', '/api/v3/repos/alice/app/pulls?state=all&per_page=PAGE', 2],
    ['/api/v3 comments of a pull request', '/api/v3/repos/alice/app/issues/68/comments?per_page=PAGE', 2],
    ['/api/v1 issues', '/api/v1/repos/alice/app/issues?status=all&limit=PAGE', 2],
    ['/api/v1 pull requests (each with its mergeability and checks; issue 39)', '/api/v1/repos/alice/app/pulls?status=all&limit=PAGE', 2],
    ['/api/v3 branches (each says whether it is protected)', '/api/v3/repos/alice/app/branches?per_page=PAGE', 2],
    ['/api/v1 CI runs (each with its reports)', '/api/v1/repos/alice/app/ci/runs?limit=PAGE', 2],
    ['/api/v3 releases (each with its assets)', '/api/v3/repos/alice/app/releases?per_page=PAGE', 2],
    ['/api/v3 repositories of the caller', '/api/v3/user/repos?per_page=PAGE', 1],
    ['/api/v3 repositories the caller starred', '/api/v3/user/starred?per_page=PAGE', 2],
    ['/api/v3 repositories the caller watches', '/api/v3/user/subscriptions?per_page=PAGE', 2],
  ] as const) {
    it(`${label}: a long page costs what a short one does`, async () => {
      const short = await cost(path.replace('PAGE', String(shortPage)));
      const long = await cost(path.replace('PAGE', '100'));
      expect(short.length).toBe(shortPage);
      expect(long.length).toBeGreaterThan(shortPage);
      expect(long.statements).toBe(short.statements);
    });
  }

  it('shows each repository of a list with its own owner, counts, topics and the caller’s permissions', async () => {
    const response = await app.fetch(new Request('http://repohost.test/api/v3/user/starred?per_page=100', { headers: { authorization: `Bearer ${TOKEN}` } }));
    const repos = (await response.json()) as Array<{ full_name: string; owner: { login: string }; permissions: object; stargazers_count: number; open_issues_count: number; topics: string[] }>;
    const byName = new Map(repos.map((repo) => [repo.full_name, repo]));
    expect(byName.get('alice/app')).toMatchObject({ owner: { login: 'alice' }, permissions: { admin: true, push: true, pull: true }, stargazers_count: 1, topics: ['forge'] });
    expect(byName.get('bob/lib-1')).toMatchObject({ owner: { login: 'bob' }, permissions: { admin: false, push: false, pull: true }, open_issues_count: 1, topics: [] });
    expect(byName.get('bob/lib-4')).toMatchObject({ private: true, permissions: { admin: false, push: false, pull: true } });
  });

  it('/api/v3 repositories the caller starred, with when (star+json): a long page costs what a short one does', async () => {
    const star = { accept: 'application/vnd.github.star+json' };
    const short = await cost('/api/v3/user/starred?per_page=2', star);
    const long = await cost('/api/v3/user/starred?per_page=100', star);
    expect([short.length, long.length]).toEqual([2, 7]);
    expect(long.statements).toBe(short.statements);
  });
});

/**
 * Issue 19: on PostgreSQL every statement is a round trip, and a write holds the lock every instance's writes wait
 * for through all of its own. Opening an issue reads its account in one statement (the token joined with its user),
 * looks nothing up for lists that are empty (no assignees, no mentions), asks the repository's existence of the
 * statement that takes the number, looks up only the watchers of a thread it opens, and is not read back twice.
 */
describe('statements of opening an issue', () => {
  let core: HostCore;
  let app: ReturnType<typeof createApp>;

  beforeAll(async () => {
    core = await openHostCore({ bcryptCost: 4 });
    core.setBaseUrl('http://repohost.test');
    await core.admin.load({ users: [{ username: 'alice', email: 'alice@example.com', password: 'password123', tokens: [{ name: 'bot', token: TOKEN }] }], repositories: [{ owner: 'alice', name: 'app' }] });
    app = createApp(core.ctx, () => undefined);
  });
  afterAll(async () => {
    await core?.close();
  });

  it('costs 14 statements through /api/v3, 6 of them in the write', async () => {
    const open = async (title: string) => {
      const before = core.ctx.store.statementsRun();
      const response = await app.fetch(
        new Request('http://repohost.test/api/v3/repos/alice/app/issues', { method: 'POST', headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' }, body: JSON.stringify({ title }) }),
      );
      expect(response.status).toBe(201);
      expect(((await response.json()) as { title: string }).title).toBe(title);
      return core.ctx.store.statementsRun() - before;
    };
    await open('first');
    // The account and the repository (2); in the write: the number, the issue, its count, the repository and its hooks
    // for the event, the watchers (6); the issue with its labels, its author, assignees, milestone and reactions (6).
    expect(await open('second')).toBe(14);
  });
});
