import { createServer, type Server as NetServer, type Socket } from 'node:net';
import ssh2, { type AuthContext, type CipherAlgorithm, type ClientInfo, type Connection, type Server as SshServer, type ServerChannel, type Session } from 'ssh2';
import type { AppContext } from '../context.js';
import { atLeast } from '../services/permissions.js';
import type { SshPrincipal } from '../services/ssh-keys.js';
import { parseGitCommand, parseLfsAuthenticate } from './command.js';
import { LfsTokens } from '../lfs/tokens.js';
import { fingerprintOf } from '../services/ssh-key-format.js';
import { SshSlots, sourceOf, type Admission, type SlotHolder } from './slots.js';

// ssh2 is CommonJS: Node's ESM loader sees only its default export.
const { Server, utils } = ssh2;

/** How long running git sessions may finish when the server stops before they are cut off. */
const STOP_GRACE_MS = 5000;
/** How long a connection told to go may take to go before its socket is destroyed. */
const HANG_UP_MS = 200;
/** How long a token from git-lfs-authenticate is valid, in seconds. */
const LFS_TOKEN_SECONDS = 3600;
/**
 * How long a connection that has sent nothing (not even SSH's version line) may stay, at most: real clients send it
 * at once, and slots held by silent sockets keep others out (issue 38). The full login grace (time to answer
 * OpenSSH's host key question included) starts with that line, except in a slot kept for known keys (slots.ts).
 */
const SILENT_GRACE_MS = 5000;
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
interface ClientState extends SlotHolder {
  socket: Socket;
  address: string;
  /** How it was let in (slots.ts): a reserved slot is for keys that authenticated before. */
  admission?: Admission;
  /** The timer that closes it unless it authenticates (see SILENT_GRACE_MS). */
  grace?: NodeJS.Timeout;
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

/**
 * A channel ssh2 opened, or undefined when it opened none. Its streams get error listeners: ssh2 ends a channel's
 * stderr when the client closes it, and a write still queued then (git's messages) would otherwise be an uncaught
 * error that ends the process.
 */
function opened(channel: ServerChannel | undefined): ServerChannel | undefined {
  channel?.on('error', () => undefined);
  channel?.stderr.on('error', () => undefined);
  return channel;
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
 * sockets to ssh2): limited in number in all and per address (IPv6 per /64), closed unless authenticated within a grace
 * time (shorter while nothing is sent) and a number of offered keys, and closed cleanly when the server stops. Who
 * gets a slot when they run short, so that a few sources of silent sockets cannot keep everyone out: slots.ts.
 */
export class SshGitServer {
  readonly #tcp: NetServer;
  readonly #ssh: SshServer;
  readonly #clients = new Map<string, ClientState>();
  readonly #slots: SshSlots;
  #stopping = false;

  private constructor(
    private readonly ctx: AppContext,
    private readonly settings: SshServerSettings,
  ) {
    this.#slots = new SshSlots({ total: ctx.options.maxSshConnections, perSource: ctx.options.maxSshConnectionsPerAddress });
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
    const key = `${address}\0${socket.remotePort ?? ''}`;
    const client: ClientState = {
      socket,
      address,
      source: sourceOf(address),
      since: Date.now(),
      running: 0,
      stop: new AbortController(),
      authenticated: () => client.principal !== undefined,
      end: () => socket.destroy(),
    };
    // An address that failed to sign in too often (keys or passwords) is closed before it may try again.
    client.admission = this.#stopping || this.ctx.loginThrottle.addressUsedUp(address) ? undefined : this.#slots.admit(client);
    if (!client.admission) {
      socket.destroy();
      return;
    }
    this.#clients.set(key, client);
    this.#closeUnlessAuthenticated(client, Math.min(SILENT_GRACE_MS, this.ctx.options.sshLoginGraceMs));
    socket.once('close', () => {
      clearTimeout(client.grace);
      if (client.offeredKey && !client.principal) this.ctx.loginThrottle.failedFromAddress(address);
      client.stop.abort();
      if (this.#clients.get(key) === client) this.#clients.delete(key);
      this.#slots.release(client);
    });
    this.#ssh.injectSocket(socket);
  }

  /** Closes the connection unless it has authenticated `ms` from now. */
  #closeUnlessAuthenticated(client: ClientState, ms: number): void {
    clearTimeout(client.grace);
    client.grace = setTimeout(() => client.principal === undefined && client.socket.destroy(), Math.max(0, ms));
    client.grace.unref();
  }

  /** ssh2 has read the client's version line: authentication, then sessions. */
  #accept(connection: Connection, info: ClientInfo): void {
    connection.on('error', () => undefined);
    const client = this.#clients.get(`${info.ip}\0${info.port}`);
    if (!client) return void connection.end();
    client.connection = connection;
    // Its version line earns the rest of the login grace (see SILENT_GRACE_MS), but not in a slot kept for known keys.
    if (client.admission === 'open') this.#closeUnlessAuthenticated(client, this.ctx.options.sshLoginGraceMs - (Date.now() - client.since));
    let attempts = 0;
    connection.on('authentication', (auth) => {
      if (auth.method === 'publickey') {
        client.offeredKey = true;
        // A slot kept for keys that authenticated before is not for trying others.
        if (!this.#slots.mayUse(client.admission!, fingerprintOf(auth.key.data))) {
          auth.reject();
          hangUp(client);
          return;
        }
      }
      if (auth.method !== 'none' && ++attempts > this.ctx.options.maxSshAuthAttempts) {
        auth.reject();
        hangUp(client);
        return;
      }
      this.#authenticate(auth)
        .then(
          (principal) => {
            if (!principal) return auth.reject(['publickey']);
            // A key offered without a signature is only a question: "would you take this one?"
            if (auth.method === 'publickey' && auth.signature) {
              client.principal = principal;
              client.fingerprint = fingerprintOf(auth.key.data);
              this.#slots.remember(client.fingerprint);
            }
            auth.accept();
          },
          () => auth.reject(['publickey']),
        )
        // ssh2 throws when a client's requests come out of step with its answers (a key question answered after
        // another request): that connection ends, never the process.
        .catch(() => hangUp(client));
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
    session.on('shell', (accept) => {
      const channel = opened(accept());
      if (channel) this.#refuse(channel, greeting(this.#name(client.principal!)));
    });
    session.on('exec', (accept, _reject, info) => {
      // ssh2 gives no channel to a second command on a session that has one: nothing to run it on.
      const channel = opened(accept());
      if (!channel) return;
      client.running++;
      void this.#exec(client, channel, info.command, protocol)
        .catch((error: Error) => {
          this.settings.log(`ssh: ${error.message}`);
          this.#refuse(channel, 'ERROR: the server could not run the command\n');
        })
        .catch(() => undefined)
        .finally(() => client.running--);
    });
    session.on('subsystem', (_accept, reject) => reject?.());
  }

  #name(principal: SshPrincipal): string {
    return principal.kind === 'user' ? principal.user.username : `deploy key ${principal.key.title}`;
  }

  /** Refuses on a channel the client may have closed already (writing to it then is harmless). */
  #refuse(channel: ServerChannel, message: string): void {
    if (channel.destroyed || channel.stderr.writableEnded) return;
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
