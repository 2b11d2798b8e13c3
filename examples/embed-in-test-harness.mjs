// Start a throwaway forge inside a test harness, push to it with the real git client, await the push event, and read
// the push back over the API.
// Run after `npm install` (which builds dist/): node examples/embed-in-test-harness.mjs
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { createRepoHost } from 'repohost';

const host = await createRepoHost({ port: 0, dbPath: ':memory:', bcryptCost: 4 });
try {
  await host.admin.createUser({ username: 'alice', email: 'alice@example.com', password: 'correct-horse' });
  const token = await host.admin.createToken('alice', 'harness');
  const repo = await host.admin.createRepo({ owner: 'alice', name: 'demo' });

  const work = mkdtempSync(join(tmpdir(), 'repohost-example-'));
  // The server runs in this process: run git asynchronously (execFileSync would block the server it talks to).
  const git = (...args) => promisify(execFile)('git', args, { cwd: work, env: { ...process.env, GIT_TERMINAL_PROMPT: '0' } });
  await git('init', '-q', '-b', 'main');
  writeFileSync(join(work, 'README.md'), '# demo\n');
  await git('add', '.');
  await git('-c', 'user.name=Alice', '-c', 'user.email=alice@example.com', 'commit', '-qm', 'first commit');
  // Credentials travel in a header set through the environment, not in the URL or in arguments that `ps` shows.
  const auth = `Authorization: Basic ${Buffer.from(`alice:${token}`).toString('base64')}`;
  // Wait for the event instead of polling: start waiting before the push (its event is out before git returns).
  const pushed = host.events.waitFor('push', (event) => event.ref === 'refs/heads/main', { timeoutMs: 10_000 });
  await promisify(execFile)('git', ['push', '-q', `${host.url}/alice/demo.git`, 'main'], {
    cwd: work,
    env: { ...process.env, GIT_TERMINAL_PROMPT: '0', GIT_CONFIG_COUNT: '1', GIT_CONFIG_KEY_0: 'http.extraHeader', GIT_CONFIG_VALUE_0: auth },
  });

  const push = await pushed;
  console.log(`push event: ${push.ref} by ${push.pusher.name}, commits: ${push.commits.map((c) => c.message).join(', ')}`);

  const files = await fetch(`${host.url}/api/v1/repos/${repo.id}/tree/files?branch=main`).then((r) => r.json());
  console.log('files on main:', files.result.map((f) => `${f.name} (${f.last_msg})`));
  rmSync(work, { recursive: true, force: true });
} finally {
  await host.close();
}
