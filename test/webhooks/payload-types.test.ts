import { execFile } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { createAppAuth } from '@octokit/auth-app';
import { Octokit } from '@octokit/rest';
import { Webhooks, type EmitterWebhookEvent } from '@octokit/webhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RepoHost } from '../../lib/index.js';
import { git } from '../helpers/git-cli.js';
import { bearer, http, startHost, tempDir } from '../helpers/host.js';
import { HookReceiver, type ReceivedHook } from '../helpers/receiver.js';

const run = promisify(execFile);
const SECRET = 'payload-types-secret';
const ROOT = join(import.meta.dirname, '..', '..');
const TSC = join(ROOT, 'node_modules', '.bin', 'tsc');
/** The schema of each payload (GitHub's, see the one exception there). */
const SCHEMA_OF = join(import.meta.dirname, 'payload-types', 'schemas.ts');

/**
 * Issue 20: every payload of every event kind repohost sends, as a receiver got it, checked against GitHub's own
 * description of it. `@octokit/webhooks` verifies the signature and dispatches it by name and action; each payload
 * is written as a typed fixture (`{…} satisfies components['schemas']['webhook-<event>-<action>']` from
 * `@octokit/openapi-webhooks-types`, through payload-types/schemas.ts) and one `tsc` run over all of them must report
 * nothing: no field missing, none of the wrong type, none GitHub's description does not have.
 */
describe('webhook payloads against @octokit/openapi-webhooks-types', () => {
  let host: RepoHost;
  let receiver: HookReceiver;
  let work: { path: string; cleanup: () => Promise<void> };
  const tokens: Record<'alice' | 'bob' | 'carol', string> = { alice: '', bob: '', carol: '' };
  const as = (user: keyof typeof tokens) => new Octokit({ baseUrl: `${host.url}/api/v3`, auth: tokens[user] });
  const owner = 'alice';
  const repo = 'payloads';
  let app: { id: number; slug: string; privateKey: string };

  beforeAll(async () => {
    host = await startHost({ allowLocalNetwork: true, webhookRetryDelayMs: 50, webhookMaxAttempts: 5 });
    receiver = await HookReceiver.start();
    work = await tempDir('repohost-payload-types-');
    for (const user of ['alice', 'bob', 'carol'] as const) {
      await host.admin.createUser({ username: user, email: `${user}@example.com`, password: 'password123', fullName: `${user[0]!.toUpperCase()}${user.slice(1)}` });
      tokens[user] = await host.admin.createToken(user, 'payloads');
    }
    // An app installed on all of alice's repositories: its deliveries (with `installation`) are checked too.
    app = await host.admin.createApp({ owner: 'alice', name: 'Payload App', webhookUrl: receiver.url, webhookSecret: SECRET, permissions: { checks: 'write', issues: 'write' }, events: ['issues', 'check_run', 'check_suite'] });
    await host.admin.installApp(app.slug, 'alice');
  });

  afterAll(async () => {
    await host?.close();
    await receiver?.close();
    await work?.cleanup();
  });

  /** Causes every kind of event (and every action) repohost sends, as owner, collaborator and stranger. */
  async function causeEveryEvent(): Promise<{ signed: { sha: string; signature: string; payload: string }; merged: Record<string, unknown> }> {
    const alice = as('alice');
    const bob = as('bob');
    const carol = as('carol');
    const ids = { owner, repo };
    await alice.repos.createForAuthenticatedUser({ name: repo, description: 'every payload', auto_init: true });
    const collaborator = await http(`${host.url}/api/v1/repos/${owner}/${repo}/collaborators/bob`, { method: 'PUT', headers: bearer(tokens.alice), json: { permission: 'write' } });
    expect(collaborator.status).toBeLessThan(300);
    // ping
    await alice.repos.createWebhook({ ...ids, config: { url: receiver.url, content_type: 'json', secret: SECRET }, events: ['*'] });
    await receiver.waitForEvent('ping');
    // member: added, edited (another permission), removed
    await host.admin.createUser({ username: 'dave', email: 'dave@example.com', password: 'password123' });
    await alice.repos.addCollaborator({ ...ids, username: 'dave', permission: 'pull' });
    await alice.repos.addCollaborator({ ...ids, username: 'dave', permission: 'admin' });
    await alice.repos.removeCollaborator({ ...ids, username: 'dave' });

    // push (through the contents API, git data and a real git push), create and delete of a branch and a tag
    const main = (await alice.git.getRef({ ...ids, ref: 'heads/main' })).data.object.sha;
    await alice.repos.createOrUpdateFileContents({ ...ids, path: 'docs/guide.md', message: 'Add a guide', content: Buffer.from('# Guide\n').toString('base64') });
    await alice.git.createRef({ ...ids, ref: 'refs/heads/doomed', sha: main });
    await alice.git.deleteRef({ ...ids, ref: 'heads/doomed' });
    const remote = new URL(`${host.url}/${owner}/${repo}.git`);
    remote.username = owner;
    remote.password = tokens.alice;
    const tree = join(work.path, 'clone');
    await git(work.path, ['clone', '-q', remote.toString(), tree], work.path);
    await git(tree, ['checkout', '-q', '-b', 'topic'], work.path);
    await writeFile(join(tree, 'topic.txt'), 'topic\n');
    await git(tree, ['add', 'topic.txt'], work.path);
    await git(tree, ['commit', '-q', '-m', 'Topic work\n\nWith a body.'], work.path);
    await git(tree, ['tag', '-a', 'v1.0.0', '-m', 'Version 1.0.0'], work.path);
    await git(tree, ['push', '-q', 'origin', 'topic', 'v1.0.0'], work.path);
    await git(tree, ['push', '-q', 'origin', ':refs/tags/v1.0.0'], work.path);
    const topic = await git(tree, ['rev-parse', 'HEAD'], work.path);

    // issues: opened by a stranger, edited, labeled, unlabeled, closed, reopened; comments created, edited, deleted
    await alice.issues.createLabel({ ...ids, name: 'bug', color: 'd73a4a', description: 'Something is broken' });
    await alice.issues.createLabel({ ...ids, name: 'docs', color: '0075ca' });
    // label: created (above), edited, deleted
    await alice.issues.createLabel({ ...ids, name: 'passing', color: 'ededed' });
    await alice.issues.updateLabel({ ...ids, name: 'passing', new_name: 'passed', color: 'cccccc', description: 'Gone soon' });
    await alice.issues.deleteLabel({ ...ids, name: 'passed' });
    const issue = (await carol.issues.create({ ...ids, title: 'It breaks', body: 'Steps: none' })).data;
    await alice.issues.update({ ...ids, issue_number: issue.number, title: 'It breaks on start', body: 'Steps: start it' });
    await alice.issues.addLabels({ ...ids, issue_number: issue.number, labels: ['bug', 'docs'] });
    await alice.issues.removeLabel({ ...ids, issue_number: issue.number, name: 'docs' });
    await alice.issues.update({ ...ids, issue_number: issue.number, state: 'closed', state_reason: 'completed' });
    await alice.issues.update({ ...ids, issue_number: issue.number, state: 'open' });
    const comment = (await bob.issues.createComment({ ...ids, issue_number: issue.number, body: 'Seen it too' })).data;
    await bob.issues.updateComment({ ...ids, comment_id: comment.id, body: 'Seen it too, on start' });
    await bob.issues.deleteComment({ ...ids, comment_id: comment.id });

    // pull_request: opened, edited (title and body, then base), synchronize, closed, reopened, merged; its comments
    await alice.git.createRef({ ...ids, ref: 'refs/heads/develop', sha: main });
    const pull = (await bob.pulls.create({ ...ids, title: 'Add topic', body: 'Please', head: 'topic', base: 'main' })).data;
    await bob.pulls.update({ ...ids, pull_number: pull.number, title: 'Add the topic', body: 'Please merge' });
    await bob.pulls.update({ ...ids, pull_number: pull.number, base: 'develop' });
    await bob.pulls.update({ ...ids, pull_number: pull.number, base: 'main' });
    await writeFile(join(tree, 'topic.txt'), 'topic, again\n');
    await git(tree, ['commit', '-q', '-am', 'More topic work'], work.path);
    await git(tree, ['push', '-q', 'origin', 'topic'], work.path);
    await host.idle();
    await bob.pulls.update({ ...ids, pull_number: pull.number, state: 'closed' });
    await bob.pulls.update({ ...ids, pull_number: pull.number, state: 'open' });
    const pullComment = (await carol.issues.createComment({ ...ids, issue_number: pull.number, body: 'Looks good' })).data;
    await carol.issues.updateComment({ ...ids, comment_id: pullComment.id, body: 'Looks good to me' });
    await carol.issues.deleteComment({ ...ids, comment_id: pullComment.id });

    // status, on a commit one branch points at, on one that none does, and on a signed one
    const head = await git(tree, ['rev-parse', 'HEAD'], work.path);
    await bob.repos.createCommitStatus({ ...ids, sha: head, state: 'success', context: 'ci/build', description: 'green', target_url: 'https://ci.example.com/1' });
    await bob.repos.createCommitStatus({ ...ids, sha: topic, state: 'pending', context: 'ci/lint' });
    const signed = await signedCommit(tree, head);
    await git(tree, ['push', '-q', 'origin', `${signed.sha}:refs/heads/signed`], work.path);
    await bob.repos.createCommitStatus({ ...ids, sha: signed.sha, state: 'failure', context: 'ci/build' });
    // check_run: created and completed, by the app's installation (GitHub takes check runs from apps only)
    const installation = (await new Octokit({ baseUrl: `${host.url}/api/v3`, authStrategy: createAppAuth, auth: { appId: app.id, privateKey: app.privateKey } }).apps.getRepoInstallation(ids)).data.id;
    const asApp = new Octokit({ baseUrl: `${host.url}/api/v3`, authStrategy: createAppAuth, auth: { appId: app.id, privateKey: app.privateKey, installationId: installation } });
    const run = (await asApp.checks.create({ ...ids, name: 'app/check', head_sha: head, status: 'in_progress' })).data;
    await asApp.checks.update({ ...ids, check_run_id: run.id, conclusion: 'success', output: { title: 'Fine', summary: 'All good' } });
    // check_suite: requested by the pushes above, completed with the app's run, rerequested; check_run rerequested
    await alice.checks.rerequestSuite({ ...ids, check_suite_id: run.check_suite!.id });
    await alice.checks.rerequestRun({ ...ids, check_run_id: run.id });
    // milestones: of an issue and of the pull request, set and cleared
    const milestone = (await alice.issues.createMilestone({ ...ids, title: 'v1' })).data;
    await alice.issues.update({ ...ids, issue_number: issue.number, milestone: milestone.number });
    await alice.issues.update({ ...ids, issue_number: issue.number, milestone: null });
    await alice.issues.update({ ...ids, issue_number: pull.number, milestone: milestone.number });
    await alice.issues.update({ ...ids, issue_number: pull.number, milestone: null });
    // milestone: created (above), edited, closed, opened, deleted
    await alice.issues.updateMilestone({ ...ids, milestone_number: milestone.number, title: 'v1.0', description: 'The first' });
    await alice.issues.updateMilestone({ ...ids, milestone_number: milestone.number, state: 'closed' });
    await alice.issues.updateMilestone({ ...ids, milestone_number: milestone.number, state: 'open' });
    await alice.issues.deleteMilestone({ ...ids, milestone_number: milestone.number });

    // labels of the pull request: labeled and unlabeled
    await alice.issues.addLabels({ ...ids, issue_number: pull.number, labels: ['docs'] });
    await alice.issues.removeLabel({ ...ids, issue_number: pull.number, name: 'docs' });

    // assignees: of an issue and of the pull request, assigned and unassigned
    await alice.issues.addAssignees({ ...ids, issue_number: issue.number, assignees: ['bob'] });
    await alice.issues.removeAssignees({ ...ids, issue_number: issue.number, assignees: ['bob'] });
    await alice.issues.addAssignees({ ...ids, issue_number: pull.number, assignees: ['alice'] });
    await alice.issues.removeAssignees({ ...ids, issue_number: pull.number, assignees: ['alice'] });

    // reviews: review_requested, review_request_removed; a review submitted with a comment on a line, edited,
    // an approval dismissed; a single comment, a reply, edited and deleted
    await bob.pulls.requestReviewers({ ...ids, pull_number: pull.number, reviewers: ['alice', 'carol'] });
    await bob.pulls.removeRequestedReviewers({ ...ids, pull_number: pull.number, reviewers: ['carol'] });
    const reviewed = await alice.pulls.createReview({ ...ids, pull_number: pull.number, event: 'COMMENT', body: 'Looked at it', comments: [{ path: 'topic.txt', line: 1, body: 'Why again?' }] });
    await alice.pulls.updateReview({ ...ids, pull_number: pull.number, review_id: reviewed.data.id, body: 'Looked at it closely' });
    const approval = await carol.pulls.createReview({ ...ids, pull_number: pull.number, event: 'APPROVE' });
    await alice.pulls.dismissReview({ ...ids, pull_number: pull.number, review_id: approval.data.id, message: 'Not a collaborator' });
    const lineComment = await carol.pulls.createReviewComment({ ...ids, pull_number: pull.number, commit_id: reviewed.data.commit_id!, path: 'topic.txt', line: 1, body: 'Same question' });
    const replyComment = await bob.pulls.createReplyForReviewComment({ ...ids, pull_number: pull.number, comment_id: lineComment.data.id, body: 'Because' });
    await bob.pulls.updateReviewComment({ ...ids, comment_id: replyComment.data.id, body: 'Because it changed' });
    await bob.pulls.deleteReviewComment({ ...ids, comment_id: replyComment.data.id });

    await host.idle();
    await alice.pulls.merge({ ...ids, pull_number: pull.number, merge_method: 'merge' });
    const merged = (await alice.pulls.get({ ...ids, pull_number: pull.number })).data;

    // release: created (a draft), published and released, edited, created with published and prereleased, released
    // (a pre-release made a release), unpublished (made a draft again), deleted; with an asset
    const draft = (await alice.repos.createRelease({ ...ids, tag_name: 'v2.0.0', name: 'Two', body: 'Notes', draft: true })).data;
    await alice.request({ method: 'POST', url: draft.upload_url, name: 'notes.txt', data: 'notes', headers: { 'content-type': 'text/plain' } });
    await alice.repos.updateRelease({ ...ids, release_id: draft.id, draft: false });
    await alice.repos.updateRelease({ ...ids, release_id: draft.id, name: 'Two, final', body: 'Final notes' });
    const pre = (await alice.repos.createRelease({ ...ids, tag_name: 'v2.1.0-rc.1', prerelease: true })).data;
    await alice.repos.updateRelease({ ...ids, release_id: pre.id, prerelease: false });
    await alice.repos.updateRelease({ ...ids, release_id: pre.id, draft: true });
    await alice.repos.deleteRelease({ ...ids, release_id: pre.id });

    // commit_comment (created): on a commit, by someone who only reads
    const commented = (await alice.repos.listCommits({ ...ids, per_page: 1 })).data[0]!.sha;
    await as('carol').repos.createCommitComment({ ...ids, commit_sha: commented, body: 'Nice commit' });

    // deployment (created), deployment_status (created): a success, then another deployment's success making the first
    // inactive (a status GitHub adds, and tells of)
    const deploy = async () => (await alice.repos.createDeployment({ ...ids, ref: 'main', environment: 'staging', required_contexts: [], auto_merge: false, payload: { build: 1 } })).data as { id: number };
    const earlier = await deploy();
    await alice.repos.createDeploymentStatus({ ...ids, deployment_id: earlier.id, state: 'success', log_url: 'https://ci.example.com/1' });
    const later = await deploy();
    await alice.repos.createDeploymentStatus({ ...ids, deployment_id: later.id, state: 'success', environment_url: 'https://staging.example.com' });

    // star (created, deleted), watch (started), repository (edited, privatized, publicized, renamed)
    const repoId = (await alice.repos.get(ids)).data.id;
    for (let toggle = 0; toggle < 2; toggle++) expect((await http(`${host.url}/api/v1/repos/${repoId}/star`, { method: 'POST', headers: bearer(tokens.carol) })).status).toBe(200);
    expect((await http(`${host.url}/api/v1/repos/${repoId}/watch`, { method: 'POST', headers: bearer(tokens.carol) })).status).toBe(200);
    await alice.repos.update({ ...ids, description: 'Payloads, typed', private: true });
    await alice.repos.update({ ...ids, visibility: 'public' });
    await alice.repos.update({ ...ids, name: 'payloads-renamed' });
    await host.idle();
    return { signed, merged };
  }

  /** A commit object with a (made-up) signature header on `parent`'s tree: what a signed commit looks like to git. */
  async function signedCommit(dir: string, parent: string): Promise<{ sha: string; signature: string; payload: string }> {
    const tree = await git(dir, ['rev-parse', `${parent}^{tree}`], work.path);
    const signature = '-----BEGIN PGP SIGNATURE-----\n\niQEzBAABCAAdFiEEsignature\n=abcd\n-----END PGP SIGNATURE-----\n';
    const headers = [`tree ${tree}`, `parent ${parent}`, 'author Signer <signer@example.com> 1700000000 +0000', 'committer Signer <signer@example.com> 1700000000 +0000'];
    const message = 'Signed work\n';
    const header = `gpgsig ${signature.trimEnd().split('\n').join('\n ')}`;
    const file = join(work.path, 'signed-commit');
    await writeFile(file, `${[...headers, header].join('\n')}\n\n${message}`);
    const sha = await git(dir, ['hash-object', '-t', 'commit', '-w', file], work.path);
    return { sha, signature, payload: `${headers.join('\n')}\n\n${message}` };
  }

  it('sends every event kind, each verified and dispatched by @octokit/webhooks and compiling against its schema', async () => {
    const { signed, merged } = await causeEveryEvent();
    const hooks = receiver.received;
    const kinds = (list: readonly ReceivedHook[]) => [...new Set(list.map((hook) => kindOf(hook)))].sort();
    // Every event kind (and action) repohost sends was caused.
    expect(kinds(hooks)).toEqual(
      [
        'check_run.completed',
        'check_run.created',
        'check_run.rerequested',
        'check_suite.completed',
        'check_suite.requested',
        'check_suite.rerequested',
        'commit_comment.created',
        'create',
        'delete',
        'deployment.created',
        'deployment_status.created',
        'issue_comment.created',
        'issue_comment.deleted',
        'issue_comment.edited',
        'issues.assigned',
        'issues.closed',
        'issues.demilestoned',
        'issues.milestoned',
        'issues.unassigned',
        'issues.edited',
        'issues.labeled',
        'issues.opened',
        'issues.reopened',
        'issues.unlabeled',
        'label.created',
        'label.deleted',
        'label.edited',
        'member.added',
        'member.edited',
        'member.removed',
        'milestone.closed',
        'milestone.created',
        'milestone.deleted',
        'milestone.edited',
        'milestone.opened',
        'ping',
        'pull_request.assigned',
        'pull_request.closed',
        'pull_request.demilestoned',
        'pull_request.milestoned',
        'pull_request.unassigned',
        'pull_request.edited',
        'pull_request.labeled',
        'pull_request.unlabeled',
        'pull_request.opened',
        'pull_request.reopened',
        'pull_request.review_request_removed',
        'pull_request.review_requested',
        'pull_request_review.dismissed',
        'pull_request_review.edited',
        'pull_request_review.submitted',
        'pull_request_review_comment.created',
        'pull_request_review_comment.deleted',
        'pull_request_review_comment.edited',
        'pull_request.synchronize',
        'push',
        'release.created',
        'release.deleted',
        'release.edited',
        'release.prereleased',
        'release.published',
        'release.released',
        'release.unpublished',
        'repository.edited',
        'repository.privatized',
        'repository.publicized',
        'repository.renamed',
        'star.created',
        'star.deleted',
        'status',
        'watch.started',
      ].sort(),
    );
    // Every `pull_request` event carries what the pull request changes, as GitHub's payloads do (they were left out of
    // labeled, assigned, milestoned and review_requested).
    for (const hook of hooks.filter((candidate) => candidate.headers['x-github-event'] === 'pull_request')) {
      expect(typeof hook.json.pull_request.changed_files, `pull_request.${hook.json.action}`).toBe('number');
    }

    // @octokit/webhooks: the signature verifies with the secret, and each is dispatched by its name and action.
    const webhooks = new Webhooks({ secret: SECRET });
    const dispatched: string[] = [];
    const failures: unknown[] = [];
    webhooks.onAny((event: EmitterWebhookEvent) => {
      const action = 'action' in event.payload ? `.${String(event.payload.action)}` : '';
      dispatched.push(`${event.id} ${event.name}${action}`);
    });
    webhooks.onError((error) => failures.push(error));
    for (const hook of hooks) {
      await webhooks.verifyAndReceive({
        id: String(hook.headers['x-github-delivery']),
        name: String(hook.headers['x-github-event']),
        payload: hook.body.toString('utf8'),
        signature: String(hook.headers['x-hub-signature-256']),
      });
    }
    expect(failures).toEqual([]);
    expect(dispatched).toEqual(hooks.map((hook) => `${String(hook.headers['x-github-delivery'])} ${kindOf(hook)}`));
    // A payload signed with another secret is refused.
    const [first] = hooks;
    await expect(webhooks.verifyAndReceive({ id: 'x', name: 'ping', payload: first!.body.toString('utf8'), signature: `sha256=${'0'.repeat(64)}` })).rejects.toThrow(/signature does not match/);

    // Every time to the whole second, as GitHub writes them (soft: every failure below is reported, tsc's too).
    expect.soft(hooks.flatMap((hook) => fractionalTimes(hook.json, kindOf(hook)))).toEqual([]);
    // A status event carries its commit, with what GitHub says of its signature (repohost verifies none).
    const statuses = hooks.filter((hook) => kindOf(hook) === 'status').map((hook) => hook.json);
    expect.soft(statuses.find((status) => status.sha !== signed.sha)?.commit?.commit?.verification).toEqual({ verified: false, reason: 'unsigned', signature: null, payload: null, verified_at: null });
    expect.soft(statuses.find((status) => status.sha === signed.sha)?.commit).toMatchObject({
      sha: signed.sha,
      node_id: expect.any(String),
      comments_url: `${host.url}/api/v3/repos/${owner}/payloads/commits/${signed.sha}/comments`,
      commit: { message: 'Signed work\n', verification: { verified: false, reason: 'gpgverify_unavailable', signature: signed.signature, payload: signed.payload, verified_at: null } },
    });

    // A pull request's counts, as git makes them: the same in its events and in the API's answer.
    const closed = hooks.filter((hook) => kindOf(hook) === 'pull_request.closed').map((hook) => hook.json.pull_request);
    const counts = { commits: 2, changed_files: 1, additions: 1, deletions: 0 };
    expect.soft(closed.at(-1)).toMatchObject({ merged: true, ...counts });
    expect.soft(merged).toMatchObject({ merged: true, ...counts });

    // tsc: one typed fixture per payload, all compiled in one run.
    const errors = await typeCheck(hooks);
    expect.soft(errors, `tsc found payloads that do not match GitHub's schemas (PAYLOAD_TYPES_DIR=<folder> keeps the fixtures):\n${errors}`).toBe('');
  });

  /** Writes each payload as a fixture typed by its schema and runs tsc over all of them; returns what tsc printed. */
  async function typeCheck(hooks: readonly ReceivedHook[]): Promise<string> {
    // PAYLOAD_TYPES_DIR keeps the fixtures (and their tsconfig) in a folder of one's choosing, to read them.
    const dir = process.env.PAYLOAD_TYPES_DIR ?? join(work.path, 'fixtures');
    await mkdir(dir, { recursive: true });
    const files: string[] = [];
    for (const [index, hook] of hooks.entries()) {
      const kind = kindOf(hook);
      const file = `${String(index).padStart(3, '0')}-${kind.replace('.', '-')}.ts`;
      const schema = `webhook-${kind.replace(/_/g, '-').replace('.', '-')}`;
      await writeFile(
        join(dir, file),
        [
          `import type { Schema } from '#schemas';`,
          ``,
          `// ${kind}: delivery ${String(hook.headers['x-github-delivery'])}`,
          `export const payload = ${JSON.stringify(hook.json, null, 2)} satisfies Schema<'${schema}'>;`,
          ``,
        ].join('\n'),
      );
      files.push(file);
    }
    const tsconfig = {
      compilerOptions: {
        strict: true,
        noEmit: true,
        target: 'ES2022',
        module: 'ESNext',
        moduleResolution: 'Bundler',
        skipLibCheck: true,
        types: [],
        paths: { '#schemas': [SCHEMA_OF] },
      },
      files,
    };
    await writeFile(join(dir, 'tsconfig.json'), JSON.stringify(tsconfig, null, 2));
    try {
      await run(process.execPath, [TSC, '-p', join(dir, 'tsconfig.json'), '--pretty', 'false'], { cwd: dir, maxBuffer: 64 * 1024 * 1024 });
      return '';
    } catch (error) {
      const { stdout, stderr } = error as { stdout?: string; stderr?: string };
      return `${stdout ?? ''}${stderr ?? ''}`.trim() || String(error);
    }
  }
});

/** Where a payload holds a time with a fraction of a second (`…:36.890Z`), which GitHub never sends. */
function fractionalTimes(value: unknown, path: string): string[] {
  if (typeof value === 'string') return /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d+/.test(value) ? [`${path}: ${value}`] : [];
  if (value === null || typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([key, item]) => fractionalTimes(item, `${path}.${key}`));
}

/** `event.action`, or the event alone for kinds without actions. */
function kindOf(hook: ReceivedHook): string {
  const event = String(hook.headers['x-github-event']);
  return typeof hook.json?.action === 'string' ? `${event}.${hook.json.action}` : event;
}
