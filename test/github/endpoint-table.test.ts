import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openHostCore, type HostCore } from '../../lib/host.js';
import { createApp } from '../../lib/http/app.js';

/** `METHOD /path` in GitHub's notation (`{owner}`), as README's table lists them. */
function documented(readme: string): string[] {
  const table = /<!-- endpoints:start -->([\s\S]*?)<!-- endpoints:end -->/.exec(readme)?.[1] ?? '';
  return [...table.matchAll(/`((?:GET|POST|PUT|PATCH|DELETE) \/[^`]*)`/g)].map((match) => match[1]!).sort();
}

/** A route of the app in the same notation: `/api/v3` dropped, `:name` and `**:name` as `{name}`. */
function notation(method: string, route: string): string {
  return `${method} ${route.replace(/^\/api\/v3(?=\/|$)/, '').replace(/\*\*:(\w+)|:(\w+)/g, (_, rest: string, name: string) => `{${rest ?? name}}`) || '/'}`;
}

// Issue 20: the table of GitHub endpoints (docs/github-api.md since issue 40) is the routes the app serves, no more
// and no less.
/** The protection parts each method of the branch route serves (lib/github-api/branch-protection.ts). */
const PROTECTION_PARTS = {
  GET: ['', '/required_status_checks', '/required_status_checks/contexts', '/enforce_admins', '/required_pull_request_reviews'],
  PUT: ['', '/required_status_checks/contexts'],
  POST: ['/required_status_checks/contexts', '/enforce_admins'],
  PATCH: ['/required_status_checks', '/required_pull_request_reviews'],
  DELETE: ['', '/required_status_checks', '/required_status_checks/contexts', '/enforce_admins', '/required_pull_request_reviews'],
};

describe("docs/github-api.md's table of /api/v3 endpoints", () => {
  let core: HostCore;
  let routes: string[];

  beforeAll(async () => {
    core = await openHostCore({ bcryptCost: 4 });
    core.setBaseUrl('http://repohost.test');
    const app = createApp(core.ctx, () => undefined);
    // The GitHub API is mounted on the first request that may need it.
    await app.fetch(new Request('http://repohost.test/api/v3/'));
    const all = (app as unknown as { '~routes': Array<{ method: string; route: string }> })['~routes'];
    routes = all.filter(({ route }) => /^\/api\/(?:v3\/|uploads\/)/.test(route)).map(({ method, route }) => notation(method, route));
  });

  afterAll(async () => {
    await core?.close();
  });

  it('lists every route, and only routes', async () => {
    const readme = await readFile(join(import.meta.dirname, '..', '..', 'docs', 'github-api.md'), 'utf8');
    // The branch route answers `/branches/{branch}/protection` and its parts too (branch names hold slashes).
    const served = new Set(
      routes.flatMap((route) => {
        const branch = /^(GET|PUT|POST|PATCH|DELETE) (.*\/branches\/\{branch\})$/.exec(route);
        if (!branch) return [route];
        const [, method, path] = branch as unknown as [string, keyof typeof PROTECTION_PARTS, string];
        return [...(method === 'GET' ? [route] : []), ...PROTECTION_PARTS[method].map((part) => `${method} ${path}/protection${part}`)];
      }),
    );
    expect(documented(readme)).toEqual([...served].sort());
  });
});
