import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FixtureError, type RepoHost } from '../../lib/index.js';
import { sh } from '../git/fixtures.js';
import { bearer, http, startHost, tempDir } from '../helpers/host.js';
import { BOT_TOKEN, sampleFixtures } from './sample-fixtures.js';
import { SUBSCRIBABLE_EVENTS } from '../../lib/events/types.js';

/** Fixtures loaded into real hosts: the same commit ids on every run, everything reachable through the API and git. */
describe('fixtures', () => {
  let first: RepoHost;
  let second: RepoHost;
  let dir: { path: string; cleanup: () => Promise<void> };

  beforeAll(async () => {
    dir = await tempDir();
    [first, second] = await Promise.all([startHost({ fixtures: sampleFixtures() }), startHost()]);
  });
  afterAll(async () => {
    await Promise.all([first?.close(), second?.close()]);
    await dir?.cleanup();
  });

  it('give the same commit ids in two hosts (createRepoHost and admin.load)', async () => {
    const loaded = await second.admin.load(sampleFixtures());
    expect(loaded.users).toEqual(['alice', 'bob']);
    const project = loaded.repositories[0]!;
    expect(Object.keys(project.branches)).toEqual(['main', 'feature', 'empty']);
    expect(project.branches.empty).toBe(project.branches.main);
    for (const host of [first, second]) {
      const clone = `${dir.path}/${host.port}`;
      await sh(dir.path, ['clone', '-q', `${host.url}/alice/project.git`, clone]);
      const refs = await sh(clone, ['for-each-ref', '--format=%(refname) %(objectname)', 'refs/remotes/origin/']);
      expect(refs).toBe(
        [`refs/remotes/origin/HEAD ${project.branches.main}`, `refs/remotes/origin/empty ${project.branches.empty}`, `refs/remotes/origin/feature ${project.branches.feature}`, `refs/remotes/origin/main ${project.branches.main}`].join('\n'),
      );
    }
    // What the commits hold: authors, default and given dates, modes, bytes, deletions.
    const clone = `${dir.path}/${first.port}`;
    expect(await sh(clone, ['log', '--format=%an <%ae> %aI %s', 'origin/feature'])).toBe(
      [
        'Alice Liddell <alice@example.com> 2024-02-01T10:00:00+00:00 Feature work',
        'bob <bob@example.com> 2024-01-01T00:01:00+00:00 Second',
        'Alice Liddell <alice@example.com> 2024-01-01T00:00:00+00:00 Initial commit',
      ].join('\n'),
    );
    expect(await sh(clone, ['ls-tree', '-r', '--format=%(objectmode) %(path)', 'origin/feature'])).toBe(
      ['100644 README.md', '100755 bin/run', '100644 src/feature.js', '100644 src/index.js'].join('\n'),
    );
    expect(await sh(clone, ['show', 'origin/main:docs/a.md'])).toBe('bytes\0');
  });

  it('create users with fixed tokens, labels, issues, pull requests and comments through the services', async () => {
    const me = await http(`${first.url}/api/v1/me`, { headers: bearer(BOT_TOKEN) });
    expect(me.json).toMatchObject({ username: 'alice', full_name: 'Alice Liddell' });
    const issues = await http(`${first.url}/api/v1/repos/alice/project/issues?status=all&direction=asc`);
    expect(issues.json.map((issue: { number: number; title: string; status: string; author: string }) => [issue.number, issue.title, issue.status, issue.author])).toEqual([
      [1, 'First issue', 'open', 'alice'],
      [2, 'Closed issue', 'closed', 'bob'],
    ]);
    expect(issues.json[0].labels.map((label: { name: string }) => label.name)).toEqual(['bug']);
    const pulls = await http(`${first.url}/api/v1/repos/alice/project/pulls`);
    expect(pulls.json).toHaveLength(1);
    expect(pulls.json[0]).toMatchObject({ title: 'Add feature', description: 'Please merge', status: 'open' });
    const comments = await http(`${first.url}/api/v1/repos/alice/project/pulls/${pulls.json[0].id}/comments`);
    expect(comments.json.map((comment: { author: string; text: string }) => [comment.author, comment.text])).toEqual([['bob', 'LGTM']]);
    // The private repository: its default branch, visible to its collaborator only.
    const secret = await http(`${first.url}/api/v1/repos/bob/secret`, { headers: bearer(BOT_TOKEN) });
    expect(secret.json).toMatchObject({ private: true, default_branch: 'develop' });
    expect((await http(`${first.url}/api/v1/repos/bob/secret`)).status).toBe(404);
  });

  it('are checked whole before anything is written, with errors naming the bad paths', async () => {
    const host = second;
    const usersBefore = (await host.admin.listUsers()).length;
    const bad = {
      users: [{ username: 'carol', email: 'carol@example.com', password: 'password123' }, { username: 'dave', email: 'not-an-address', password: 'x' }],
      repositories: [
        { owner: 'carol', name: 'ok', branches: { main: { commits: [{ message: 'ok' }] } } },
        {
          owner: 'nobody',
          name: 'bad name!',
          branches: {
            main: { commits: [{ message: 'a', files: { 'x/../y': 'no', 'gone.txt': null } }, { message: '', date: 'yesterday' }] },
            topic: { from: 'later' },
            'bad..branch': { commits: [] },
          },
        },
        { owner: 'carol', name: 'more', labels: [{ name: 'bug', color: 'red' }], issues: [{ title: 'x', labels: ['missing'] }], pulls: [{ title: 'p', head: 'main', base: 'main' }], extra: 1 },
        { owner: 'alice', name: 'project' },
      ],
    };
    let error: unknown;
    try {
      await host.admin.load(bad as never);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(FixtureError);
    const problems = (error as FixtureError).problems;
    for (const expected of [
      'fixtures.users[1].email: email must be a valid address',
      'fixtures.users[1].password: password must be at least 6 characters',
      'fixtures.repositories[1].owner: must be a user of the fixtures or of the host, not "nobody"',
      'fixtures.repositories[2].extra: unknown field',
      'fixtures.repositories[2].labels[0].color: color must be 6 hexadecimal digits',
      'fixtures.repositories[2].issues[0].labels[0]: "missing" is not a label of the repository',
      'fixtures.repositories[2].pulls[0].head: "main" is not a branch of the repository',
      'fixtures.repositories[3].name: alice/project already exists on the host',
    ]) {
      expect(problems.some((problem) => problem.startsWith(expected)), `${expected}\nin:\n${problems.join('\n')}`).toBe(true);
    }
    // The owner is unknown, so repository 1 is not checked further; checked alone, its branches are.
    const branchProblems = await host.admin
      .load({ repositories: [{ ...bad.repositories[1], owner: 'alice', name: 'bad' }] } as never)
      .then(() => [], (caught: FixtureError) => caught.problems);
    for (const expected of [
      'fixtures.repositories[0].branches.main.commits[0].files["x/../y"]: not a valid path in a tree',
      'fixtures.repositories[0].branches.main.commits[0].files["gone.txt"]: cannot delete a file the branch does not have',
      'fixtures.repositories[0].branches.main.commits[1].message: is required',
      'fixtures.repositories[0].branches.main.commits[1].date: must be an ISO 8601 date',
      'fixtures.repositories[0].branches.topic.from: "later" is not a branch listed before this one',
      'fixtures.repositories[0].branches.bad..branch: not a valid branch name',
    ]) {
      expect(branchProblems.some((problem: string) => problem.startsWith(expected)), `${expected}\nin:\n${branchProblems.join('\n')}`).toBe(true);
    }
    expect((error as Error).message).toMatch(/^invalid fixtures:\n {2}fixtures\./);
    // Nothing was written: carol (valid on her own) does not exist.
    expect(await host.admin.listUsers()).toHaveLength(usersBefore);
    expect((await http(`${host.url}/api/v1/users/carol`)).status).toBe(404);
    // Not even an object.
    await expect(host.admin.load([] as never)).rejects.toThrow('fixtures: must be an object');
  });

  it('refuse a private repository conversation by someone who cannot see it', async () => {
    await expect(
      second.admin.load({ repositories: [{ owner: 'bob', name: 'hidden', private: true, issues: [{ title: 'x', author: 'alice' }] }] }),
    ).rejects.toThrow('fixtures.repositories[0].issues[0].author: alice cannot see the private repository');
  });
});

describe('fixtures with webhooks', () => {
  it('make hooks after everything else (each pings its receiver), and report bad ones by path', async () => {
    const { HookReceiver } = await import('../helpers/receiver.js');
    const receiver = await HookReceiver.start();
    const host = await startHost({ allowLocalNetwork: true });
    try {
      const problems = await host.admin
        .load({ users: [{ username: 'hooked', email: 'hooked@example.com', password: 'password123' }], repositories: [{ owner: 'hooked', name: 'bad', hooks: [{ url: 'ftp://x', events: ['push', 'nope'], contentType: 'xml' }] }] } as never)
        .then(
          () => [],
          (error: FixtureError) => error.problems,
        );
      expect(problems).toEqual([
        'fixtures.repositories[0].hooks[0].url: url must be an http or https URL',
        `fixtures.repositories[0].hooks[0].events[1]: must be * or one of ${SUBSCRIBABLE_EVENTS.join(', ')}`,
        "fixtures.repositories[0].hooks[0].contentType: must be 'json' or 'form'",
      ]);
      await host.admin.load({
        users: [{ username: 'hooked', email: 'hooked@example.com', password: 'password123', tokens: [{ name: 'bot', token: 'ghp_fixturehooks0123456789' }] }],
        repositories: [{ owner: 'hooked', name: 'app', branches: { main: { commits: [{ message: 'root' }] } }, issues: [{ title: 'Before the hook' }], hooks: [{ url: receiver.url, events: ['issues'], secret: 's3cret' }] }],
      });
      const [ping] = await receiver.waitForEvent('ping');
      expect(ping!.json.hook.events).toEqual(['issues']);
      // The fixtures' own issue was made before the hook: only later ones are delivered.
      await http(`${host.url}/api/v1/repos/hooked/app/issues`, { headers: bearer('ghp_fixturehooks0123456789'), json: { title: 'After the hook' } });
      const [opened] = await receiver.waitForEvent('issues');
      expect(opened!.json.issue.title).toBe('After the hook');
      expect(receiver.received.filter((request) => request.headers['x-github-event'] === 'issues')).toHaveLength(1);
    } finally {
      await host.close();
      await receiver.close();
    }
  });
});
