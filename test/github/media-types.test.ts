import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { Octokit } from '@octokit/rest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RepoHost } from '../../lib/index.js';
import { startHost } from '../helpers/host.js';

const run = promisify(execFile);
const TOKEN = 'ghp_mediatypes0123456789abcdef0123';
const CONFIG = 'checks:\n  - lint\n  - test\n';

/** Issue 20: GitHub's media types on contents (raw), commits and compare (diff, patch), as Octokit asks for them. */
describe('/api/v3 media types', () => {
  let host: RepoHost;
  let octokit: Octokit;
  const repo = { owner: 'alice', repo: 'app' };
  let gitDir: string;

  beforeAll(async () => {
    host = await startHost({
      fixtures: {
        users: [{ username: 'alice', email: 'alice@example.com', password: 'password123', tokens: [{ name: 't', token: TOKEN }] }],
        repositories: [
          {
            owner: 'alice',
            name: 'app',
            branches: {
              main: {
                commits: [
                  { message: 'root', files: { '.github/bot.yml': CONFIG, 'a.txt': 'one\n' } },
                  { message: 'change a', files: { 'a.txt': 'one\ntwo\n' } },
                ],
              },
              topic: { from: 'main', commits: [{ message: 'topic', files: { 't.txt': 't\n' } }] },
            },
          },
        ],
      },
    });
    octokit = new Octokit({ baseUrl: `${host.url}/api/v3`, auth: TOKEN });
    gitDir = `${host.options.dataDir}/repositories/alice/app.git`;
  });

  afterAll(async () => {
    await host?.close();
  });

  const git = async (...args: string[]) => (await run('git', args, { cwd: gitDir })).stdout;

  it('contents as raw bytes (what Probot context.config() asks for); a folder stays JSON', async () => {
    const raw = await octokit.repos.getContent({ ...repo, path: '.github/bot.yml', mediaType: { format: 'raw' } });
    expect(raw.data).toBe(CONFIG);
    expect(String(raw.headers['content-type'])).toContain('application/vnd.github.raw');
    const folder = await octokit.repos.getContent({ ...repo, path: '.github', mediaType: { format: 'raw' } });
    expect(Array.isArray(folder.data)).toBe(true);
    // The media types it does not serve (a file rendered, a folder as one object) are refused, not answered as JSON.
    for (const [path, format] of [['.github/bot.yml', 'html'], ['.github', 'object']] as const) {
      const refused = await octokit.repos.getContent({ ...repo, path, mediaType: { format } }).catch((error: { status: number; response: { data: { message: string } } }) => error);
      expect((refused as { status: number }).status, format).toBe(415);
      expect((refused as { response: { data: { message: string } } }).response.data.message).toContain(`the ${format} media type`);
    }
  });

  it('a commit and a comparison as diff and patch, as git gives them', async () => {
    const head = (await git('rev-parse', 'main')).trim();
    const diff = await octokit.repos.getCommit({ ...repo, ref: 'main', mediaType: { format: 'diff' } });
    expect(diff.data).toBe(await git('diff', '-M', `${head}^`, head, '--'));
    const patch = await octokit.repos.getCommit({ ...repo, ref: 'main', mediaType: { format: 'patch' } });
    expect(String(patch.data)).toContain('Subject: [PATCH] change a');
    const compared = await octokit.repos.compareCommits({ ...repo, base: 'main', head: 'topic', mediaType: { format: 'diff' } });
    expect(compared.data).toBe(await git('diff', '-M', 'main...topic', '--'));
    const series = await octokit.repos.compareCommits({ ...repo, base: 'main', head: 'topic', mediaType: { format: 'patch' } });
    expect(String(series.data)).toContain('Subject: [PATCH] topic');
  });

  it('Markdown bodies as html, text or all three, as Octokit asks with mediaType.format', async () => {
    const issue = (await octokit.issues.create({ ...repo, title: 'Formats', body: 'Is **this** <b>bold</b>? See #1' })).data;
    await octokit.issues.createComment({ ...repo, issue_number: issue.number, body: '_Yes_' });
    const html = (await octokit.issues.get({ ...repo, issue_number: issue.number, mediaType: { format: 'html' } })).data;
    expect(html.body_html).toContain('<strong>this</strong>');
    // Raw HTML in the text stays text, and references link to this host.
    expect(html.body_html).toContain('&lt;b&gt;bold&lt;/b&gt;');
    expect(html.body_html).toContain(`href="${host.url}/alice/app/issues/1"`);
    expect('body' in html).toBe(false);
    const text = (await octokit.issues.get({ ...repo, issue_number: issue.number, mediaType: { format: 'text' } })).data;
    expect(text.body_text).toBe('Is this <b>bold</b>? See #1');
    expect('body' in text || 'body_html' in text).toBe(false);
    const full = (await octokit.issues.listComments({ ...repo, issue_number: issue.number, mediaType: { format: 'full' } })).data;
    expect(full.map((comment) => [comment.body, comment.body_text, comment.body_html?.trim()])).toEqual([['_Yes_', 'Yes', '<p><em>Yes</em></p>']]);
    // The default is the raw body alone.
    const raw = (await octokit.issues.get({ ...repo, issue_number: issue.number })).data;
    expect([raw.body, 'body_html' in raw]).toEqual(['Is **this** <b>bold</b>? See #1', false]);
  });
});
