import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RepoHost } from '../../lib/index.js';
import { pushTwoBranches } from '../helpers/git-cli.js';
import { bearer, http, startHost, tempDir } from '../helpers/host.js';
import { BOT_TOKEN, sampleFixtures } from './sample-fixtures.js';
import { durableRows, repositoryState } from './state.js';

const alice = bearer(BOT_TOKEN);

/** Changes of every kind: database rows, a new repository with pushed branches, a deleted one, a moved ref. */
async function changeEverything(host: RepoHost): Promise<void> {
  expect((await http(`${host.url}/api/v1/repos/alice/project/issues`, { headers: alice, form: { title: 'After the snapshot' } })).status).toBe(200);
  await host.admin.createRepo({ owner: 'alice', name: 'newer' });
  await pushTwoBranches(host, 'alice', BOT_TOKEN, 'newer');
  await pushTwoBranches(host, 'alice', BOT_TOKEN, 'project', ['extra']).catch(() => undefined); // unrelated history: refused or not, refs may move
  const token = await host.admin.createToken('bob', 'later');
  expect((await http(`${host.url}/api/v1/repos/bob/secret`, { method: 'DELETE', headers: bearer(token) })).status).toBe(204);
}

describe('snapshot, restore and reset', () => {
  let dir: { path: string; cleanup: () => Promise<void> };
  let host: RepoHost;

  beforeAll(async () => {
    dir = await tempDir();
    host = await startHost({ dbPath: join(dir.path, 'host.db'), fixtures: sampleFixtures() });
  });
  afterAll(async () => {
    await host?.close();
    await dir?.cleanup();
  });

  it('bring back database rows and repositories exactly, durably, and writes after a restore survive a restart', async () => {
    await host.idle();
    const rows = await durableRows(host.options.dbPath);
    const repositories = await repositoryState(host);
    expect(Object.keys(repositories)).toEqual(['alice/project.git', 'bob/secret.git']);
    const snapshot = await host.snapshot();

    await changeEverything(host);
    await host.idle();
    expect(await repositoryState(host)).not.toEqual(repositories);
    expect(await durableRows(host.options.dbPath)).not.toEqual(rows);

    await host.restore(snapshot);
    expect(await repositoryState(host)).toEqual(repositories);
    expect(await durableRows(host.options.dbPath)).toEqual(rows);
    // What the API answers comes from the restored state (no cache kept the changed one).
    expect((await http(`${host.url}/api/v1/repos/bob/secret`, { headers: alice })).json).toMatchObject({ default_branch: 'develop' });
    expect((await http(`${host.url}/api/v1/repos/alice/newer`, { headers: alice })).status).toBe(404);
    expect((await http(`${host.url}/api/v1/alice/project/branches/count`, { headers: alice })).json.result).toBe(3);

    // Restoring twice from one snapshot works (the snapshot's files were not changed by the first).
    await changeEverything(host);
    await host.restore(snapshot);
    expect(await repositoryState(host)).toEqual(repositories);

    // Written after the restore, then the host restarted: still there, on top of the restored state.
    const issue = await http(`${host.url}/api/v1/repos/alice/project/issues`, { headers: alice, form: { title: 'Written after restore' } });
    expect(issue.json.number).toBe(4); // issues 1-2 and pull request 3 came from the fixtures
    await host.close();
    host = await startHost({ dbPath: join(dir.path, 'host.db') });
    const issues = await http(`${host.url}/api/v1/repos/alice/project/issues?status=all&direction=asc`);
    expect(issues.json.map((row: { title: string }) => row.title)).toEqual(['First issue', 'Closed issue', 'Written after restore']);
    expect(await repositoryState(host)).toEqual(repositories);
  });

  it('reset goes back to the fixtures; a host started empty resets to empty; a host started on data refuses', async () => {
    // Restarted on existing data (the test before): no state to reset to.
    await expect(host.reset()).rejects.toThrow(/reset\(\) needs a host started with fixtures or on an empty database/);
    await host.close();

    host = await startHost({ fixtures: sampleFixtures() });
    const repositories = await repositoryState(host);
    await changeEverything(host);
    await host.reset();
    expect(await repositoryState(host)).toEqual(repositories);
    expect((await http(`${host.url}/api/v1/repos/alice/project/issues?status=all`)).json).toHaveLength(2);
    expect((await host.admin.listUsers()).map((user) => user.username)).toEqual(['alice', 'bob']);
    // The token minted after start is gone, the fixed one works.
    expect((await http(`${host.url}/api/v1/me`, { headers: alice })).status).toBe(200);

    const empty = await startHost();
    try {
      await empty.admin.load(sampleFixtures());
      await empty.reset();
      expect(await empty.admin.listUsers()).toEqual([]);
      expect(await repositoryState(empty)).toEqual({});
      // And loads again after the reset: the same names are free.
      await empty.admin.load(sampleFixtures());
    } finally {
      await empty.close();
    }
  });

  it('refuses a snapshot of another host', async () => {
    const other = await startHost();
    try {
      const foreign = await other.snapshot();
      await expect(host.restore(foreign)).rejects.toThrow('restore() takes a snapshot taken by this host');
    } finally {
      await other.close();
    }
  });
});
