// usage: node plan.mjs  (makes a db like the bench and runs EXPLAIN QUERY PLAN + timings)
import { StatementRunner } from '/work/main/dist/store/sqlite.js';
const { Store } = await import('/work/main/dist/store/database.js');
const { createRepoHost } = await import('/work/main/dist/index.js');
import { mkdtemp, readFile } from 'node:fs/promises'; import { tmpdir } from 'node:os'; import { join } from 'node:path';
const sqls = new Map();
const orig = StatementRunner.prototype.all;
StatementRunner.prototype.all = function (sql, params) { if (!sqls.has(sql)) sqls.set(sql, params); return orig.call(this, sql, params); };
const dir = await mkdtemp(join(tmpdir(), 'plan-')); const dbPath = join(dir, 'l.db');
const host = await createRepoHost({ dbPath, port: 0, bcryptCost: 4 });
await host.admin.createUser({ username: 'bench', email: 'b@example.com', password: 'password123' });
await host.admin.createRepo({ owner: 'bench', name: 'big' });
for (let i = 0; i < 40; i++) await fetch(`${host.url}/api/v1/repos/bench/big/issues`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: 'Basic ' + Buffer.from('bench:password123').toString('base64') }, body: JSON.stringify({ title: 'x' + i }) });
sqls.clear();
await fetch(`${host.url}/api/v3/repos/bench/big/issues?per_page=30`).then((r) => r.text());
const runner = [...sqls.keys()];
const db = host.__db ?? null;
await host.close();
const { loadSqlJs } = await import('/work/main/dist/store/sqlite.js');
const SQL = await loadSqlJs();
const d = new SQL.Database(await readFile(dbPath));
for (const [sql, params] of sqls) {
  console.log('\n' + sql.replace(/\s+/g, ' ').slice(0, 300));
  const plan = d.exec('EXPLAIN QUERY PLAN ' + sql, params);
  for (const row of plan[0]?.values ?? []) console.log('   ', row[3]);
  const st = d.prepare(sql); const t = performance.now(); for (let i = 0; i < 2000; i++) { st.bind(params); while (st.step()) st.get(); st.reset(); } console.log('   time', ((performance.now() - t) / 2 ).toFixed(1), 'us');
}
