import { Octokit } from '@octokit/rest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RepoHost } from '../../lib/index.js';
import { bearer, http, startHost } from '../helpers/host.js';
import { failure } from '../helpers/octokit.js';

// Issue 20: pull request reviews, review comments on diff lines, requested reviewers, and protection that requires
// approving reviews, as @octokit/rest drives them.
describe('pull request reviews', () => {
  let host: RepoHost;
  const as: Record<string, Octokit> = {};
  const repo = { owner: 'alice', repo: 'reviewed' };
  let pull: { number: number; head: { sha: string } };

  beforeAll(async () => {
    host = await startHost();
    for (const username of ['alice', 'bob', 'carol', 'dave']) {
      await host.admin.createUser({ username, email: `${username}@example.com`, password: 'password123' });
      as[username] = new Octokit({ baseUrl: `${host.url}/api/v3`, auth: await host.admin.createToken(username, 'reviews') });
    }
    await as.alice!.repos.createForAuthenticatedUser({ name: 'reviewed', auto_init: true });
    const token = await host.admin.createToken('alice', 'v1');
    for (const username of ['bob', 'dave']) {
      expect((await http(`${host.url}/api/v1/repos/alice/reviewed/collaborators/${username}`, { method: 'PUT', headers: bearer(token), json: { permission: 'write' } })).status).toBeLessThan(300);
    }
    const main = (await as.alice!.git.getRef({ ...repo, ref: 'heads/main' })).data.object.sha;
    await as.bob!.git.createRef({ ...repo, ref: 'refs/heads/topic', sha: main });
    await as.bob!.repos.createOrUpdateFileContents({ ...repo, path: 'notes.txt', branch: 'topic', message: 'Notes', content: Buffer.from('line one\nline two\nline three\n').toString('base64') });
    pull = (await as.bob!.pulls.create({ ...repo, title: 'Notes', head: 'topic', base: 'main' })).data;
  });

  afterAll(async () => {
    await host?.close();
  });

  it('requests reviewers, keeps a pending review to its author, and submits it with comments on diff lines', async () => {
    const requested = await as.bob!.pulls.requestReviewers({ ...repo, pull_number: pull.number, reviewers: ['carol', 'dave'] });
    expect(requested.status).toBe(201);
    expect(requested.data.requested_reviewers?.map((user) => user.login)).toEqual(['carol', 'dave']);
    expect((await failure(as.alice!.pulls.requestReviewers({ ...repo, pull_number: pull.number, reviewers: ['bob'] }))).status).toBe(422);

    const pending = await as.carol!.pulls.createReview({ ...repo, pull_number: pull.number, comments: [{ path: 'notes.txt', line: 2, body: 'Why two?' }] });
    expect(pending.data).toMatchObject({ state: 'PENDING', user: { login: 'carol' }, commit_id: pull.head.sha, author_association: 'NONE' });
    expect(pending.data.submitted_at).toBeUndefined();
    expect((await as.bob!.pulls.listReviews({ ...repo, pull_number: pull.number })).data).toEqual([]);
    expect((await as.bob!.pulls.listReviewComments({ ...repo, pull_number: pull.number })).data).toEqual([]);
    expect((await failure(as.bob!.pulls.getReview({ ...repo, pull_number: pull.number, review_id: pending.data.id }))).status).toBe(404);

    const submitted = await as.carol!.pulls.submitReview({ ...repo, pull_number: pull.number, review_id: pending.data.id, event: 'COMMENT', body: 'A question' });
    expect(submitted.data).toMatchObject({ state: 'COMMENTED', body: 'A question' });
    expect(submitted.data.submitted_at).toMatch(/Z$/);
    const [comment] = (await as.bob!.pulls.listReviewComments({ ...repo, pull_number: pull.number })).data;
    expect(comment).toMatchObject({
      path: 'notes.txt',
      line: 2,
      side: 'RIGHT',
      start_line: null,
      body: 'Why two?',
      pull_request_review_id: pending.data.id,
      commit_id: pull.head.sha,
      diff_hunk: '@@ -0,0 +1,3 @@\n+line one\n+line two',
      user: { login: 'carol' },
    });
    // Submitting answered carol's request; dave's stands, and the pull request says so, with its review comment.
    expect((await as.bob!.pulls.listRequestedReviewers({ ...repo, pull_number: pull.number })).data.users.map((user) => user.login)).toEqual(['dave']);
    expect((await as.bob!.pulls.get({ ...repo, pull_number: pull.number })).data).toMatchObject({ requested_reviewers: [{ login: 'dave' }], review_comments: 1 });
    expect((await as.bob!.pulls.list(repo)).data[0]).toMatchObject({ requested_reviewers: [{ login: 'dave' }] });
  });

  it('replies to, edits and deletes review comments, and refuses lines outside the diff', async () => {
    const single = await as.dave!.pulls.createReviewComment({ ...repo, pull_number: pull.number, commit_id: pull.head.sha, path: 'notes.txt', start_line: 1, line: 3, body: 'All three' });
    expect(single.status).toBe(201);
    expect(single.data).toMatchObject({ start_line: 1, line: 3, start_side: 'RIGHT', side: 'RIGHT' });
    const reply = await as.bob!.pulls.createReplyForReviewComment({ ...repo, pull_number: pull.number, comment_id: single.data.id, body: 'Yes, all three' });
    expect(reply.data).toMatchObject({ in_reply_to_id: single.data.id, path: 'notes.txt', line: 3 });
    expect((await as.bob!.pulls.updateReviewComment({ ...repo, comment_id: reply.data.id, body: 'Yes: all three' })).data.body).toBe('Yes: all three');
    expect((await failure(as.carol!.pulls.updateReviewComment({ ...repo, comment_id: reply.data.id, body: 'mine now' }))).status).toBe(422);
    expect((await as.alice!.pulls.deleteReviewComment({ ...repo, comment_id: reply.data.id })).status).toBe(204);
    expect((await failure(as.alice!.pulls.getReviewComment({ ...repo, comment_id: reply.data.id }))).status).toBe(404);
    const outside = await failure(as.dave!.pulls.createReviewComment({ ...repo, pull_number: pull.number, commit_id: pull.head.sha, path: 'notes.txt', line: 9, body: 'x' }));
    // The line after the file's last: past the patch's last newline, not part of the diff.
    expect((await failure(as.dave!.pulls.createReviewComment({ ...repo, pull_number: pull.number, commit_id: pull.head.sha, path: 'notes.txt', line: 4, body: 'x' }))).status).toBe(422);
    expect(outside).toMatchObject({ status: 422, data: { errors: [{ resource: 'PullRequestReviewComment' }] } });
    expect((await failure(as.dave!.pulls.createReviewComment({ ...repo, pull_number: pull.number, commit_id: pull.head.sha, path: 'other.txt', line: 1, body: 'x' }))).status).toBe(422);
    expect((await as.alice!.pulls.listReviewCommentsForRepo(repo)).data.map((each) => each.body)).toEqual(['Why two?', 'All three']);
  });

  it('merges only with the approvals protection requires, blocks on requested changes until dismissed', async () => {
    await as.alice!.request('PUT /repos/{owner}/{repo}/branches/{branch}/protection', {
      ...repo,
      branch: 'main',
      required_status_checks: null,
      enforce_admins: true,
      required_pull_request_reviews: { required_approving_review_count: 1 },
      restrictions: null,
    });
    expect((await as.alice!.repos.getBranchProtection({ ...repo, branch: 'main' })).data.required_pull_request_reviews?.required_approving_review_count).toBe(1);
    expect((await as.alice!.pulls.get({ ...repo, pull_number: pull.number })).data.mergeable_state).toBe('blocked');
    // The merge box of the pull request page says why.
    const page = await fetch(`${host.url}/alice/reviewed/pulls/${pull.number}`, { headers: { authorization: `token ${await host.admin.createToken('alice', 'page')}`, accept: 'text/html' } });
    expect(await page.text()).toContain('1 approving review is required (0 given)');
    expect((await failure(as.alice!.pulls.merge({ ...repo, pull_number: pull.number }))).data.message).toContain('1 approving review is required (0 given)');
    expect((await failure(as.bob!.pulls.createReview({ ...repo, pull_number: pull.number, event: 'APPROVE' }))).status).toBe(422);

    // An approval from someone who may only read does not count.
    await as.carol!.pulls.createReview({ ...repo, pull_number: pull.number, event: 'APPROVE' });
    expect((await failure(as.alice!.pulls.merge({ ...repo, pull_number: pull.number }))).status).toBe(405);
    const approval = await as.dave!.pulls.createReview({ ...repo, pull_number: pull.number, event: 'APPROVE' });
    expect(approval.data.state).toBe('APPROVED');
    const changes = await as.alice!.pulls.createReview({ ...repo, pull_number: pull.number, event: 'REQUEST_CHANGES', body: 'Not yet' });
    expect((await failure(as.alice!.pulls.merge({ ...repo, pull_number: pull.number }))).data.message).toContain('changes were requested');
    expect((await failure(as.carol!.pulls.dismissReview({ ...repo, pull_number: pull.number, review_id: changes.data.id, message: 'no' }))).status).toBe(403);
    const dismissed = await as.alice!.pulls.dismissReview({ ...repo, pull_number: pull.number, review_id: changes.data.id, message: 'Handled elsewhere' });
    // As on GitHub the review keeps its body; the message is the `review_dismissed` event's, on both event lists.
    expect(dismissed.data).toMatchObject({ state: 'DISMISSED', body: 'Not yet' });
    const head = (await as.alice!.pulls.get({ ...repo, pull_number: pull.number })).data.head.sha;
    const dismissal = { state: 'changes_requested', review_id: changes.data.id, dismissal_message: 'Handled elsewhere', dismissal_commit_id: head };
    const events = (await as.bob!.issues.listEvents({ ...repo, issue_number: pull.number })).data.filter((event) => event.event === 'review_dismissed');
    expect(events).toEqual([expect.objectContaining({ actor: expect.objectContaining({ login: 'alice' }), commit_id: null, dismissed_review: dismissal })]);
    const timeline = (await as.bob!.issues.listEventsForTimeline({ ...repo, issue_number: pull.number })).data.filter((event) => event.event === 'review_dismissed');
    expect(timeline).toEqual([expect.objectContaining({ dismissed_review: dismissal })]);
    const conversation = await (await fetch(`${host.url}/alice/reviewed/pulls/${pull.number}`, { headers: { accept: 'text/html' } })).text();
    expect(conversation).toMatch(/dismissed <a href="\/alice"><strong>alice<\/strong><\/a>’s <a href="#review-\d+">review<\/a>: Handled elsewhere/);
    expect((await as.alice!.pulls.get({ ...repo, pull_number: pull.number })).data.mergeable_state).toBe('clean');
    expect((await as.alice!.pulls.merge({ ...repo, pull_number: pull.number })).data.merged).toBe(true);
    expect((await as.bob!.pulls.listReviews({ ...repo, pull_number: pull.number })).data.map((review) => [review.user?.login, review.state])).toEqual([
      ['carol', 'COMMENTED'],
      // A single comment, and a reply, each make a review of their own (as on GitHub).
      ['dave', 'COMMENTED'],
      ['bob', 'COMMENTED'],
      ['carol', 'APPROVED'],
      ['dave', 'APPROVED'],
      ['alice', 'DISMISSED'],
    ]);
  });

  it('deletes only a pending review, and refuses a second pending one', async () => {
    const pending = await as.dave!.pulls.createReview({ ...repo, pull_number: pull.number, body: 'draft' });
    expect(await failure(as.dave!.pulls.createReview({ ...repo, pull_number: pull.number, body: 'another' }))).toMatchObject({
      status: 422,
      data: { message: 'Unprocessable Entity', errors: ['User can only have one pending review per pull request'] },
    });
    expect((await as.dave!.pulls.deletePendingReview({ ...repo, pull_number: pull.number, review_id: pending.data.id })).data.state).toBe('PENDING');
    const submitted = (await as.dave!.pulls.listReviews({ ...repo, pull_number: pull.number })).data.find((review) => review.user?.login === 'dave')!;
    expect((await failure(as.dave!.pulls.deletePendingReview({ ...repo, pull_number: pull.number, review_id: submitted.id }))).status).toBe(422);
  });

  it("refuses the author's own approval or request for changes in GitHub's words", async () => {
    for (const [event, words] of [['APPROVE', 'Can not approve your own pull request'], ['REQUEST_CHANGES', 'Can not request changes on your own pull request']] as const) {
      const refused = await failure(as.bob!.pulls.createReview({ ...repo, pull_number: pull.number, event, body: 'mine' }));
      expect(refused).toMatchObject({ status: 422, data: { message: 'Unprocessable Entity', errors: [words] } });
    }
  });

  it('lists review comments by creation or update, either way, since a time, and refuses what it cannot order by', async () => {
    const list = async (query: Record<string, string>, path = `/repos/alice/reviewed/pulls/${pull.number}/comments`) =>
      ((await as.bob!.request(`GET ${path}`, query)).data as Array<{ id: number; updated_at: string }>).map((comment) => comment.id);
    const oldest = await list({});
    expect(oldest.length).toBeGreaterThanOrEqual(2);
    expect(oldest).toEqual([...oldest].sort((a, b) => a - b));
    expect(await list({ sort: 'created', direction: 'desc' })).toEqual([...oldest].reverse());
    // `sort` alone is descending, `direction` alone changes nothing (GitHub's defaults).
    expect(await list({ sort: 'created' })).toEqual([...oldest].reverse());
    expect(await list({ direction: 'desc' })).toEqual(oldest);

    await new Promise((resolve) => setTimeout(resolve, 1100));
    const edited = oldest[0]!;
    const { data } = await as.bob!.pulls.getReviewComment({ ...repo, comment_id: edited });
    const changed = await as[data.user.login]!.pulls.updateReviewComment({ ...repo, comment_id: edited, body: 'Edited later' });
    expect((await list({ sort: 'updated', direction: 'desc' }))[0]).toBe(edited);
    expect(await list({ sort: 'updated', direction: 'asc' })).toEqual([...oldest.slice(1), edited]);
    expect(await list({ since: changed.data.updated_at })).toEqual([edited]);
    expect(await list({ since: '2000-01-01T00:00:00Z' })).toEqual(oldest);
    expect(await list({ since: '2000-01-01T00:00:00Z', sort: 'created', direction: 'desc' }, '/repos/alice/reviewed/pulls/comments')).toEqual([...oldest].reverse());
    expect(await list({ since: changed.data.updated_at }, '/repos/alice/reviewed/pulls/comments')).toEqual([edited]);
    for (const query of [{ sort: 'length' }, { sort: 'created', direction: 'sideways' }, { since: 'yesterday' }]) {
      expect((await failure(as.bob!.request(`GET /repos/alice/reviewed/pulls/${pull.number}/comments`, query))).status).toBe(422);
    }
  });

  it('needs the commit a single review comment is on, and answers the commit comment media types', async () => {
    const missing = await failure(as.dave!.request('POST /repos/{owner}/{repo}/pulls/{pull_number}/comments' as string, { ...repo, pull_number: pull.number, path: 'notes.txt', line: 1, body: 'x' }));
    expect(missing).toMatchObject({ status: 422, data: { message: 'Invalid request.\n\n"commit_id" wasn\'t supplied.' } });
    const full = await as.bob!.request('GET /repos/{owner}/{repo}/pulls/{pull_number}/comments', { ...repo, pull_number: pull.number, headers: { accept: 'application/vnd.github-commitcomment.full+json' } });
    const [first] = full.data as Array<{ body: string; body_html?: string; body_text?: string }>;
    expect(first).toMatchObject({ body: expect.any(String), body_html: expect.stringContaining('<p>'), body_text: expect.any(String) });
  });

  it('places a comment on an earlier commit of the pull request in that commit\'s diff, as GitHub takes it', async () => {
    const main = (await as.alice!.git.getRef({ ...repo, ref: 'heads/main' })).data.object.sha;
    await as.bob!.git.createRef({ ...repo, ref: 'refs/heads/later', sha: main });
    const write = async (content: string, sha?: string) =>
      (await as.bob!.repos.createOrUpdateFileContents({ ...repo, path: 'later.txt', branch: 'later', message: 'Later', content: Buffer.from(content).toString('base64'), ...(sha ? { sha } : {}) })).data;
    const first = await write('one\ntwo\n');
    const opened = (await as.bob!.pulls.create({ ...repo, title: 'Later', head: 'later', base: 'main' })).data;
    const earlier = first.commit.sha!;
    await write('one\ntwo\nthree\nfour\n', first.content!.sha!);
    const comment = (line: number, commit_id: string) => as.dave!.pulls.createReviewComment({ ...repo, pull_number: opened.number, commit_id, path: 'later.txt', line, body: `On ${line}` });
    // A bot told of the first head comments after the second push: placed on the first commit's diff.
    const placed = (await comment(2, earlier)).data;
    expect(placed).toMatchObject({ commit_id: earlier, original_commit_id: earlier, line: 2, position: 2 });
    expect((await failure(comment(4, earlier))).status).toBe(422);
    expect((await comment(4, (await as.bob!.pulls.get({ ...repo, pull_number: opened.number })).data.head.sha)).status).toBe(201);
    // A commit that is not the pull request's is refused, in a review too.
    expect((await failure(comment(1, main))).status).toBe(422);
    expect((await failure(as.dave!.pulls.createReview({ ...repo, pull_number: opened.number, commit_id: main, event: 'COMMENT', body: 'x' }))).status).toBe(422);
    const review = await as.dave!.pulls.createReview({ ...repo, pull_number: opened.number, commit_id: earlier, event: 'COMMENT', body: 'Earlier', comments: [{ path: 'later.txt', line: 1, body: 'First line' }] });
    expect(review.data.commit_id).toBe(earlier);
    const [inReview] = (await as.dave!.pulls.listCommentsForReview({ ...repo, pull_number: opened.number, review_id: review.data.id })).data;
    expect(inReview).toMatchObject({ commit_id: earlier, line: 1 });
  });

  it('places a comment by its deprecated position in the diff, as bots still send it', async () => {
    // notes.txt is new in the pull request: its patch is one hunk, position 1 the first line.
    const single = await as.dave!.pulls.createReviewComment({ ...repo, pull_number: pull.number, commit_id: pull.head.sha, path: 'notes.txt', position: 3, body: 'Third' });
    expect(single.data).toMatchObject({ line: 3, side: 'RIGHT', position: 3, diff_hunk: expect.stringMatching(/line three$/) });
    const review = await as.dave!.pulls.createReview({ ...repo, pull_number: pull.number, event: 'COMMENT', comments: [{ path: 'notes.txt', position: 1, body: 'First' }] });
    const comments = (await as.dave!.pulls.listCommentsForReview({ ...repo, pull_number: pull.number, review_id: review.data.id })).data;
    expect(comments).toMatchObject([{ line: 1, side: 'RIGHT', position: 1, body: 'First' }]);
    for (const position of [0, 4, 1.5]) {
      expect((await failure(as.dave!.pulls.createReviewComment({ ...repo, pull_number: pull.number, commit_id: pull.head.sha, path: 'notes.txt', position, body: 'x' }))).status, String(position)).toBe(422);
    }
    expect((await failure(as.dave!.pulls.createReviewComment({ ...repo, pull_number: pull.number, commit_id: pull.head.sha, path: 'notes.txt', position: 1, line: 1, body: 'x' }))).status).toBe(422);
  });

  it('comments on a whole file (subject_type "file"): no line, replies on the file too, shown above its lines', async () => {
    const onFile = await as.dave!.pulls.createReviewComment({ ...repo, pull_number: pull.number, commit_id: pull.head.sha, path: 'notes.txt', subject_type: 'file', body: 'This file needs a header' });
    expect(onFile.status).toBe(201);
    expect(onFile.data).toMatchObject({ subject_type: 'file', path: 'notes.txt', line: null, original_line: null, start_line: null, original_start_line: null, start_side: null, position: null, original_position: null, diff_hunk: '', body: 'This file needs a header' });
    const reply = await as.bob!.pulls.createReplyForReviewComment({ ...repo, pull_number: pull.number, comment_id: onFile.data.id, body: 'Added one' });
    expect(reply.data).toMatchObject({ in_reply_to_id: onFile.data.id, subject_type: 'file', line: null, position: null });
    const listed = (await as.alice!.pulls.listReviewComments({ ...repo, pull_number: pull.number })).data.filter((comment) => comment.subject_type === 'file');
    expect(listed.map((comment) => comment.id)).toEqual([onFile.data.id, reply.data.id]);
    // In a review too; a line comment says so.
    const review = await as.carol!.pulls.createReview({ ...repo, pull_number: pull.number, event: 'COMMENT', comments: [{ path: 'notes.txt', subject_type: 'file', body: 'Whole file' } as { path: string; body: string }, { path: 'notes.txt', line: 1, body: 'One line' }] });
    expect((await as.carol!.pulls.listCommentsForReview({ ...repo, pull_number: pull.number, review_id: review.data.id })).data).toMatchObject([
      { subject_type: 'file', line: null, body: 'Whole file' },
      { subject_type: 'line', line: 1, body: 'One line' },
    ]);
    // The file must be part of the diff; GitHub's two kinds only.
    const elsewhere = await failure(as.dave!.pulls.createReviewComment({ ...repo, pull_number: pull.number, commit_id: pull.head.sha, path: 'README.md', subject_type: 'file', body: 'x' }));
    expect(elsewhere.status).toBe(422);
    expect(JSON.stringify(elsewhere.data)).toContain('comment.path must be a file of the diff');
    const kind = await failure(as.dave!.pulls.createReviewComment({ ...repo, pull_number: pull.number, commit_id: pull.head.sha, path: 'notes.txt', subject_type: 'hunk' as 'file', body: 'x' }));
    expect(kind.status).toBe(422);
    expect(JSON.stringify(kind.data)).toContain("comment.subject_type must be 'line' or 'file'");
    // The files tab shows the thread above the file's lines, with its reply.
    const page = await http(`${host.url}/alice/reviewed/pulls/${pull.number}/files`);
    expect(page.status).toBe(200);
    const thread = page.text.slice(page.text.indexOf('class="file-comments"'));
    expect(page.text).toContain('class="file-comments"');
    expect(thread.indexOf('This file needs a header')).toBeGreaterThan(-1);
    expect(thread.indexOf('Added one')).toBeGreaterThan(thread.indexOf('This file needs a header'));
    expect(thread.indexOf('This file needs a header')).toBeLessThan(thread.indexOf('<table class="code diff'));
    expect(thread.slice(0, thread.indexOf('This file needs a header'))).toContain('on the file');
  });
});
