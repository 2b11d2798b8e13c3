import { writeFile, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RepoHost } from '../../lib/index.js';
import { HIGHLIGHT_TIME_LIMIT_MS } from '../../lib/highlight/index.js';
import { http, startHost, tempDir, type HttpResult } from '../helpers/host.js';
import { newRepo, newUser, type TestUser } from '../helpers/api.js';
import { git, remoteUrl } from '../helpers/git-cli.js';

/**
 * Issue 38: a value a user chooses (a file name, a JSON key, a query word, a path segment) is data, never a key that
 * reaches Object.prototype. These are the names that would: every route of the host is sent them as path segments,
 * query keys and values, JSON and form keys and values; files, branches and tags with those names are pushed and
 * every page family shows them. Nothing may answer 5xx, leak a built-in (`function Object() { [native code] }`), or
 * end the process (a highlighter job that could not be sent killed it from a timer five seconds later).
 */
const BUILTINS = ['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', 'valueOf'] as const;
/** Fields that routes read, each given a built-in name as its value (beside the built-in names as keys). */
const FIELDS = [
  'name', 'title', 'body', 'text', 'description', 'state', 'status', 'conclusion', 'context', 'ref', 'sha', 'head', 'base', 'event',
  'permission', 'labels', 'assignees', 'reviewers', 'path', 'message', 'content', 'branch', 'tag_name', 'target_commitish', 'environment',
  'sort', 'direction', 'filter', 'visibility', 'merge_method', 'key', 'url', 'content_type', 'events', 'kind', 'reason', 'lock_reason',
  'color', 'side', 'commit_id', 'username', 'email', 'password', 'q', 'type', 'affiliation', 'task', 'payload', 'event_type', 'commit_hash',
];
/** The ids in paths: given 1 (things that exist) in one pass, built-in names in the others. */
const NUMERIC_PARAM = /^(?:number|id|.*_id)$/;
/** Routes that end the session, the account or the repository the rest of the sweep works in: sent last. */
const ENDS_THE_SETUP = /\/(?:rename|delete|logout|revoke|password|transfer)(?:\/|$)|\/settings\/(?:sessions|api-tokens)/;

interface Route {
  method: string;
  route: string;
}

/** `route` with its parameters filled: the owner and repository given, `value` for names, `ids` for ids. */
function pathOf(route: string, place: { owner: string; repo: string }, value: string, ids: string): string {
  return route
    .replace(/:owner\b/g, place.owner)
    .replace(/:repo\b/g, place.repo)
    .replace(/\*\*:\w+|:(\w+)/g, (whole, name: string | undefined) => {
      if (whole.startsWith('**')) return `main/${encodeURIComponent(value)}`;
      return encodeURIComponent(name && NUMERIC_PARAM.test(name) ? ids : value);
    });
}

function jsonBody(value: string): string {
  // Written by hand: JSON.stringify of an object literal cannot carry an own "__proto__" key.
  const builtins = BUILTINS.map((name) => `${JSON.stringify(name)}: ${JSON.stringify({ [value === '__proto__' ? 'x' : value]: value, admin: true })}`);
  const fields = FIELDS.map((field) => `${JSON.stringify(field)}: ${JSON.stringify(value)}`);
  return `{${[...builtins, ...fields].join(', ')}}`;
}

function formBody(value: string): string {
  return [...BUILTINS, ...FIELDS].map((field) => `${encodeURIComponent(field)}=${encodeURIComponent(value)}`).join('&');
}

function queryOf(value: string): string {
  return [...BUILTINS, 'state', 'sort', 'direction', 'filter', 'ref', 'status', 'conclusion', 'event', 'labels', 'q', 'per_page', 'page', 'since']
    .map((key) => `${encodeURIComponent(key)}=${encodeURIComponent(value)}`)
    .join('&');
}

/** An answer that must not be: a server error, or a built-in function's text leaked into the answer. */
function failureOf(label: string, result: HttpResult): string | undefined {
  if (result.status >= 500) return `${label}: ${result.status} ${result.text.slice(0, 200)}`;
  const leaked = /\[native code\]|function Object\(\)/;
  const headers = JSON.stringify(result.headers);
  if (leaked.test(result.text) || leaked.test(headers)) return `${label}: a built-in leaked into the answer (${headers.slice(0, 200)})`;
  return undefined;
}

describe('names of JavaScript built-ins chosen by users (issue 38)', () => {
  let host: RepoHost;
  let alice: TestUser;
  let routes: Route[];
  /** Every file name the pushed commits hold. */
  const files = BUILTINS.flatMap((name) => [name, `x.${name}`, `${name}.js`, `dir.${name}/${name}.ts`]);
  const auth = () => ({ authorization: `token ${alice.token}`, cookie: `token=${alice.session}` });

  beforeAll(async () => {
    host = await startHost();
    alice = await newUser(host, 'alice');
    await newUser(host, 'bob');
    await newRepo(host, alice, 'project');
    // An account and a repository named after built-ins, for the sweep's paths.
    await newRepo(host, await newUser(host, 'constructor'), 'toString');
    const work = await tempDir('repohost-builtins-');
    try {
      const dir = work.path;
      const commitAll = async (content: string, message: string) => {
        for (const file of files) {
          await mkdir(join(dir, file, '..'), { recursive: true });
          await writeFile(join(dir, file), `${content} ${file}\nconst value = { key: '${file}' };\n`);
        }
        await git(dir, ['add', '.'], dir);
        await git(dir, ['commit', '-q', '-m', message], dir);
      };
      await git(dir, ['init', '-q', '-b', 'main', '.'], dir);
      await commitAll('first', 'Files named after built-ins');
      // A branch and a tag per name, the branch one commit ahead so its comparison and pull request have a diff.
      await git(dir, ['checkout', '-q', '-b', 'constructor'], dir);
      await commitAll('second', 'Change every file');
      for (const name of BUILTINS) if (name !== 'constructor') await git(dir, ['branch', name], dir);
      for (const name of BUILTINS) await git(dir, ['tag', `v-${name}`], dir);
      await git(dir, ['push', '-q', remoteUrl(host, 'alice', alice.token, 'project'), '--all'], dir);
      await git(dir, ['push', '-q', remoteUrl(host, 'alice', alice.token, 'project'), '--tags'], dir);
    } finally {
      await work.cleanup();
    }
    const pull = await http(`${host.url}/api/v3/repos/alice/project/pulls`, { headers: auth(), json: { title: 'From constructor', head: 'constructor', base: 'main' } });
    expect(pull.status, pull.text).toBe(201);
    // Loads the groups mounted on first use, so that their routes are in the list below.
    await http(`${host.url}/api/v3/meta`);
    routes = (host.app as unknown as { '~routes': Route[] })['~routes'].filter((route) => route.method);
  });
  afterAll(() => host?.close());

  /** The host answers, and went on answering past the time a highlighting job may take. */
  async function expectAlive(): Promise<void> {
    await new Promise((resolve) => setTimeout(resolve, HIGHLIGHT_TIME_LIMIT_MS + 1000));
    expect((await http(`${host.url}/api/v1/users/alice`)).status).toBe(200);
  }

  it('shows every page family of files, branches and tags named after built-ins, anonymously and signed in', async () => {
    const commit = (await http(`${host.url}/api/v3/repos/alice/project/commits/constructor`)).json.sha as string;
    expect(commit).toMatch(/^[0-9a-f]{40}$/);
    const pages = [
      '/alice/project', `/alice/project/commit/${commit}`, '/alice/project/compare/main...constructor', '/alice/project/pulls/1',
      '/alice/project/pulls/1/files', '/alice/project/pulls/1/commits', '/alice/project/branches', '/alice/project/tags',
      '/alice/project/releases', '/alice/project/search?q=constructor', '/alice/project/archive/constructor.zip',
      ...BUILTINS.flatMap((name) => [`/alice/project/src/branch/${name}`, `/alice/project/commits/branch/${name}`, `/alice/project/src/tag/v-${name}`]),
      ...files.flatMap((file) =>
        ['src', 'raw', 'blame', 'commits', 'media'].flatMap((kind) => [`/alice/project/${kind}/branch/main/${file}`, `/alice/project/${kind}/branch/constructor/${file}`]),
      ),
    ];
    const failures: string[] = [];
    for (const page of pages) {
      for (const headers of [{}, { cookie: `token=${alice.session}` }] as Record<string, string>[]) {
        const result = await http(`${host.url}${page}`, { headers: { accept: 'text/html', ...headers } });
        const failure = failureOf(`GET ${page}`, result) ?? (result.status === 200 ? undefined : `GET ${page}: ${result.status}`);
        if (failure) failures.push(failure);
      }
    }
    expect(failures).toEqual([]);
    await expectAlive();
  });

  it('serves raw files named after built-ins with a content type of their own, never a function', async () => {
    for (const name of BUILTINS) {
      const raw = await http(`${host.url}/alice/project/raw/branch/main/x.${name}`);
      expect(raw.status).toBe(200);
      expect(raw.headers['content-type']).toMatch(/^text\/plain; charset=utf-8$/);
      const contents = await http(`${host.url}/api/v3/repos/alice/project/contents/x.${name}`, { headers: { accept: 'application/vnd.github.raw' } });
      expect(contents.status).toBe(200);
      expect(String(contents.headers['content-type'])).not.toMatch(/function/);
    }
  });

  it('takes a CI report whose status word is a built-in\'s name as any unknown word (an error status), and refuses it as a review\'s event', async () => {
    const project = (await http(`${host.url}/api/v1/repos/alice/project`)).json as { id: number };
    const commit = (await http(`${host.url}/api/v3/repos/alice/project/commits/main`)).json.sha as string;
    const carol = { authorization: `token ${(await newUser(host, 'carol')).token}` };
    for (const word of BUILTINS) {
      const report = await http(`${host.url}/api/v1/ci/status`, { headers: auth(), json: { run_id: `run-${word}`, repo_id: String(project.id), commit_hash: commit, branch: 'main', status: word } });
      // A status word starts with a letter: '__proto__' is not one.
      expect(report.status, report.text).toBe(word === '__proto__' ? 400 : 200);
      const review = await http(`${host.url}/api/v3/repos/alice/project/pulls/1/reviews`, { headers: carol, json: { event: word, body: 'x' } });
      expect(review.status, review.text).toBe(422);
    }
    const statuses = (await http(`${host.url}/api/v3/repos/alice/project/commits/${commit}/statuses`)).json as Array<{ state: string; description: string }>;
    expect(statuses.map((status) => [status.state, status.description]).sort()).toEqual(
      BUILTINS.filter((word) => word !== '__proto__').map((word) => ['error', `CI run run-${word} reported '${word}'`]).sort(),
    );
    expect((await http(`${host.url}/api/v3/repos/alice/project/pulls/1/reviews`)).json).toEqual([]);
  });

  it('answers every route sent built-in names as path segments, query and body keys and values without 5xx', async () => {
    expect(routes.length).toBeGreaterThan(300);
    const order = (route: Route) => (route.method === 'DELETE' || ENDS_THE_SETUP.test(route.route) ? 2 : route.method === 'GET' ? 0 : 1);
    const sorted = [...routes].sort((a, b) => order(a) - order(b));
    const failures: string[] = [];
    const places = [{ owner: 'alice', repo: 'project' }, { owner: 'constructor', repo: 'toString' }];
    for (const route of sorted) {
      for (const value of BUILTINS) {
        for (const [ids, place] of [['1', places[0]!], [value, places[0]!], ['1', places[1]!]] as const) {
          const path = `${pathOf(route.route, place, value, ids)}?${queryOf(value)}`;
          const api = route.route.startsWith('/api/');
          const body = route.method === 'GET' || route.method === 'HEAD' ? undefined : api ? jsonBody(value) : formBody(value);
          const type = api ? 'application/json' : 'application/x-www-form-urlencoded';
          const result = await http(`${host.url}${path}`, { method: route.method, headers: { ...auth(), ...(body ? { 'content-type': type } : {}) }, body });
          const failure = failureOf(`${route.method} ${path.slice(0, 160)}`, result);
          if (failure) failures.push(failure);
        }
      }
    }
    expect(failures).toEqual([]);
    await expectAlive();
    // Some 6,000 requests, one after another: 34 s alone on PostgreSQL, more beside another file in CI.
  }, 300_000);
});
