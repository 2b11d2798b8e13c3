import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// Issue 23: a host started from code loads the page, upload and GitHub API modules only once a request needs them.
// Checked on the built package (the bundle in dist/bundle/, as `npm test` builds it) in a child process whose loader
// hook records every module loaded (fixtures/record-modules.mjs), plus CommonJS's require cache: a static import put
// back anywhere on the start-up path shows up here. A chunk of the bundle stands for the compiled modules it holds
// (dist/bundle/modules.json, written by the build), so the patterns below name modules of dist/ as tsc writes them.

const fixtures = fileURLToPath(new URL('./fixtures/', import.meta.url));
const root = fileURLToPath(new URL('../../', import.meta.url));
const chunks = JSON.parse(readFileSync(join(root, 'dist/bundle/modules.json'), 'utf8')) as Record<string, string[]>;

/** Loaded URLs with each chunk of the bundle replaced by the modules it holds. */
const unbundled = (urls: string[]) =>
  urls.flatMap((url) => {
    const chunk = /\/dist\/bundle\/([^/]+\.js)$/.exec(url)?.[1];
    return chunk === undefined ? [url] : chunks[chunk]!.map((module) => pathToFileURL(join(root, module)).href);
  });

/** What no host may load before a request needs it, by kind. */
const PAGES = [/\/dist\/http\/pages\//, /\/dist\/http\/routes\/pages\//, /\/dist\/http\/routes\/web\.js$/, /\/dist\/http\/assets\//, /\/node_modules\/markdown-it\//];
const UPLOADS = [/\/node_modules\/formidable\//];
const GITHUB_API = [/\/dist\/github-api\//];
/** What sends webhook deliveries: loaded by the first delivery (none is made here). */
const DELIVERY = [/\/dist\/webhooks\/send\.js$/, /\/dist\/webhooks\/request\.js$/];
/** Never needed by a host started from code on ':memory:' (listhen is not used at all any more; SSH only with sshPort). */
const NEVER = [/\/node_modules\/ssh2\//, /\/dist\/ssh\/server\.js$/, /\/node_modules\/listhen\//, /\/node_modules\/node-forge\//, /\/node_modules\/highlight\.js\//, /\/dist\/admin\/channel-server\.js$/];

const matching = (modules: string[], patterns: RegExp[]) => modules.filter((url) => patterns.some((pattern) => pattern.test(url)));

describe('modules a host loads on demand', () => {
  let dir: string;
  let steps: Map<string, string[]>;
  /** What CommonJS resolved up to each step (require and require.resolve). */
  let resolvedAt: Map<string, string[]>;
  /** What passed the ESM loader up to each step (bundle chunks as they are). */
  let importedAt: Map<string, string[]>;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'repohost-lazy-'));
    const record = join(dir, 'modules.txt');
    const { stdout } = await promisify(execFile)(process.execPath, ['--import', join(fixtures, 'record-modules.mjs'), join(fixtures, 'lazy-host.mjs')], {
      env: { ...process.env, RECORD_MODULES: record },
      timeout: 50_000,
    });
    const lines = stdout
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { step: string; modules: string[]; imported: string[]; resolved: string[] });
    steps = new Map(lines.map(({ step, modules }) => [step, unbundled(modules)]));
    resolvedAt = new Map(lines.map(({ step, resolved }) => [step, resolved]));
    importedAt = new Map(lines.map(({ step, imported }) => [step, imported]));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('records what is loaded (the check itself works)', () => {
    const first = steps.get('git and spec API')!;
    expect(Object.keys(chunks)).toContain('index.js');
    expect(first.some((url) => url.endsWith('/dist/http/app.js'))).toBe(true);
    expect(first.some((url) => url.endsWith('/dist/http/routes/api/avatar.js'))).toBe(true);
    expect(first.some((url) => /\/node_modules\/h3\//.test(url))).toBe(true);
  });

  it('serves git and the spec API without the page, upload, GitHub API or webhook delivery modules', () => {
    const modules = steps.get('git and spec API')!;
    expect(matching(modules, [...PAGES, ...UPLOADS, ...GITHUB_API, ...DELIVERY, ...NEVER])).toEqual([]);
  });

  it('resolves none of highlight.js until something is highlighted (its 25 paths cost ~10 ms of a first start)', () => {
    const highlightJs = (step: string) => resolvedAt.get(step)!.filter((request) => request.startsWith('highlight.js'));
    expect(resolvedAt.get('git and spec API')!.length).toBeGreaterThan(0);
    expect(highlightJs('git and spec API')).toEqual([]);
    expect(highlightJs('GitHub API')).toEqual([]);
  });

  it('requires sql.js rather than importing it (an import has the ESM loader scan its 47 KB for export names, ~15 ms)', () => {
    const sqlJs = [/\/node_modules\/sql\.js\//];
    expect(matching(steps.get('git and spec API')!, sqlJs)).not.toEqual([]);
    expect(matching(importedAt.get('git and spec API')!, sqlJs)).toEqual([]);
  });

  it('loads formidable with the first upload, and nothing of the pages or the GitHub API', () => {
    const modules = steps.get('upload')!;
    expect(matching(modules, UPLOADS)).not.toEqual([]);
    expect(matching(modules, [...PAGES, ...GITHUB_API, ...NEVER])).toEqual([]);
  });

  it('loads the GitHub API and the pages once a request needs them', () => {
    expect(matching(steps.get('GitHub API')!, GITHUB_API)).not.toEqual([]);
    const page = steps.get('page')!;
    expect(matching(page, PAGES.slice(0, 2))).not.toEqual([]);
    expect(matching(page, [/\/node_modules\/markdown-it\//])).not.toEqual([]);
    expect(matching(page, NEVER)).toEqual([]);
  });
});
