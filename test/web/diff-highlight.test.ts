import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RepoHost } from '../../lib/index.js';
import { startHost } from '../helpers/host.js';

// Issue 21: diff lines are highlighted as the file's language (removed lines as the old side, added and context lines
// as the new side), escaped all the same; files of no known language stay plain.
describe('highlighted diff lines', () => {
  let host: RepoHost;

  beforeAll(async () => {
    host = await startHost({
      fixtures: {
        users: [{ username: 'ada', email: 'ada@example.com', password: 'password123' }],
        repositories: [
          {
            owner: 'ada',
            name: 'code',
            branches: {
              main: { commits: [{ message: 'Start', files: { 'app.js': 'const a = 1;\n/* a comment\n   over lines */\nlet b = "x";\n', 'notes.txt': 'const plain = 1;\n' } }] },
              topic: { from: 'main', commits: [{ message: 'Change', files: { 'app.js': 'const a = 2;\n/* a comment\n   over lines */\nlet b = "</td><script>alert(1)</script>";\n', 'notes.txt': 'const plain = 2;\n' } }] },
            },
            pulls: [{ title: 'Change', head: 'topic', base: 'main' }],
          },
        ],
      },
    });
  });

  afterAll(async () => {
    await host?.close();
  });

  const fileSection = (page: string, name: string) => page.split('<details class="diff-file"').find((section) => section.includes(`<summary><span>${name}</span>`)) ?? '';

  it('colours the lines of a known language on the files tab, split or not, and on the commit page', async () => {
    for (const path of ['/ada/code/pulls/1/files', '/ada/code/pulls/1/files?diff=split']) {
      const page = await (await fetch(`${host.url}${path}`)).text();
      const js = fileSection(page, 'app.js');
      // The removed and the added line, each with its keyword and number coloured.
      expect(js.match(/<span class="hljs-keyword">const<\/span> a = <span class="hljs-number">[12]<\/span>;/g)).toHaveLength(2);
      // A context line inside a comment that began on an earlier line is still the comment's.
      expect(js).toContain('<span class="hljs-comment">   over lines */</span>');
      // Markup in the source stays text.
      expect(js).toContain('&lt;/td&gt;&lt;script&gt;alert(1)&lt;/script&gt;');
      expect(js).not.toContain('<script>alert(1)');
      expect(fileSection(page, 'notes.txt')).not.toContain('hljs-');
    }
    const head = (await (await fetch(`${host.url}/api/v3/repos/ada/code/branches/topic`)).json()) as { commit: { sha: string } };
    const commit = await (await fetch(`${host.url}/ada/code/commit/${head.commit.sha}`)).text();
    expect(fileSection(commit, 'app.js')).toContain('<span class="hljs-keyword">let</span>');
  });
});
