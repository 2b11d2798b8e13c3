const { Store } = await import('/work/main/dist/store/database.js');
import { mkdtemp } from 'node:fs/promises'; import { tmpdir } from 'node:os'; import { join } from 'node:path';
for (const kind of ['file', 'memory', 'file', 'memory']) {
  const dir = await mkdtemp(join(tmpdir(), 'w-'));
  const store = await Store.open(kind === 'file' ? join(dir, 'x.db') : join(dir, 'y.db'), kind === 'file' ? {} : { durable: false });
  const t = [];
  for (let i = 0; i < 200; i++) { const s = performance.now(); await store.write(async (tx) => { await tx.run("INSERT INTO repohost_meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value", ['k', String(i)]); }); t.push(performance.now() - s); }
  t.sort((a, b) => a - b); console.log(kind, 'median', t[100].toFixed(3), 'p90', t[180].toFixed(3));
  await store.close();
}
