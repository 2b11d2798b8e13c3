import { createServer, type Server as NetServer, type Socket } from 'node:net';
import ssh2, { type AuthContext, type CipherAlgorithm, type ClientInfo, type Connection, type Server as SshServer, type ServerChannel, type Session } from 'ssh2';
import type { AppContext } from '../context.js';
import { atLeast } from '../services/permissions.js';
import type { SshPrincipal } from '../services/ssh-keys.js';
import { parseGitCommand, parseLfsAuthenticate } from './command.js';
import { LfsTokens } from '../lfs/tokens.js';
import { fingerprintOf } from './keys.js';

// ssh2 is CommonJS: Node's ESM loader sees only its default export.
const { Server, utils } = ssh2;

/** How long running git sessions may finish when the server stops before they are cut off. */
const STOP_GRACE_MS = 5000;
/** How long a connection told to go may take to go before its socket is destroyed. */
const HANG_UP_MS = 200;
/** How long a token from git-lfs-authenticate is valid, in seconds. */
const LFS_TOKEN_SECONDS = 3600;
/** Ciphers offered: those Node's own crypto runs fast (no JavaScript ChaCha20-Poly1305). */
const CIPHERS: CipherAlgorithm[] = ['aes128-gcm@openssh.com', 'aes256-gcm@openssh.com', 'aes128-ctr', 'aes192-ctr', 'aes256-ctr'];

export interface SshServerSettings {
  hostKeys: Buffer[];
  host: string;
  port: number;
  /** Resolves once the host answers (fixtures loaded): no key is accepted before, false if it never will. */
  ready: Promise<boolean>;
  log: (message: string) => void;
}

/** One client connection: its socket and address, who it authenticated as, and the git sessions it runs. */
interface ClientState {
  socket: Socket;
  address: string;
  principal?: SshPrincipal;
  /** The fingerprint of the key it authenticated with: each command looks the key up again (it may be gone since). */
  fingerprint?: string;
  /** Whether it offered a key: closing without one accepted is then a failed sign-in from its address. */
  offeredKey?: boolean;
  running: number;
  stop: AbortController;
  connection?: Connection;
}

/** What the refusals of a shell and of unknown commands say, naming whom the key authenticated (as GitHub does). */
function greeting(name: string): string {
  return `Hi ${name}! You've successfully authenticated, but repohost does not provide shell access.\n`;
}

/** Ends a connection politely (SSH's disconnect), and for certain a moment later. */
function hangUp(client: ClientState): void {
  client.connection?.end();
  if (!client.connection) client.socket.end();
  setTimeout(() => client.socket.destroy(), HANG_UP_MS).unref();
}

/**
 * Git over SSH (`git clone ssh://git@host:port/owner/repo.git`): public-key authentication against users' keys and
 * repositories' deploy keys, then only `git-upload-pack`, `git-receive-pack` and `git-upload-archive` on a repository,
 * through the same permission check, transfer limits, push rules and push recording as smart HTTP. No shell, no
 * forwarding, no other command. Connections are counted and timed from the first byte (our own TCP server hands
 * sockets to ssh2): limited in number in all and per address, closed unless authenticated within a grace time and a
 * number of offered keys, and closed cleanly when the server stops.
 */
export class SshGitServer {
  readonly #tcp: NetServer;
  readonly #ssh: SshServer;
  readonly #clients = new Map<string, ClientState>();
  readonly #perAddress = new Map<string, number>();
  #stopping = false;

  private constructor(
    private readonly ctx: AppContext,
    private readonly settings: SshServerSettings,
  ) {
    this.#ssh = new Server({ hostKeys: settings.hostKeys, ident: 'repohost', algorithms: { cipher: CIPHERS } }, (connection, info) => this.#accept(connection, info));
    this.#ssh.on('error', () => undefined);
    this.#tcp = createServer((socket) => this.#connected(socket));
  }

  /** Listens; resolves with the server once connections are accepted. */
  static async start(ctx: AppContext, settings: SshServerSettings): Promise<SshGitServer> {
    const server = new SshGitServer(ctx, settings);
    await new Promise<void>((resolve, reject) => {
      server.#tcp.once('error', reject);
      server.#tcp.listen(settings.port, settings.host, () => {
        server.#tcp.off('error', reject);
        resolve();
      });
    });
    server.#tcp.on('error', (error: Error) => settings.log(`ssh: ${error.message}`));
    return server;
  }

  get port(): number {
    return (this.#tcp.address() as { port: number }).port;
  }

  /** Stops accepting, lets running git sessions end (for a while), then closes every connection. */
  async close(): Promise<void> {
    this.#stopping = true;
    const closed = new Promise<void>((resolve) => this.#tcp.close(() => resolve()));
    for (const client of this.#clients.values()) if (client.running === 0) hangUp(client);
    const deadline = Date.now() + STOP_GRACE_MS;
    while ([...this.#clients.values()].some((client) => client.running > 0) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    for (const client of this.#clients.values()) {
      client.stop.abort();
      hangUp(client);
    }
    await closed;
  }

  /** A new TCP connection: counted, timed, and handed to ssh2 unless a limit says no. */
  #connected(socket: Socket): void {
    socket.on('error', () => undefined);
    const address = socket.remoteAddress ?? '';
    const fromAddress = this.#perAddress.get(address) ?? 0;
    const full = this.#clients.size >= this.ctx.options.maxSshConnections || fromAddress >= this.ctx.options.maxSshConnectionsPerAddress;
    // An address that failed to sign in too often (keys or passwords) is closed before it may try again.
    if (this.#stopping || full || this.ctx.loginThrottle.addressUsedUp(address)) {
      socket.destroy();
      return;
    }
    const key = `${address}\0${socket.remotePort ?? ''}`;
    const client: ClientState = { socket, address, running: 0, stop: new AbortController() };
    this.#clients.set(key, client);
    this.#perAddress.set(address, fromAddress + 1);
    const grace = setTimeout(() => client.principal === undefined && socket.destroy(), this.ctx.options.sshLoginGraceMs);
    grace.unref();
    socket.once('close', () => {
      clearTimeout(grace);
      if (client.offeredKey && !client.principal) this.ctx.loginThrottle.failedFromAddress(address);
      client.stop.abort();
      this.#clients.delete(key);
      const left = (this.#perAddress.get(address) ?? 1) - 1;
      if (left > 0) this.#perAddress.set(address, left);
      else this.#perAddress.delete(address);
    });
    this.#ssh.injectSocket(socket);
  }

  /** ssh2 has read the client's version line: authentication, then sessions. */
  #accept(connection: Connection, info: ClientInfo): void {
    connection.on('error', () => undefined);
    const client = this.#clients.get(`${info.ip}\0${info.port}`);
    if (!client) return void connection.end();
    client.connection = connection;
    let attempts = 0;
    connection.on('authentication', (auth) => {
      if (auth.method === 'publickey') client.offeredKey = true;
      if (auth.method !== 'none' && ++attempts > this.ctx.options.maxSshAuthAttempts) {
        auth.reject();
        hangUp(client);
        return;
      }
      void this.#authenticate(auth).then(
        (principal) => {
          if (!principal) return auth.reject(['publickey']);
          // A key offered without a signature is only a question: "would you take this one?"
          if (auth.method === 'publickey' && auth.signature) {
            client.principal = principal;
            client.fingerprint = fingerprintOf(auth.key.data);
          }
          auth.accept();
        },
        () => auth.reject(['publickey']),
      );
    });
    connection.on('ready', () => {
      connection.on('session', (acceptSession) => this.#session(client, acceptSession()));
      // No forwarding of any kind.
      connection.on('tcpip', (_accept, reject) => reject());
      connection.on('openssh.streamlocal', (_accept, reject) => reject());
      connection.on('request', (_accept, reject) => reject?.());
    });
  }

  /** Whom the offered key authenticates (checking its signature when there is one), or undefined. */
  async #authenticate(auth: AuthContext): Promise<SshPrincipal | undefined> {
    if (auth.method !== 'publickey') return undefined;
    if (!(await this.settings.ready)) return undefined;
    const principal = await this.ctx.sshKeys.principalOf(fingerprintOf(auth.key.data));
    if (!principal || !auth.signature) return principal;
    const key = utils.parseKey(auth.key.data);
    if (key instanceof Error || Array.isArray(key)) return undefined;
    return key.verify(auth.blob!, auth.signature, auth.hashAlgo) === true ? principal : undefined;
  }

  #session(client: ClientState, session: Session): void {
    let protocol: string | undefined;
    session.on('env', (accept, _reject, info) => {
      if (info.key === 'GIT_PROTOCOL') protocol = info.val;
      accept?.();
    });
    // A terminal is granted (so `ssh git@host` gets its one line), but no shell runs in it.
    session.on('pty', (accept) => accept?.());
    session.on('shell', (accept) => this.#refuse(accept(), greeting(this.#name(client.principal!))));
    session.on('exec', (accept, _reject, info) => {
      const channel = accept();
      client.running++;
      void this.#exec(client, channel, info.command, protocol)
        .catch((error: Error) => {
          this.settings.log(`ssh: ${error.message}`);
          this.#refuse(channel, 'ERROR: the server could not run the command\n');
        })
        .finally(() => client.running--);
    });
    session.on('subsystem', (_accept, reject) => reject());
  }

  #name(principal: SshPrincipal): string {
    return principal.kind === 'user' ? principal.user.username : `deploy key ${principal.key.title}`;
  }

  #refuse(channel: ServerChannel, message: string): void {
    channel.stderr.write(message);
    channel.exit(1);
    channel.end();
  }

  /** Answers git-lfs's question "where, and with what header, do I reach LFS over HTTP?" with a token for an hour. */
  async #lfsAuthenticate(channel: ServerChannel, principal: SshPrincipal, wanted: { owner: string; name: string; operation: 'upload' | 'download' }): Promise<void> {
    const repo = await this.ctx.repos.findByName(wanted.owner, wanted.name);
    const level = repo ? await this.ctx.sshKeys.access(principal, repo) : 'none';
    if (!repo || level === 'none') return this.#refuse(channel, 'ERROR: Repository not found.\n');
    if (!atLeast(level, wanted.operation === 'upload' ? 'write' : 'read')) return this.#refuse(channel, `ERROR: Permission to ${repo.owner_name}/${repo.name} denied.\n`);
    const tokens = await LfsTokens.of(this.ctx.options.dataDir);
    const who = principal.kind === 'user' ? { kind: 'user' as const, id: principal.user.id } : { kind: 'deploy' as const, id: principal.key.id };
    const expiresAt = this.ctx.options.now().getTime() + LFS_TOKEN_SECONDS * 1000;
    const answer = {
      href: `${this.ctx.baseUrl()}/${repo.owner_name}/${repo.name}.git/info/lfs`,
      header: { Authorization: `RemoteAuth ${tokens.mint(who, repo.id, wanted.operation, expiresAt)}` },
      expires_in: LFS_TOKEN_SECONDS,
    };
    channel.write(`${JSON.stringify(answer)}\n`);
    channel.exit(0);
    channel.end();
  }

  async #exec(client: ClientState, channel: ServerChannel, command: string, protocol: string | undefined): Promise<void> {
    // The key as it is now, not as it was at sign-in: a key removed (or its account deleted) since, on a connection kept
    // open (ssh's ControlMaster), runs nothing more, and the connection ends.
    const principal = await this.ctx.sshKeys.principalOf(client.fingerprint!);
    if (!principal) {
      // The connection ends once the refusal has reached the client.
      channel.once('close', () => hangUp(client));
      return this.#refuse(channel, 'ERROR: The key you authenticated with has been removed.\n');
    }
    const lfs = parseLfsAuthenticate(command);
    if (lfs) return await this.#lfsAuthenticate(channel, principal, lfs);
    const wanted = parseGitCommand(command);
    if (!wanted) {
      const shown = JSON.stringify(command.slice(0, 100));
      return this.#refuse(channel, `repohost: ${shown} is not a command repohost runs: it serves git-upload-pack, git-receive-pack, git-upload-archive and git-lfs-authenticate only.\n${greeting(this.#name(principal))}`);
    }
    const repo = await this.ctx.repos.findByName(wanted.owner, wanted.name);
    const needed = wanted.service === 'git-receive-pack' ? 'write' : 'read';
    const level = repo ? await this.ctx.sshKeys.access(principal, repo) : 'none';
    // A repository the key may not see answers exactly like one that does not exist.
    if (!repo || level === 'none') return this.#refuse(channel, 'ERROR: Repository not found.\n');
    if (!atLeast(level, needed)) {
      const why = principal.kind === 'deploy' ? 'The key you are authenticating with has been marked as read only.' : `Permission to ${repo.owner_name}/${repo.name} denied to ${principal.user.username}.`;
      return this.#refuse(channel, `ERROR: ${why}\n`);
    }
    const place = await this.ctx.gitTransfers.wait(client.address, this.ctx.options.gitTransferWaitMs, client.stop.signal);
    if (place === 'aborted') return;
    if (typeof place === 'string') {
      const who = place === 'busy' ? '' : ' from your address';
      return this.#refuse(channel, `ERROR: Too many git transfers${who} are running; try again shortly.\n`);
    }
    try {
      const pusher = principal.kind === 'user' ? principal.user : undefined;
      const options = wanted.service === 'git-receive-pack' ? await this.ctx.refUpdates.pushOptions(repo, pusher) : {};
      const code = await this.ctx.git.serveStream(repo.owner_name, repo.name, wanted.service, { input: channel, output: channel, errors: channel.stderr, protocol, signal: client.stop.signal }, options);
      channel.exit(code);
      channel.end();
    } finally {
      place();
    }
  }
}
