import http from 'node:http';
import { mkdtemp } from 'node:fs/promises'; import { tmpdir } from 'node:os'; import { join } from 'node:path';
const { createRepoHost } = await import('/work/main/dist/index.js');
const { launchProcess } = await import('/work/main/dist/git/launcher/index.js');
const { httpBackendServer } = await import('/work/main/test/bench/http-backend.mjs');
const { git, startLauncher, timed } = await import('/work/main/test/bench/synthetic-repo.mjs');
const temp = await mkdtemp(join(tmpdir(), 'pt-'));
const rel = await startLauncher();
const host = await createRepoHost({ port: 0, dbPath: join(temp, 'b.db'), bcryptCost: 4 });
const server = httpBackendServer(join(temp, 'backend'), { launch: launchProcess, askCredentials: true });
await new Promise((r) => server.listen(0, '127.0.0.1', r));
const backendUrl = `http://127.0.0.1:${server.address().port}`;
const stats = {};
function proxy(name, target) {
  const t = new URL(target);
  const s = http.createServer((req, res) => {
    const began = performance.now();
    const key = `${name} ${req.method} ${req.url.replace(/\?.*/, '').replace(/.*\.git/, '')}`;
    const up = http.request({ host: t.hostname, port: t.port, method: req.method, path: req.url, headers: req.headers }, (r) => {
      res.writeHead(r.statusCode, r.headers); const first = performance.now(); r.pipe(res);
      r.on('end', () => { (stats[key] ??= []).push([first - began, performance.now() - began]); });
    });
    req.pipe(up);
  });
  return new Promise((r) => s.listen(0, '127.0.0.1', () => r(`http://127.0.0.1:${s.address().port}`)));
}
const hp = await proxy('host', host.url), bp = await proxy('backend', backendUrl);
await host.admin.createUser({ username: 'bench', email: 'bench@example.com', password: 'password123' });
const token = await host.admin.createToken('bench');
await host.admin.createRepo({ owner: 'bench', name: 'one' });
await git(['init', '-q', '--bare', join(temp, 'backend', 'one.git')]);
const remotes = { host: `${hp.replace('//', `//bench:${token}@`)}/bench/one.git`, backend: `${bp.replace('//', '//bench:secret@')}/one.git` };
const work = join(temp, 'work');
await git(['init', '-q', '-b', 'main', work]);
const commit = (i) => git(['-C', work, '-c', 'user.name=B', '-c', 'user.email=b@e.com', 'commit', '-q', '--allow-empty', '-m', `c${i}`]);
await commit(0);
for (const r of Object.values(remotes)) await git(['-C', work, 'push', '-q', r, 'main']);
for (const k of Object.keys(stats)) delete stats[k];
const total = { host: [], backend: [] };
for (let i = 0; i < Number(process.env.RUNS ?? 30); i++) { await commit(i + 1); for (const side of i % 2 ? ['host', 'backend'] : ['backend', 'host']) total[side].push(await timed(() => git(['-C', work, 'push', '-q', remotes[side], 'main']))); await host.idle(); }
const med = (a) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)];
for (const [k, v] of Object.entries(stats).sort()) console.log(k.padEnd(50), v.length, 'headers', med(v.map((x) => x[0])).toFixed(2), 'end', med(v.map((x) => x[1])).toFixed(2));
console.log('total host', med(total.host).toFixed(2), 'backend', med(total.backend).toFixed(2));
for (const [k, v] of Object.entries(globalThis.TS ?? {})) console.log(k.padEnd(10), v.length, med(v.slice(2)).toFixed(2));
await host.close(); server.close(); await rel(); process.exit(0);
