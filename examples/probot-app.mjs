// Test a GitHub App against a real forge: a Probot app in app mode (its id and private key, nothing else changed)
// hears an issue opened on a repository it is installed on, and answers through an installation token.
// Run after `npm install` (which builds dist/): node examples/probot-app.mjs
import { createServer } from 'node:http';
import { createNodeMiddleware, Probot } from 'probot';
import { createRepoHost } from 'repohost';

// The app's webhook receiver first: its address is the app's webhook URL.
const server = createServer();
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const webhookUrl = `http://127.0.0.1:${server.address().port}/api/github/webhooks`;

// allowLocalNetwork: the app's webhook receiver is on this machine.
const host = await createRepoHost({ port: 0, bcryptCost: 4, allowLocalNetwork: true });
try {
  // Loading fixtures answers each app's id and private key (made now; `privateKey` in the fixtures keeps one fixed).
  const { apps: [greeter] } = await host.admin.load({
    users: [{ username: 'alice', email: 'alice@example.com', password: 'correct-horse', tokens: [{ name: 'demo', token: 'alice_demo_token_0123456789' }] }],
    repositories: [{ owner: 'alice', name: 'project', private: true }],
    apps: [{ owner: 'alice', name: 'Greeter', webhookUrl, webhookSecret: 'demo-secret', permissions: { issues: 'write' }, events: ['issues'], installations: [{ account: 'alice' }] }],
  });
  const probot = new Probot({ appId: greeter.id, privateKey: greeter.privateKey, secret: 'demo-secret', baseUrl: `${host.url}/api/v3`, logLevel: 'warn' });
  let answered;
  const done = new Promise((resolve) => (answered = resolve));
  const middleware = await createNodeMiddleware(
    (app) => {
      app.on('issues.opened', async (context) => {
        await context.octokit.rest.issues.createComment(context.issue({ body: 'Thanks for opening this issue!' }));
        answered();
      });
    },
    { probot },
  );
  server.on('request', (request, response) => middleware(request, response, () => response.writeHead(404).end()));

  const headers = { authorization: 'token alice_demo_token_0123456789', 'content-type': 'application/json' };
  await fetch(`${host.url}/api/v3/repos/alice/project/issues`, { method: 'POST', headers, body: JSON.stringify({ title: 'Hello' }) });
  await done;
  const comments = await (await fetch(`${host.url}/api/v3/repos/alice/project/issues/1/comments`, { headers })).json();
  for (const comment of comments) console.log(`${comment.user.login} (${comment.user.type}): ${comment.body}`);
} finally {
  await host.close();
  server.close();
}
