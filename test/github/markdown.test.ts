import { Octokit } from '@octokit/rest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RepoHost } from '../../lib/index.js';
import { http, startHost } from '../helpers/host.js';

// Issue 21 (Markdown preview) and issue 20: GitHub's Markdown API, rendering as the pages do, with references linked
// in gfm mode: `#12` in the repository given as context, `owner/repo#12`, and `@name`; never in code, links or addresses.

describe('POST /markdown and /markdown/raw', () => {
  let host: RepoHost;
  let octokit: Octokit;

  beforeAll(async () => {
    host = await startHost();
    octokit = new Octokit({ baseUrl: `${host.url}/api/v3` });
  });

  afterAll(async () => {
    await host?.close();
  });

  const TEXT = 'Fixes #1, see other/tools#22 and thanks @dana! Not `#3`, not [#4](https://example.com), not mail@dana.example, not x#5.\n\n<script>alert(1)</script> **bold**';

  it('renders gfm with references linked to the host, in the repository given as context', async () => {
    const { data, headers } = await octokit.markdown.render({ text: TEXT, mode: 'gfm', context: 'dana/night' });
    expect(headers['content-type']).toBe('text/html;charset=utf-8');
    expect(data).toContain(`<a href="${host.url}/dana/night/issues/1" class="issue-link">#1</a>`);
    expect(data).toContain(`<a href="${host.url}/other/tools/issues/22" class="issue-link">other/tools#22</a>`);
    expect(data).toContain(`<a href="${host.url}/dana" class="user-mention">@dana</a>!`);
    expect(data).toContain('<code>#3</code>');
    expect(data).toContain('<a href="https://example.com" rel="nofollow noopener noreferrer">#4</a>');
    expect(data).toContain('mail@dana.example');
    expect(data).not.toContain('/dana.example');
    expect(data).toContain('not x#5.');
    expect(data).toContain('&lt;script&gt;alert(1)&lt;/script&gt; <strong>bold</strong>');
    // Without a context, `#1` has no repository to point at.
    const plainContext = (await octokit.markdown.render({ text: 'See #1 and @dana', mode: 'gfm' })).data;
    expect(plainContext).toBe(`<p>See #1 and <a href="${host.url}/dana" class="user-mention">@dana</a></p>\n`);
  });

  it('renders plain Markdown (the default mode, and /markdown/raw) without references', async () => {
    const plain = (await octokit.markdown.render({ text: 'See #1 and @dana, **bold**' })).data;
    expect(plain).toBe('<p>See #1 and @dana, <strong>bold</strong></p>\n');
    const raw = await http(`${host.url}/api/v3/markdown/raw`, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: '# Title\n\n@dana' });
    expect(raw.status).toBe(200);
    expect(raw.text).toBe('<h1 id="user-content-title">Title</h1>\n<p>@dana</p>\n');
  });

  it('refuses what it cannot render with 422', async () => {
    const post = (json: Record<string, unknown>) => http(`${host.url}/api/v3/markdown`, { method: 'POST', json });
    expect((await post({ mode: 'gfm' })).status).toBe(422);
    const mode = await post({ text: 'x', mode: 'html' });
    expect(mode.status).toBe(422);
    expect(mode.json.message).toContain('"html" is not a possible value');
    expect((await post({ text: 'x', mode: 'gfm', context: '../../etc' })).status).toBe(422);
    const json = await http(`${host.url}/api/v3/markdown/raw`, { method: 'POST', json: { text: 'x' } });
    expect(json.status).toBe(422);
  });
});
