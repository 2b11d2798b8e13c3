import { mkdtemp } from 'node:fs/promises'; import { tmpdir } from 'node:os'; import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
const { createRepoHost } = await import('/work/main/dist/index.js');
const { launchProcess } = await import('/work/main/dist/git/launcher/index.js');
const { httpBackendServer } = await import('/work/main/test/bench/http-backend.mjs');
const { git, startLauncher, env } = await import('/work/main/test/bench/synthetic-repo.mjs');
const temp = await mkdtemp(join(tmpdir(), 'ct-'));
const rel = await startLauncher();
const host = await createRepoHost({ port: 0, dbPath: join(temp, 'b.db'), bcryptCost: 4 });
const server = httpBackendServer(join(temp, 'backend'), { launch: launchProcess, askCredentials: true });
await new Promise((r) => server.listen(0, '127.0.0.1', r));
const backendUrl = `http://127.0.0.1:${server.address().port}`;
await host.admin.createUser({ username: 'bench', email: 'bench@example.com', password: 'password123' });
const token = await host.admin.createToken('bench');
await host.admin.createRepo({ owner: 'bench', name: 'one' });
await git(['init', '-q', '--bare', join(temp, 'backend', 'one.git')]);
const remotes = { host: `${host.url.replace('//', `//bench:${token}@`)}/bench/one.git`, backend: `${backendUrl.replace('//', '//bench:secret@')}/one.git` };
const work = join(temp, 'work');
await git(['init', '-q', '-b', 'main', work]);
const commit = (i) => git(['-C', work, '-c', 'user.name=B', '-c', 'user.email=b@e.com', 'commit', '-q', '--allow-empty', '-m', `c${i}`]);
await commit(0);
for (const r of Object.values(remotes)) await git(['-C', work, 'push', '-q', r, 'main']);
for (let i = 1; i < 6; i++) { await commit(i); for (const side of ['host', 'backend']) { 
  const { spawn } = await import('node:child_process');
  const out = await new Promise((res) => { const c = spawn('git', ['-C', work, 'push', '-q', remotes[side], 'main'], { env: { ...env, GIT_TRACE2_PERF: `/tmp/ct-${side}-${i}` } }); c.on('exit', res); });
  await host.idle(); } }
await host.close(); server.close(); await rel(); process.exit(0);
