import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Pool } from 'undici';
const { createRepoHost } = await import('/work/main/dist/index.js');
const { Store } = await import('/work/main/dist/store/database.js');
const dir = await mkdtemp(join(tmpdir(), 'prof-'));
const dbPath = join(dir, 'l.db');
let host = await createRepoHost({ dbPath, bcryptCost: 4 });
await host.admin.createUser({ username: 'bench', email: 'bench@example.com', password: 'password123' });
await host.admin.createRepo({ owner: 'bench', name: 'big' });
await host.close();
const store = await Store.open(dbPath, { snapshotThresholdBytes: 1 << 30 });
const { repoId, userId } = await store.get("SELECT r.id AS repoId, u.id AS userId FROM repositories r JOIN users u ON u.id = r.owner_id WHERE r.name = 'big'");
await store.write(async (tx) => {
  for (let number = 1; number <= 1000; number++) {
    const now = new Date(1_700_000_000_000 + number * 1000).toISOString();
    await tx.run('INSERT INTO issues (repo_id, number, author_id, title, body, status, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)', [repoId, number, userId, `Issue ${number}`, `Body ${number}`, number % 3 ? 'open' : 'closed', now, now]);
  }
  await tx.run("DELETE FROM list_counts WHERE repo_id = ? AND kind = 'issue'", [repoId]);
  await tx.run("INSERT INTO list_counts (repo_id, kind, status, n) SELECT repo_id, 'issue', status, COUNT(*) FROM issues WHERE repo_id = ? GROUP BY repo_id, status", [repoId]);
  await tx.run('UPDATE repositories SET next_number = ? WHERE id = ?', [1001, repoId]);
});
await store.close();
host = await createRepoHost({ port: 0, dbPath, bcryptCost: 4 });
const pool = new Pool(host.url, { connections: 1 });
const path = process.env.P === 'v1' ? '/api/v1/repos/bench/big/issues?limit=30' : '/api/v3/repos/bench/big/issues?per_page=30';
const N = Number(process.env.N ?? 3000);
const t = performance.now();
for (let i = 0; i < N; i++) { const r = await pool.request({ path, method: 'GET' }); await r.body.text(); }
console.log(path, (N * 1000 / (performance.now() - t)).toFixed(0), 'req/s');
await pool.close(); await host.close();
