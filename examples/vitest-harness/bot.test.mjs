// Tests of a "bot" against the host started by global-setup.mjs: each test may change anything, the next one starts
// from the fixtures again.
import { describe, expect, inject, it } from 'vitest';

const { url, token } = inject('repohost');
const api = (path, init = {}) =>
  fetch(`${url}/api/v1${path}`, { ...init, headers: { authorization: `Bearer ${token}`, ...init.headers } }).then((response) => response.json());

describe('a bot on the fixture repository', () => {
  it('files an issue (the fixtures have issue 1 and pull request 2, so it is number 3)', async () => {
    const issue = await api('/repos/octo/app/issues', { method: 'POST', body: new URLSearchParams({ title: 'Filed by the bot' }) });
    expect(issue).toMatchObject({ number: 3, title: 'Filed by the bot', status: 'open' });
  });

  it('merges the fixture pull request', async () => {
    const [pull] = await api('/repos/octo/app/pulls');
    const merged = await api(`/repos/octo/app/pulls/${pull.id}/merge`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ method: 'merge' }) });
    expect(merged).toMatchObject({ success: true, merged: true });
  });

  it('starts from the fixtures again: one issue, the pull request open', async () => {
    expect((await api('/repos/octo/app/issues?status=all')).map((issue) => issue.title)).toEqual(['The greeting is too short']);
    expect((await api('/repos/octo/app/pulls')).map((pull) => pull.status)).toEqual(['open']);
  });
});
