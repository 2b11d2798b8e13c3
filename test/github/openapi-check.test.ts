import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RepoHost } from '../../lib/index.js';
import { bearer, http, startHost } from '../helpers/host.js';
import { checkAnswer, type Answer } from '../helpers/openapi/validate.js';

/**
 * Issue 41: the check every file's /api/v3 answers go through (test/helpers/openapi/) finds what differs from GitHub's
 * description and names the operation, the field and the rule; it is checked here on answers altered on purpose.
 */
describe("the check of /api/v3 answers against GitHub's OpenAPI description", () => {
  let host: RepoHost;
  let repository: Answer;

  beforeAll(async () => {
    host = await startHost();
    await host.admin.createUser({ username: 'alice', email: 'alice@example.com', password: 'password123' });
    const token = await host.admin.createToken('alice', 'check');
    await http(`${host.url}/api/v3/user/repos`, { headers: bearer(token), json: { name: 'checked' } });
    const answer = await http(`${host.url}/api/v3/repos/alice/checked`, { headers: bearer(token) });
    repository = { method: 'GET', path: '/repos/alice/checked', status: answer.status, headers: answer.headers as Record<string, string>, body: answer.text };
  });

  afterAll(async () => {
    await host?.close();
  });

  const mismatchesOf = (answer: Answer) => {
    const verdict = checkAnswer(answer);
    if (verdict.kind !== 'validated') throw new Error(`not validated: ${verdict.kind}`);
    return verdict.mismatches.map(({ operation, status, field, rule }) => ({ operation, status, field, rule }));
  };
  const changed = (edit: (body: Record<string, unknown>) => void) => {
    const body = JSON.parse(repository.body) as Record<string, unknown>;
    edit(body);
    return { ...repository, body: JSON.stringify(body) };
  };

  it('passes a real answer, and names the operation, field and rule of one altered', () => {
    expect(mismatchesOf(repository)).toEqual([]);
    const operation = 'GET /repos/{owner}/{repo}';
    expect(mismatchesOf(changed((body) => delete body.node_id))).toEqual([{ operation, status: 200, field: '', rule: 'required' }]);
    expect(mismatchesOf(changed((body) => (body.owner = { ...(body.owner as object), id: 'one' })))).toEqual([{ operation, status: 200, field: '/owner/id', rule: 'type' }]);
    expect(mismatchesOf(changed((body) => (body.created_at = 'yesterday')))).toEqual([{ operation, status: 200, field: '/created_at', rule: 'format' }]);
  });

  it('refuses a status GitHub does not list, and a 500 anywhere', () => {
    expect(mismatchesOf({ ...repository, status: 201 })).toEqual([{ operation: 'GET /repos/{owner}/{repo}', status: 201, field: '', rule: 'status' }]);
    expect(mismatchesOf({ ...repository, status: 500, body: '{"message":"Server Error"}' })[0]).toMatchObject({ rule: 'status' });
  });

  it("checks HEAD as GET without a body, and leaves what repohost does not serve to its 404", () => {
    expect(mismatchesOf({ ...repository, method: 'HEAD', body: '' })).toEqual([]);
    expect(checkAnswer({ method: 'GET', path: '/orgs/acme/teams', status: 404, headers: {}, body: '{"message":"Not Found"}' })).toEqual({ kind: 'unserved', key: 'GET /orgs/{org}/teams' });
  });

  it('lets through only the reviewed exceptions', () => {
    const comment = (line: unknown) => ({
      method: 'GET',
      path: '/repos/alice/checked/pulls/comments/1',
      status: 200,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ line }),
    });
    const fields = (answer: Answer) => mismatchesOf(answer).map((mismatch) => `${mismatch.field} ${mismatch.rule}`);
    // A comment on a whole file has no line (excepted); a line of the wrong type is still found.
    expect(fields(comment(null))).not.toContain('/line type');
    expect(fields(comment('two'))).toContain('/line type');
  });
});
