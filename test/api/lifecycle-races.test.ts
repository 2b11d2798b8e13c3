import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RepoHost } from '../../lib/index.js';
import { newRepo, newUser, type TestUser } from '../helpers/api.js';
import { pushTwoBranches } from '../helpers/git-cli.js';
import { bearer, cookie, http, startHost, tempDir } from '../helpers/host.js';
import { Clone } from '../helpers/clone.js';
import { HookReceiver } from '../helpers/receiver.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('repository lifecycle under races (issue 7 points 1 and 5)', () => {
  let host: RepoHost;
  let alice: TestUser;

  beforeAll(async () => {
    host = await startHost();
    alice = await newUser(host, 'alice');
  });

  afterAll(async () => {
    await host?.close();
  });

  const folders = async () => (await readdir(join(host.options.dataDir, 'repositories', 'alice')).catch(() => [] as string[])).sort();
  const records = async () => ((await http(`${host.url}/api/v1/users/alice/repos?limit=100`, { headers: bearer(alice.token) })).json as Array<{ name: string }>).map((repo) => `${repo.name}.git`).sort();

  it('1: renames racing creates and deletes of the same names never lose a history, never answer 500, leave no orphan', async () => {
    const statuses = new Set<number>();
    for (let round = 0; round < 12; round++) {
      const from = `a${round}`;
      const to = `b${round}`;
      await newRepo(host, alice, from);
      const pushed = await pushTwoBranches(host, 'alice', alice.token, from);
      const jitter = () => sleep(Math.floor(Math.random() * 4));
      const [renamed, created, deleted] = await Promise.all([
        jitter().then(() => http(`${host.url}/api/v1/repos/alice/${from}`, { method: 'PATCH', headers: bearer(alice.token), json: { name: to } })),
        jitter().then(() => http(`${host.url}/new`, { headers: cookie(alice.session), form: { name: to, no_redirect: '1' } })),
        round % 3 === 0 ? jitter().then(() => http(`${host.url}/api/v1/repos/alice/${to}`, { method: 'DELETE', headers: bearer(alice.token) })) : undefined,
      ]);
      for (const result of [renamed, created, deleted]) if (result) statuses.add(result.status);
      if (renamed.status === 200) {
        // The renamed repository keeps its history wherever the create and delete landed.
        const count = await http(`${host.url}/api/v1/alice/${to}/feature/commits/count`, { headers: bearer(alice.token) });
        if (deleted?.status !== 204) expect(count.json).toEqual({ success: true, result: 2 });
        expect(created.status).toBe(409);
      } else {
        expect(renamed.status).toBe(409);
        const count = await http(`${host.url}/api/v1/alice/${from}/feature/commits/count`, { headers: bearer(alice.token) });
        expect(count.json).toEqual({ success: true, result: 2 });
      }
      expect(pushed.feature).toMatch(/^[0-9a-f]{40}$/);
      expect(await folders()).toEqual(await records());
    }
    expect([...statuses].filter((status) => status >= 500)).toEqual([]);
  });

  it('records a merge as git has it when a close or a change of base races it: merged, into the branch it moved', async () => {
    await host.admin.seedRepo({ owner: 'alice', name: 'merges' });
    const api = (method: string, path: string, json?: unknown) => http(`${host.url}/api/v3/repos/alice/merges${path}`, { method, headers: { authorization: `token ${alice.token}` }, json });
    const tip = async (branch: string) => (await api('GET', `/git/ref/heads/${branch}`)).json.object.sha as string;
    await api('POST', '/git/refs', { ref: 'refs/heads/other', sha: await tip('main') });
    for (let round = 0; round < 12; round++) {
      await api('POST', '/git/refs', { ref: `refs/heads/topic-${round}`, sha: await tip('main') });
      await api('PUT', `/contents/topic-${round}.txt`, { message: 'topic', content: 'eA==', branch: `topic-${round}` });
      const { number } = (await api('POST', '/pulls', { title: `Topic ${round}`, head: `topic-${round}`, base: 'main' })).json as { number: number };
      // Half the rounds close it, half move it to another base, a few milliseconds into the merge.
      const change = round % 2 ? { state: 'closed' } : { base: 'other' };
      const [merged, changed] = await Promise.all([api('PUT', `/pulls/${number}/merge`, { merge_method: 'merge' }), sleep(round % 6).then(() => api('PATCH', `/pulls/${number}`, change))]);
      expect([merged.status, changed.status], `round ${round}`).not.toContain(500);
      const pull = (await api('GET', `/pulls/${number}`)).json;
      if (merged.status === 200) {
        // The record says merged, with that commit, into the base the merge moved in git: main, or the other branch
        // when the change of base came first.
        expect(pull, `round ${round}`).toMatchObject({ merged: true, state: 'closed', merge_commit_sha: merged.json.sha });
        expect(await tip(pull.base.ref), `round ${round}: into ${pull.base.ref}`).toBe(merged.json.sha);
      } else {
        expect(pull.merged, `round ${round}: ${merged.status} ${merged.text}`).toBe(false);
      }
    }
    // The kept counts (a list's total) agree with the records.
    const all = (await api('GET', '/pulls?state=all&per_page=100')).json as Array<{ merged_at: string | null; state: string }>;
    for (const [status, expected] of [['merged', all.filter((pull) => pull.merged_at !== null).length], ['open', all.filter((pull) => pull.state === 'open').length]] as const) {
      const listed = await http(`${host.url}/api/v1/repos/alice/merges/pulls?status=${status}&limit=100`, { headers: bearer(alice.token) });
      expect([status, Number(listed.headers['x-total-count']), (listed.json as unknown[]).length]).toEqual([status, expected, expected]);
    }
  });

  it('answers writes through the API that race a rename or a delete with 404 or 409, never a 500 from git in a moved folder', async () => {
    const statuses = new Set<number>();
    for (let round = 0; round < 10; round++) {
      const name = `moving-${round}`;
      await host.admin.seedRepo({ owner: 'alice', name });
      const api = (method: string, path: string, json?: unknown) => http(`${host.url}/api/v3/repos/alice/${name}${path}`, { method, headers: { authorization: `token ${alice.token}` }, json });
      const main = (await api('GET', '/git/ref/heads/main')).json.object.sha as string;
      const answers = await Promise.all([
        api('PUT', '/contents/file.txt', { message: 'm', content: 'eA==', branch: 'main' }),
        api('POST', '/git/refs', { ref: 'refs/heads/next', sha: main }),
        api('POST', '/git/blobs', { content: 'x' }),
        api('POST', '/git/trees', { tree: [{ path: 'a.txt', mode: '100644', type: 'blob', content: 'a' }] }),
        api('POST', '/releases', { tag_name: 'v1', target_commitish: 'main' }),
        sleep(round % 5).then(() => (round % 2 ? api('PATCH', '', { name: `moved-${round}` }) : api('DELETE', ''))),
      ]);
      for (const answer of answers) statuses.add(answer.status);
      expect(answers.map((answer) => answer.status).filter((status) => status >= 500), `round ${round}: ${answers.map((answer) => `${answer.status} ${answer.text.slice(0, 100)}`).join(' | ')}`).toEqual([]);
    }
    // Both sides happen: writes that won, and renames or deletes that came first.
    expect([...statuses].some((status) => status === 404 || status === 409)).toBe(true);
  });

  it('tells of a branch deleted once, when two pushes and the API delete it at the same time', async () => {
    // git answers "ok" to a pushed delete of a ref that is already gone ("deleting a non-existent ref").
    const receiver = await HookReceiver.start();
    const hooked = await startHost({ allowLocalNetwork: true });
    const work = await tempDir();
    try {
      const owner = await newUser(hooked, 'owner');
      await hooked.admin.seedRepo({ owner: 'owner', name: 'deletes' });
      const api = (method: string, path: string, json?: unknown) => http(`${hooked.url}/api/v3/repos/owner/deletes${path}`, { method, headers: { authorization: `token ${owner.token}` }, json });
      await api('POST', '/hooks', { config: { url: `${receiver.url}/hook`, content_type: 'json' }, events: ['push', 'delete'] });
      const main = (await api('GET', '/git/ref/heads/main')).json.object.sha as string;
      const clones = [await Clone.of(hooked, owner, 'deletes', join(work.path, 'one'), work.path), await Clone.of(hooked, owner, 'deletes', join(work.path, 'two'), work.path)];
      const rounds = 10;
      for (let round = 0; round < rounds; round++) {
        expect((await api('POST', '/git/refs', { ref: 'refs/heads/doomed', sha: main })).status).toBe(201);
        const outcomes = await Promise.all([
          ...clones.map((clone) => clone.git('push', '-q', 'origin', ':refs/heads/doomed').then(() => 'deleted', () => 'refused')),
          api('DELETE', '/git/refs/heads/doomed').then((answer) => (answer.status === 204 ? 'deleted' : String(answer.status))),
        ]);
        expect(outcomes, `round ${round}`).toContain('deleted');
      }
      await hooked.idle();
      const deleted = (event: string) => receiver.received.filter((hook) => hook.headers['x-github-event'] === event && hook.json.ref === (event === 'delete' ? 'doomed' : 'refs/heads/doomed') && (event === 'delete' || hook.json.deleted)).length;
      expect([deleted('delete'), deleted('push')]).toEqual([rounds, rounds]);
    } finally {
      await hooked.close();
      await receiver.close();
      await work.cleanup();
    }
  });

  it('1: a folder left without a record (a crash between disk and database) does not block the name', async () => {
    await newRepo(host, alice, 'orphaned');
    const { rename } = await import('node:fs/promises');
    const base = join(host.options.dataDir, 'repositories', 'alice');
    // Make the on-disk state of a create that crashed before its record: a folder under a name with no record.
    await rename(join(base, 'orphaned.git'), join(base, 'leftover.git'));
    const created = await http(`${host.url}/new`, { headers: cookie(alice.session), form: { name: 'leftover', no_redirect: '1' } });
    expect(created.status).toBe(200);
    expect(await folders()).toContain('leftover.git');
  });

  for (const [what, path, body] of [
    ['an issue', 'issues', 'title=Late+issue&body=x'],
    ['a pull request', 'pulls', 'title=Late+pull&head=feature&base=main'],
    ['a label', 'labels', 'name=late&color=ff0000'],
  ] as const) {
    it(`5: ${what} whose repository is deleted while the body is still arriving answers 404, not 500`, async () => {
      const name = `doomed-${path}`;
      await newRepo(host, alice, name);
      await pushTwoBranches(host, 'alice', alice.token, name);
      let release!: () => void;
      const bodyHeld = new Promise<void>((resolve) => (release = resolve));
      async function* slowBody() {
        yield Buffer.from(body.slice(0, 4));
        await bodyHeld;
        yield Buffer.from(body.slice(4));
      }
      const pending = request(`${host.url}/api/v1/repos/alice/${name}/${path}`, {
        method: 'POST',
        headers: { ...bearer(alice.token), 'content-type': 'application/x-www-form-urlencoded', 'content-length': String(body.length) },
        body: Readable.from(slowBody()),
      });
      await sleep(100);
      expect((await http(`${host.url}/api/v1/repos/alice/${name}`, { method: 'DELETE', headers: bearer(alice.token) })).status).toBe(204);
      release();
      const response = await pending;
      const text = await response.body.text();
      expect({ status: response.statusCode, body: JSON.parse(text) }).toEqual({ status: 404, body: { success: false, message: 'Not found' } });
    });
  }
});
