// vitest global setup: one repohost for the whole run, started with the fixtures, plus a tiny control endpoint on
// loopback through which each test file resets it (tests run in workers, the host lives here).
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import { createRepoHost } from 'repohost';

export default async function setup(project) {
  const fixtures = JSON.parse(await readFile(new URL('./fixtures.json', import.meta.url), 'utf8'));
  const host = await createRepoHost({ port: 0, bcryptCost: 4, fixtures });
  const control = createServer((request, response) => {
    // POST /reset: back to the fixtures; POST /idle: wait for webhooks, mergeability checks and upkeep.
    const action = request.method === 'POST' && { '/reset': () => host.reset(), '/idle': () => host.idle() }[request.url];
    if (!action) return response.writeHead(404).end();
    action().then(
      () => response.writeHead(204).end(),
      (error) => response.writeHead(500).end(String(error)),
    );
  });
  await new Promise((resolve) => control.listen(0, '127.0.0.1', resolve));
  project.provide('repohost', { url: host.url, control: `http://127.0.0.1:${control.address().port}`, token: fixtures.users[0].tokens[0].token });
  return async () => {
    await new Promise((resolve) => control.close(resolve));
    await host.close();
  };
}
