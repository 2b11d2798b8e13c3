const { StatementRunner } = await import('/work/main/dist/store/sqlite.js');
const orig = StatementRunner.prototype.all;
const t = new Map();
StatementRunner.prototype.all = function (sql, params) { const s = performance.now(); try { return orig.call(this, sql, params); } finally { const e = performance.now() - s; const k = sql.replace(/\s+/g, ' ').slice(0, 150); const v = t.get(k) ?? [0, 0]; v[0] += e; v[1]++; t.set(k, v); } };
process.on('exit', () => { for (const [k, [ms, n]] of [...t].sort((a, b) => b[1][0] - a[1][0]).slice(0, 25)) console.log(ms.toFixed(0).padStart(6), 'ms', String(n).padStart(6), (1000 * ms / n).toFixed(1).padStart(7) + 'us', k); });
await import('./issue-prof.mjs');
