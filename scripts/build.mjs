// The steps of `npm run build` after `tsc` (issue 23: start-up):
// 1. the fresh database image (lib/store/fresh-image.ts), so that a new database opens bytes rather than running the
//    schema's statements on a cold WebAssembly engine;
// 2. the bundle the package runs from (dist/bundle/): the ~190 modules of dist/ in a few files, since Node's ESM
//    loader pays a resolve, a read and a compile for each module. What is imported dynamically (pages, the GitHub
//    API, uploads, deliveries, SSH, PostgreSQL) stays in chunks of its own, loaded on demand as before, and
//    dist/bundle/modules.json names the modules of each chunk (test/package/lazy-modules.test.ts checks what a host
//    loads by them). Packages stay imports: they are the package's dependencies. dist/ keeps the compiled tree, for
//    the types and the tests and benchmarks that import single modules.
import { readdir, rm, writeFile } from 'node:fs/promises';
import { isAbsolute, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'rolldown';
import { writeFreshImage } from '../dist/store/fresh-image.js';

// The image of this schema version only: those of older versions left in dist/ would otherwise be packed too.
const image = await writeFreshImage();
for (const name of await readdir(new URL('../dist', import.meta.url))) {
  if (/^fresh-image-v\d+\.sqlite$/.test(name) && !image.endsWith(name)) await rm(new URL(`../dist/${name}`, import.meta.url));
}

const root = fileURLToPath(new URL('..', import.meta.url));
const out = fileURLToPath(new URL('../dist/bundle', import.meta.url));
await rm(out, { recursive: true, force: true });
const { output } = await build({
  // node-support: what the command checks before it loads anything else (bin/repohost).
  input: { index: 'dist/index.js', cli: 'dist/cli/index.js', 'node-support': 'dist/node-support.js' },
  platform: 'node',
  // The code stays as tsc wrote it: no lowering for syntax Node 22 has.
  transform: { target: 'node22' },
  // Bare specifiers (packages, node: builtins) stay imports; our modules are bundled, and the bundler's own helpers.
  external: (id) => !id.startsWith('.') && !isAbsolute(id) && !id.startsWith('@oxc-project/runtime'),
  output: { dir: out, format: 'esm', chunkFileNames: '[name]-[hash].js' },
  logLevel: 'warn',
});
const modules = Object.fromEntries(
  output.filter((item) => item.type === 'chunk').map((chunk) => [chunk.fileName, chunk.moduleIds.filter((id) => id.startsWith(root)).map((id) => relative(root, id))]),
);
await writeFile(`${out}/modules.json`, `${JSON.stringify(modules, null, 1)}\n`);
