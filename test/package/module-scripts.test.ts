import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

// A harness may start a host from an ES module given on the command line (`node --input-type=module -e`): the
// worker threads (bcrypt, highlighting) evaluate plain scripts and must not inherit that option, or `require` is
// missing in them and the first password hash fails. Checked on the built package, as `npm test` builds it.

const dist = fileURLToPath(new URL('../../dist/bundle/index.js', import.meta.url));

const SCRIPT = `
const { createRepoHost } = await import(${JSON.stringify(dist)});
const host = await createRepoHost({ port: 0, bcryptCost: 4, fixtures: {
  users: [{ username: 'alice', email: 'alice@example.com', password: 'password123' }],
  repositories: [{ owner: 'alice', name: 'code', branches: { main: { commits: [{ message: 'code', files: { 'main.js': 'const answer = 42;\\n' } }] } } }],
} });
const basic = (password) => ({ authorization: 'Basic ' + Buffer.from('alice:' + password).toString('base64') });
const right = await fetch(host.url + '/api/v3/user', { headers: basic('password123') });
const wrong = await fetch(host.url + '/api/v3/user', { headers: basic('not-the-password') });
const page = await (await fetch(host.url + '/alice/code/src/branch/main/main.js')).text();
console.log(JSON.stringify({ right: right.status, wrong: wrong.status, highlighted: page.includes('hljs-keyword') }));
await host.close();
`;

describe('a host started from a module script on the command line', () => {
  it('hashes and checks passwords, and highlights code, in its workers under --input-type=module', async () => {
    const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', SCRIPT], { timeout: 30_000 });
    expect(JSON.parse(stdout)).toEqual({ right: 200, wrong: 401, highlighted: true });
  });
});
