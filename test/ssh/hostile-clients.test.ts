import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import ssh2, { type ClientChannel, type ConnectConfig, type ParsedKey } from 'ssh2';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RepoHost } from '../../lib/index.js';
import { newRepo, newUser } from '../helpers/api.js';
import { bearer, http, startHost, tempDir } from '../helpers/host.js';

// Issue 38: a client that sends SSH requests out of step with the server's answers ends its own connection, never the
// host. Each sequence here used to be an unhandled rejection in the SSH server, which ends the process.

const { Client, utils } = ssh2;
const run = promisify(execFile);

/** ssh2's client-side protocol object: it sends requests whenever told, in or out of step with the answers. */
interface RawProtocol {
  authPK(username: string, key: ParsedKey): void;
  exec(channel: number, command: string, wantReply: boolean): void;
}
const raw = (client: InstanceType<typeof Client>) => (client as unknown as { _protocol: RawProtocol })._protocol;

describe('SSH clients out of step with the server', () => {
  let host: RepoHost;
  let work: Awaited<ReturnType<typeof tempDir>>;
  let key: ParsedKey;
  let privateKey: string;

  /** Connects with `config` (added to host, port and user) and answers the client once it signed in. */
  const connect = (config: ConnectConfig) =>
    new Promise<InstanceType<typeof Client>>((resolve, reject) => {
      const client = new Client();
      client.once('ready', () => resolve(client)).once('error', reject);
      client.connect({ host: '127.0.0.1', port: host.sshPort, username: 'git', ...config });
    });
  /** Runs `command` on a session of its own and answers its exit code and output (a flush for git's question). */
  const exec = async (command: string) => {
    const client = await connect({ privateKey });
    try {
      const channel = await new Promise<ClientChannel>((resolve, reject) => client.exec(command, (error, opened) => (error ? reject(error) : resolve(opened))));
      let stdout = '';
      let stderr = '';
      channel.on('data', (data: Buffer) => (stdout += data)).stderr.on('data', (data: Buffer) => (stderr += data));
      channel.end('0000');
      const code = await new Promise<number>((resolve) => channel.on('exit', resolve));
      return { code, stdout, stderr };
    } finally {
      client.end();
    }
  };
  /** What the host still answers after a hostile client: the API, and git over SSH. */
  const expectServing = async () => {
    expect((await http(`${host.url}/api/v1/users/alice`)).status).toBe(200);
    const fetched = await exec("git-upload-pack 'alice/repo.git'");
    expect(fetched.code, fetched.stderr).toBe(0);
    expect(fetched.stdout).toMatch(/^[0-9a-f]{4}/);
  };

  beforeAll(async () => {
    host = await startHost({ sshPort: 0 });
    work = await tempDir('repohost-ssh-hostile-');
    const file = join(work.path, 'id_ed25519');
    await run('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', file]);
    privateKey = await readFile(file, 'utf8');
    key = utils.parseKey(privateKey) as ParsedKey;
    const alice = await newUser(host, 'alice');
    await newRepo(host, alice, 'repo', 'private');
    expect((await http(`${host.url}/api/v3/user/keys`, { headers: bearer(alice.token), json: { key: await readFile(`${file}.pub`, 'utf8') } })).status).toBe(201);
  });

  afterAll(async () => {
    await host?.close();
    await work?.cleanup();
  });

  it('ends a connection that asks about a key again after a none request slipped in before the first answer', async () => {
    const client = new Client();
    client.on('error', () => undefined);
    const closed = new Promise<void>((resolve) => client.on('close', () => resolve()));
    let asked = false;
    client.connect({
      host: '127.0.0.1',
      port: host.sshPort,
      username: 'git',
      // "Would you take this key?" and a none request together: the none waits (unanswered) behind the question's
      // answer, and ssh2's bookkeeping of requests in progress is one behind from then on.
      authHandler: (_methodsLeft, _partial, next) => {
        if (asked) return client.end();
        asked = true;
        raw(client).authPK('git', key);
        next({ type: 'none', username: 'git' });
      },
      // The question again once answered: saying yes to it threw inside ssh2 ('"publickey" auth not in progress').
      debug: (message) => message === 'Inbound: Received USERAUTH_PK_OK' && raw(client).authPK('git', key),
    });
    await closed;
    await expectServing();
  });

  it('runs nothing for a second command on a session that already runs one, and goes on serving the first', async () => {
    const client = await connect({ privateKey });
    try {
      const channel = await new Promise<ClientChannel>((resolve, reject) => client.exec("git-upload-pack 'alice/repo.git'", (error, opened) => (error ? reject(error) : resolve(opened))));
      let stdout = '';
      const advertised = new Promise((resolve) => channel.once('data', resolve));
      channel.on('data', (data: Buffer) => (stdout += data));
      await advertised;
      // ssh2 opens no channel for a second command on the session: there is nowhere to run or refuse it.
      raw(client).exec((channel as unknown as { outgoing: { id: number } }).outgoing.id, 'whoami', true);
      channel.end('0000');
      expect(await new Promise((resolve) => channel.on('exit', resolve))).toBe(0);
      expect(stdout).toMatch(/^[0-9a-f]{4}/);
    } finally {
      client.end();
    }
    await expectServing();
  });
});
