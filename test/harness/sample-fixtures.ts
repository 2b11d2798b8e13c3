import type { Fixtures } from '../../lib/index.js';

/** A fixture touching every part: users with fixed tokens, two repositories (one private), branches from branches. */
export const BOT_TOKEN = 'ghp_fixturetoken0123456789abcdef';

export function sampleFixtures(): Fixtures {
  return {
    users: [
      { username: 'alice', email: 'alice@example.com', password: 'password123', fullName: 'Alice Liddell', tokens: [{ name: 'bot', token: BOT_TOKEN }] },
      { username: 'bob', email: 'bob@example.com', password: 'password123' },
    ],
    repositories: [
      {
        owner: 'alice',
        name: 'project',
        description: 'A project from fixtures',
        branches: {
          main: {
            commits: [
              { message: 'Initial commit', files: { 'README.md': '# project\n', 'src/index.js': 'export const x = 1;\n', 'bin/run': { content: '#!/bin/sh\n', mode: 'executable' } } },
              { message: 'Second', author: 'bob', files: { 'src/index.js': 'export const x = 2;\n', 'bin/run': '#!/bin/sh\nexit 0\n', 'docs/a.md': { base64: Buffer.from('bytes\0').toString('base64') } } },
            ],
          },
          feature: { from: 'main', commits: [{ message: 'Feature work', date: '2024-02-01T10:00:00Z', files: { 'src/feature.js': 'feature\n', 'docs/a.md': null } }] },
          empty: { from: 'main' },
        },
        labels: [
          { name: 'bug', color: 'd73a4a' },
          { name: 'enhancement', color: '#a2eeef', description: 'New feature' },
        ],
        issues: [
          { title: 'First issue', body: 'Something is off', labels: ['bug'], comments: [{ author: 'bob', body: 'Seen it too' }] },
          { title: 'Closed issue', author: 'bob', closed: true },
        ],
        pulls: [{ title: 'Add feature', body: 'Please merge', head: 'feature', base: 'main', comments: [{ author: 'bob', body: 'LGTM' }] }],
      },
      {
        owner: 'bob',
        name: 'secret',
        private: true,
        defaultBranch: 'develop',
        collaborators: { alice: 'read' },
        branches: {
          main: { commits: [{ message: 'root', files: { 'a.txt': 'a\n' } }] },
          develop: { from: 'main', commits: [{ message: 'dev', files: { 'b.txt': 'b\n' } }] },
        },
        issues: [{ title: 'Private issue', author: 'alice' }],
      },
    ],
  };
}
