import { readFileSync, readdirSync } from 'node:fs';
const file = process.argv[2];
const p = JSON.parse(readFileSync(file));
const self = new Map(); const byId = new Map();
for (const n of p.nodes) byId.set(n.id, n);
const dt = new Map();
for (let i = 0; i < p.samples.length; i++) dt.set(p.samples[i], (dt.get(p.samples[i]) ?? 0) + (p.timeDeltas[i] ?? 0));
let total = 0;
for (const n of p.nodes) { const t = dt.get(n.id) ?? 0; total += t; const cf = n.callFrame; const key = `${cf.functionName || '(anon)'} ${cf.url.replace(/.*\/(node_modules|dist|lib)\//, '$1/')}:${cf.lineNumber}`; self.set(key, (self.get(key) ?? 0) + t); }
const rows = [...self].sort((a, b) => b[1] - a[1]).slice(0, Number(process.argv[3] ?? 40));
for (const [k, v] of rows) console.log((v / 1000).toFixed(0).padStart(7), 'ms', (100 * v / total).toFixed(1).padStart(5) + '%', k);
// inclusive by our files
const parent = new Map(); for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const incl = new Map();
for (const n of p.nodes) { const t = dt.get(n.id) ?? 0; if (!t) continue; const seen = new Set(); let id = n.id; while (id !== undefined) { const m = byId.get(id); const cf = m.callFrame; if (cf.url.includes('/dist/')) { const key = `${cf.functionName || '(anon)'} ${cf.url.replace(/.*\/dist\//, '')}:${cf.lineNumber}`; if (!seen.has(key)) { seen.add(key); incl.set(key, (incl.get(key) ?? 0) + t); } } id = parent.get(id); } }
console.log('--- inclusive (dist) ---');
for (const [k, v] of [...incl].sort((a, b) => b[1] - a[1]).slice(0, Number(process.argv[4] ?? 50))) console.log((v / 1000).toFixed(0).padStart(7), 'ms', (100 * v / total).toFixed(1).padStart(5) + '%', k);
