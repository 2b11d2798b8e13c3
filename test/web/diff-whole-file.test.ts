import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RepoHost } from '../../lib/index.js';
import { startHost } from '../helpers/host.js';

// Issue 21: "Show all lines" is offered only where the diff does not already show every line of the file.
describe('the "Show all lines" link', () => {
  let host: RepoHost;
  const lines = (count: number, changed?: number) => Array.from({ length: count }, (_, i) => (i + 1 === changed ? `changed ${i + 1}` : `line ${i + 1}`)).join('\n') + '\n';

  beforeAll(async () => {
    host = await startHost({
      fixtures: {
        users: [{ username: 'ada', email: 'ada@example.com', password: 'password123' }],
        repositories: [
          {
            owner: 'ada',
            name: 'files',
            branches: {
              main: { commits: [{ message: 'Start', files: { 'short.txt': lines(5), 'long.txt': lines(40), 'tail.txt': lines(40) } }] },
              topic: { from: 'main', commits: [{ message: 'Change', files: { 'short.txt': lines(5, 3), 'long.txt': lines(40, 20), 'tail.txt': lines(40, 39) } }] },
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

  it('is left out for a file the diff shows whole, and kept where lines are hidden', async () => {
    const page = await (await fetch(`${host.url}/ada/files/pulls/1/files`)).text();
    const sections = page.split('<details class="diff-file"').slice(1);
    const linkOf = (name: string) => sections.find((section) => section.includes(`<summary><span>${name}</span>`))?.includes('Show all lines');
    // 5 lines with the third changed: one hunk from line 1 to the end.
    expect(linkOf('short.txt')).toBe(false);
    // 40 lines, line 20 changed: lines before and after are hidden.
    expect(linkOf('long.txt')).toBe(true);
    // Line 39 of 40 changed: the end is shown, the start is not.
    expect(linkOf('tail.txt')).toBe(true);
  });
});
