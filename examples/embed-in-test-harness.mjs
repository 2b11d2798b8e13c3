// Start a throwaway forge inside a test harness, push to it with the real git client, read it back over the API.
// Run after `npm install` (which builds dist/): node examples/embed-in-test-harness.mjs
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRepoHost } from 'repohost';

const host = await createRepoHost({ port: 0, dbPath: ':memory:', bcryptCost: 4 });
try {
  await host.admin.createUser({ username: 'alice', email: 'alice@example.com', password: 'correct-horse' });
  const token = await host.admin.createToken('alice', 'harness');
  const repo = await host.admin.createRepo({ owner: 'alice', name: 'demo' });

  const work = mkdtempSync(join(tmpdir(), 'repohost-example-'));
  const git = (...args) => execFileSync('git', args, { cwd: work, stdio: 'pipe' }).toString().trim();
  git('init', '-q', '-b', 'main');
  writeFileSync(join(work, 'README.md'), '# demo\n');
  git('add', '.');
  git('-c', 'user.name=Alice', '-c', 'user.email=alice@example.com', 'commit', '-qm', 'first commit');
  // Credentials go in a header, never in the URL or in process arguments that `ps` would show.
  const auth = `Authorization: Basic ${Buffer.from(`alice:${token}`).toString('base64')}`;
  execFileSync('git', ['-c', `http.extraHeader=${auth}`, 'push', '-q', `${host.url}/alice/demo.git`, 'main'], { cwd: work, stdio: 'pipe' });

  const files = await fetch(`${host.url}/api/v1/repos/${repo.id}/tree/files?branch=main`).then((r) => r.json());
  console.log('files on main:', files.result.map((f) => `${f.name} (${f.last_msg})`));
  rmSync(work, { recursive: true, force: true });
} finally {
  await host.close();
}
