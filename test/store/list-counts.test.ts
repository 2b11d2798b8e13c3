import { copyFile, mkdir, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openHostCore } from '../../lib/host.js';
import type { RepoHost } from '../../lib/index.js';
import { Store } from '../../lib/store/database.js';
import { MIGRATIONS, SCHEMA_VERSION } from '../../lib/store/migrations.js';
import { bearer, http, startHost, tempDir } from '../helpers/host.js';
import { newRepo, newUser, type TestUser } from '../helpers/api.js';
import { pushTwoBranches } from '../helpers/git-cli.js';

/*
 * Issue 18: the per-status counts of issues and pull requests (`list_counts`, what X-Total-Count and open_issues_count
 * read) are kept by the write functions, no longer by SQLite triggers; comment ids come from a kept sequence, no longer
 * from MAX(id) + 1. Both must give exactly what the rows say.
 */

let dir: { path: string; cleanup: () => Promise<void> };
let hosts: RepoHost[] = [];
beforeEach(async () => {
  dir = await tempDir('repohost-counts-');
  hosts = [];
});
afterEach(async () => {
  for (const host of hosts) await host.close().catch(() => undefined);
  await dir.cleanup();
});

const dbPath = () => join(dir.path, 'forge.db');

async function start(path = dbPath()): Promise<RepoHost> {
  const host = await startHost({ dbPath: path });
  hosts.push(host);
  return host;
}

async function stop(host: RepoHost): Promise<void> {
  await host.idle();
  await host.close();
  hosts = hosts.filter((other) => other !== host);
}

interface CountRow {
  repo_id: number;
  kind: string;
  status: string;
  n: number;
}

/** What the database holds: its kept counts (rows of zero left out), the counts of its rows, and more. */
async function inspect(path = dbPath()) {
  const core = await openHostCore({ dbPath: path });
  try {
    const store = core.ctx.store;
    const order = ' ORDER BY repo_id, kind, status';
    return {
      kept: await store.all<CountRow>(`SELECT repo_id, kind, status, n FROM list_counts WHERE n <> 0${order}`),
      counted: await store.all<CountRow>(
        `SELECT repo_id, kind, status, n FROM (
           SELECT repo_id, 'issue' AS kind, status, COUNT(*) AS n FROM issues GROUP BY repo_id, status
           UNION ALL SELECT repo_id, 'pull' AS kind, status, COUNT(*) AS n FROM pull_requests GROUP BY repo_id, status
         ) AS counted${order}`,
      ),
      negative: (await store.all('SELECT repo_id FROM list_counts WHERE n < 0')).length,
      triggers: (await store.all<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'trigger' ORDER BY name")).map((row) => row.name),
      version: (await store.get<{ version: number }>('SELECT version FROM schema_version'))!.version,
      nextCommentId: (await store.get<{ next_id: number }>("SELECT next_id FROM id_sequences WHERE name = 'comment'"))?.next_id,
      newestCommentId: (await store.get<{ id: number }>(
        'SELECT COALESCE(MAX(id), 0) AS id FROM (SELECT MAX(id) AS id FROM issue_comments UNION ALL SELECT MAX(id) AS id FROM pull_comments) AS newest',
      ))!.id,
    };
  } finally {
    await core.close();
  }
}

/** The files of the database as they are on disk now: the last snapshot, its write log and mark (no lock). */
async function copyDatabase(): Promise<string> {
  const to = join(dir.path, 'copy');
  await mkdir(to);
  for (const name of await readdir(dir.path)) {
    if (name === 'forge.db' || name.startsWith('forge.db.wal')) await copyFile(join(dir.path, name), join(to, name));
  }
  return join(to, 'forge.db');
}

function api(host: RepoHost, user: TestUser, repo: string) {
  const base = `${host.url}/api/v1/repos/${user.username}/${repo}`;
  const headers = bearer(user.token);
  const ok = async (result: Promise<{ status: number; json: any; text: string }>, status = 200) => {
    const answer = await result;
    expect(answer.status, answer.text).toBe(status);
    return answer.json;
  };
  return {
    issue: async (title: string): Promise<number> => (await ok(http(`${base}/issues`, { headers, form: { title } }))).id,
    setIssue: (id: number, status: string) => ok(http(`${base}/issues/${id}`, { method: 'PATCH', headers, json: { status } })),
    pull: async (base_: string): Promise<number> => (await ok(http(`${base}/pulls`, { headers, form: { title: `into ${base_}`, head: 'feature', base: base_ } }))).id,
    setPull: (id: number, status: string) => ok(http(`${base}/pulls/${id}`, { method: 'PATCH', headers, json: { status } })),
    merge: (id: number) => ok(http(`${base}/pulls/${id}/merge`, { headers, json: { method: 'merge' } })),
    issueComment: async (id: number): Promise<number> => (await ok(http(`${base}/issues/${id}/comments`, { headers, form: { body: 'a comment' } }))).id,
    pullComment: async (id: number): Promise<number> => (await ok(http(`${base}/pulls/${id}/comments`, { headers, form: { text: 'a comment' } }))).id,
    deleteIssueComment: (id: number, comment: number) => ok(http(`${base}/issues/${id}/comments/${comment}`, { method: 'DELETE', headers }), 204),
    deletePullComment: (id: number, comment: number) => ok(http(`${base}/pulls/${id}/comments/${comment}`, { method: 'DELETE', headers }), 204),
    deleteRepo: () => ok(http(base, { method: 'DELETE', headers }), 204),
    total: async (list: 'issues' | 'pulls', state: string) => Number((await http(`${base}/${list}?status=${state}&limit=1`)).headers['x-total-count']),
  };
}

/** A repository with pushed branches `feature` and base-1..n, so pull requests can be opened and merged. */
async function repoWithBranches(host: RepoHost, user: TestUser, name: string, bases = 6) {
  const repo = await newRepo(host, user, name);
  await pushTwoBranches(host, user.username, user.token, name, Array.from({ length: bases }, (_, n) => `base-${n + 1}`));
  return { ...repo, api: api(host, user, name) };
}

describe('kept counts of issues and pull requests (issue 18)', () => {
  it('keeps list_counts equal to COUNT(*) by status through creating, closing, reopening, merging and deleting, also after log replay', async () => {
    const host = await start();
    const alice = await newUser(host, 'alice');
    const one = await repoWithBranches(host, alice, 'one');
    const doomed = await repoWithBranches(host, alice, 'doomed', 2);

    const issues = [];
    for (let n = 0; n < 5; n++) issues.push(await one.api.issue(`issue ${n}`));
    await one.api.setIssue(issues[0]!, 'closed');
    await one.api.setIssue(issues[1]!, 'closed');
    await one.api.setIssue(issues[1]!, 'open');
    await one.api.setIssue(issues[2]!, 'closed');
    await one.api.setIssue(issues[2]!, 'closed'); // no change: counted once
    const pulls = [];
    for (let n = 1; n <= 5; n++) pulls.push(await one.api.pull(`base-${n}`));
    await one.api.setPull(pulls[0]!, 'closed');
    await one.api.setPull(pulls[1]!, 'closed');
    await one.api.setPull(pulls[1]!, 'open');
    await one.api.merge(pulls[2]!);
    expect((await http(`${host.url}/api/v1/repos/alice/one/pulls/${pulls[2]}`, { method: 'PATCH', headers: bearer(alice.token), json: { status: 'open' } })).status).toBe(409);
    expect(await one.api.total('issues', 'open')).toBe(3);
    expect(await one.api.total('issues', 'closed')).toBe(2);
    expect(await one.api.total('pulls', 'open')).toBe(3);
    expect(await one.api.total('pulls', 'closed')).toBe(2); // closed and merged
    expect(await one.api.total('pulls', 'merged')).toBe(1);

    // Comment ids: one sequence over issue and pull request comments, never given again, the newest one's when it is
    // deleted included (as GitHub's: a webhook consumer must not meet another comment under an id it knows).
    const first = await one.api.issueComment(issues[0]!);
    expect(await one.api.pullComment(pulls[0]!)).toBe(first + 1);
    const third = await one.api.issueComment(issues[1]!);
    expect(third).toBe(first + 2);
    await one.api.deleteIssueComment(issues[1]!, third);
    expect(await one.api.pullComment(pulls[1]!)).toBe(third + 1);
    await one.api.deletePullComment(pulls[0]!, first + 1);
    expect(await one.api.issueComment(issues[0]!)).toBe(third + 2);

    // A repository deleted with its issues, pull requests and comments (the newest ones among them).
    const doomedIssue = await doomed.api.issue('gone');
    await doomed.api.setIssue(await doomed.api.issue('gone too'), 'closed');
    const doomedPull = await doomed.api.pull('base-1');
    await doomed.api.pullComment(doomedPull);
    await doomed.api.issueComment(doomedIssue);
    await doomed.api.deleteRepo();
    expect(await one.api.issueComment(issues[3]!)).toBe(third + 5);
    await host.idle();

    // Everything above is in the write log: a copy of the files now replays it on open.
    const replayed = await inspect(await copyDatabase());
    await stop(host);
    const state = await inspect();
    expect(state.kept).toEqual(state.counted);
    expect(state.kept).toEqual([
      { repo_id: one.id, kind: 'issue', status: 'closed', n: 2 },
      { repo_id: one.id, kind: 'issue', status: 'open', n: 3 },
      { repo_id: one.id, kind: 'pull', status: 'closed', n: 1 },
      { repo_id: one.id, kind: 'pull', status: 'merged', n: 1 },
      { repo_id: one.id, kind: 'pull', status: 'open', n: 3 },
    ]);
    expect(state.negative).toBe(0);
    expect(state.triggers).toEqual([]);
    expect(state.nextCommentId).toBe(state.newestCommentId + 1);
    expect(replayed).toEqual(state);
  });

  it('migrates a version 8 database (counts kept by triggers) to exact counts kept by the write functions', async () => {
    // A version 8 database: made by this code, then taken back to what version 8 left (the triggers of version 4,
    // no comment id sequence, intents without their holder, no releases, checks or SSH keys), with one more issue and comment written as version 8 wrote them.
    const host = await start();
    const alice = await newUser(host, 'alice');
    const legacy = await repoWithBranches(host, alice, 'legacy');
    const issues = [await legacy.api.issue('one'), await legacy.api.issue('two'), await legacy.api.issue('three')];
    await legacy.api.setIssue(issues[0]!, 'closed');
    const pulls = [await legacy.api.pull('base-1'), await legacy.api.pull('base-2')];
    await legacy.api.setPull(pulls[0]!, 'closed');
    await legacy.api.issueComment(issues[1]!);
    await legacy.api.pullComment(pulls[1]!);
    await stop(host);

    const store = await Store.open(dbPath(), { snapshotThresholdBytes: 1 << 30 });
    await store.write(async (tx) => {
      await tx.run('ALTER TABLE repositories DROP COLUMN pushed_at');
      await tx.run('DROP INDEX users_by_email');
      await tx.run('ALTER TABLE users DROP COLUMN email_verified');
      await tx.run('DROP TABLE environments');
      await tx.run('DROP TABLE repository_topics');
      await tx.run('DROP TABLE commit_comments');
      await tx.run('DROP TABLE deployment_statuses');
      await tx.run('DROP TABLE deployments');
      await tx.run('DROP TABLE reactions');
      await tx.run('DROP TABLE id_sequences');
      await tx.run('ALTER TABLE ref_intents DROP COLUMN holder');
      await tx.run('DROP TABLE release_assets');
      await tx.run('DROP TABLE releases');
      await tx.run('DROP TABLE check_annotations');
      await tx.run('DROP TABLE check_runs');
      await tx.run('DROP TABLE check_suites');
      await tx.run('ALTER TABLE branch_protections DROP COLUMN enforce_admins');
      await tx.run('ALTER TABLE branch_protections DROP COLUMN required_approvals');
      await tx.run('ALTER TABLE repositories DROP COLUMN next_milestone');
      await tx.run('ALTER TABLE repositories DROP COLUMN latest_release_id');
      for (const table of ['issues', 'pull_requests']) for (const column of ['locked', 'lock_reason']) await tx.run(`ALTER TABLE ${table} DROP COLUMN ${column}`);
      await tx.run('DROP INDEX webhooks_by_installation');
      await tx.run('ALTER TABLE webhooks DROP COLUMN installation_id');
      for (const table of ['notifications', 'installation_tokens', 'app_installation_repos', 'app_installations', 'apps', 'pull_file_views', 'review_thread_resolutions', 'issue_events', 'repository_redirects', 'lfs_locks', 'lfs_objects', 'ssh_keys', 'pull_labels', 'conversation_milestones', 'milestones', 'assignees', 'pull_review_requests', 'pull_review_comments', 'pull_reviews']) await tx.run(`DROP TABLE ${table}`);
      for (const statement of MIGRATIONS.find((migration) => migration.version === 4)!.statements) {
        if (statement.startsWith('CREATE TRIGGER')) await tx.run(statement);
      }
      await tx.run('UPDATE schema_version SET version = 8');
      const { id: authorId } = (await tx.get<{ id: number }>("SELECT id FROM users WHERE username = 'alice'"))!;
      const number = (await tx.run<{ number: number }>('UPDATE repositories SET next_number = next_number + 1 WHERE id = ? RETURNING next_number - 1 AS number', [legacy.id])).rows[0]!.number;
      const now = new Date().toISOString();
      const issueId = (await tx.run<{ id: number }>(
        "INSERT INTO issues (repo_id, number, author_id, title, body, status, created_at, updated_at) VALUES (?, ?, ?, 'by version 8', '', 'open', ?, ?) RETURNING id",
        [legacy.id, number, authorId, now, now],
      )).rows[0]!.id;
      await tx.run(
        `INSERT INTO issue_comments (id, issue_id, author_id, body, created_at, updated_at)
         VALUES ((SELECT COALESCE(MAX(id), 0) + 1 FROM (SELECT MAX(id) AS id FROM issue_comments UNION ALL SELECT MAX(id) AS id FROM pull_comments) AS newest), ?, ?, 'by version 8', ?, ?)`,
        [issueId, authorId, now, now],
      );
      await tx.run('UPDATE issues SET comment_count = comment_count + 1 WHERE id = ?', [issueId]);
    });
    const before = {
      kept: await store.all<CountRow>("SELECT repo_id, kind, status, n FROM list_counts WHERE n <> 0 ORDER BY repo_id, kind, status"),
      triggers: (await store.all("SELECT name FROM sqlite_master WHERE type = 'trigger'")).length,
      newestComment: (await store.get<{ id: number }>('SELECT MAX(id) AS id FROM issue_comments'))!.id,
    };
    await store.close();
    expect(before.triggers).toBe(6);
    expect(before.kept).toContainEqual({ repo_id: legacy.id, kind: 'issue', status: 'open', n: 3 });

    const migrated = await inspect();
    expect(migrated.version).toBe(SCHEMA_VERSION);
    expect(migrated.triggers).toEqual([]);
    expect(migrated.kept).toEqual(before.kept);
    expect(migrated.kept).toEqual(migrated.counted);
    expect(migrated.nextCommentId).toBe(before.newestComment + 1);

    // Once migrated, only the write functions count (a trigger left behind would count twice).
    const again = await start();
    const api8 = api(again, alice, 'legacy');
    await api8.setIssue(issues[1]!, 'closed');
    await api8.setIssue(issues[0]!, 'open');
    await api8.setIssue(await api8.issue('after'), 'closed');
    await api8.setPull(pulls[0]!, 'open');
    await api8.setPull(pulls[1]!, 'closed');
    await api8.merge(await api8.pull('base-3'));
    expect(await api8.issueComment(issues[2]!)).toBe(before.newestComment + 1);
    await stop(again);
    const after = await inspect();
    expect(after.kept).toEqual(after.counted);
    expect(after.kept).toEqual([
      { repo_id: legacy.id, kind: 'issue', status: 'closed', n: 2 },
      { repo_id: legacy.id, kind: 'issue', status: 'open', n: 3 },
      { repo_id: legacy.id, kind: 'pull', status: 'closed', n: 1 },
      { repo_id: legacy.id, kind: 'pull', status: 'merged', n: 1 },
      { repo_id: legacy.id, kind: 'pull', status: 'open', n: 1 },
    ]);
    expect(after.negative).toBe(0);
  });
});
