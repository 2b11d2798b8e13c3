import { spawn, type ChildProcess } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, type Readable, type Writable } from 'node:stream';
import { LAUNCHER_SOURCE } from './helper-source.js';

/**
 * The launcher process and the git processes it runs (see index.ts for why it exists and how hosts share it).
 * Git's stdin, stdout and stderr are Unix sockets whose other ends the host holds (passed over the IPC channel),
 * so git's output never passes through the launcher.
 */

/** What the host uses of a git process, whether spawned directly or through the launcher. */
export interface GitProcess extends EventEmitter {
  readonly stdin: Writable;
  readonly stdout: Readable;
  readonly stderr: Readable;
  readonly exitCode: number | null;
  readonly signalCode: NodeJS.Signals | null;
  kill(signal?: NodeJS.Signals): boolean;
}

export interface LaunchOptions {
  cwd: string | undefined;
  env: NodeJS.ProcessEnv;
}

/** A connection's first bytes: the launch id and the fd (0, 1 or 2) it is to be, each a 32-bit number. */
const NAME_BYTES = 8;
/** Launches waiting for their sockets at most: three connections each stay well within the listen backlog. */
const MAX_STARTING = 128;
const BACKLOG = 1024;

type HelperMessage =
  | { type: 'ready' }
  | { type: 'spawned'; id: number; pid: number }
  | { type: 'error'; id: number; message: string; code?: string }
  | { type: 'exit'; id: number; code: number | null; signal: NodeJS.Signals | null };

/** How a launcher ended without being closed: its pid and exit code or signal (unknown when its channel broke first). */
export interface LauncherDeath {
  pid: number | undefined;
  code: number | null;
  signal: NodeJS.Signals | null;
  /** How long it had been up, in milliseconds. */
  livedMs: number;
}

/** A git process started by the launcher, shaped like a ChildProcess: 'spawn', 'error', 'exit', then 'close'. */
export class LaunchedProcess extends EventEmitter implements GitProcess {
  /** Written by the caller at once; passed on to git only once it runs (the launcher must not read any of it). */
  readonly stdin = new PassThrough();
  readonly stdout: Socket;
  readonly stderr: Socket;
  exitCode: number | null = null;
  signalCode: NodeJS.Signals | null = null;
  pid: number | undefined;
  readonly #stdinSocket: Socket;
  readonly #sendKill: (signal: NodeJS.Signals) => void;
  #state: 'starting' | 'running' | 'exited' = 'starting';
  #killWhenStarted: NodeJS.Signals | undefined;
  #openOutputs = 2;

  constructor(sockets: readonly [Socket, Socket, Socket], sendKill: (signal: NodeJS.Signals) => void) {
    super();
    [this.#stdinSocket, this.stdout, this.stderr] = sockets;
    this.#sendKill = sendKill;
    this.#stdinSocket.on('error', (error) => this.stdin.destroy(error));
    // A destroyed or ended stdin ends git's input (a pipe would be closed the same way), once git runs: before, the
    // launcher holds the socket, and an end it saw would close it under the child it is about to start.
    this.stdin.once('close', () => {
      if (this.#state === 'running') this.#stdinSocket.end();
    });
    for (const output of [this.stdout, this.stderr]) {
      // git going away is told by its exit; a reset on an output it will not write again is no failure of ours.
      output.on('error', () => undefined);
      output.once('close', () => {
        this.#openOutputs -= 1;
        this.#maybeClose();
      });
    }
  }

  get starting(): boolean {
    return this.#state === 'starting';
  }

  kill(signal: NodeJS.Signals = 'SIGTERM'): boolean {
    if (this.#state === 'exited') return false;
    if (this.#state === 'starting') this.#killWhenStarted = signal;
    else this.#sendKill(signal);
    return true;
  }

  started(pid: number): void {
    this.pid = pid;
    this.#state = 'running';
    if (this.stdin.destroyed) this.#stdinSocket.end();
    else this.stdin.pipe(this.#stdinSocket);
    if (this.#killWhenStarted) this.#sendKill(this.#killWhenStarted);
    this.emit('spawn');
  }

  failed(message: string, code: string | undefined): void {
    this.emit('error', Object.assign(new Error(message), { code }));
  }

  exited(code: number | null, signal: NodeJS.Signals | null): void {
    if (this.#state === 'exited') return;
    const wasRunning = this.#state === 'running';
    this.#state = 'exited';
    this.exitCode = code;
    this.signalCode = signal;
    this.#stdinSocket.destroy();
    // Never started: nothing will ever close the outputs from the other side.
    if (!wasRunning) for (const output of [this.stdout, this.stderr]) output.destroy();
    this.emit('exit', code, signal);
    this.#maybeClose();
  }

  #maybeClose(): void {
    if (this.#state === 'exited' && this.#openOutputs === 0) this.emit('close', this.exitCode, this.signalCode);
  }
}

/** The launcher process, its socket server, and the processes it runs for this host process. */
export class Launcher {
  readonly #helper: ChildProcess;
  readonly #server: Server;
  readonly #path: string;
  readonly #folder: string;
  readonly #onDeath: (launcher: Launcher, death: LauncherDeath) => void;
  readonly #startedAt = Date.now();
  readonly #running = new Map<number, LaunchedProcess>();
  /** The launcher's ends of the sockets of each launch, as they are accepted and named. */
  readonly #accepted = new Map<number, Socket[]>();
  /** What each launch runs, until its sockets are all accepted. */
  readonly #starting = new Map<number, { command: string; args: readonly string[]; options: LaunchOptions }>();
  /** Told when nothing runs any more (close waits for that). */
  readonly #whenDrained: Array<() => void> = [];
  #nextId = 1;
  #broken = false;
  #closing = false;
  #gone = false;
  #removed: Promise<void> | undefined;

  private constructor(helper: ChildProcess, server: Server, folder: string, onDeath: (launcher: Launcher, death: LauncherDeath) => void) {
    this.#helper = helper;
    this.#server = server;
    this.#folder = folder;
    this.#onDeath = onDeath;
    this.#path = join(folder, 's');
    server.on('connection', (socket) => this.#name(socket));
    helper.on('message', (message: HelperMessage) => this.#onMessage(message));
    helper.once('exit', () => this.#onHelperGone());
  }

  /** Starts a launcher; `onDeath` is told once if it ends other than through `close`. */
  static async start(onDeath: (launcher: Launcher, death: LauncherDeath) => void): Promise<Launcher> {
    const folder = await mkdtemp(join(tmpdir(), 'repohost-git-'));
    try {
      const server = createServer();
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen({ path: join(folder, 's'), backlog: BACKLOG }, () => resolve());
      });
      server.unref();
      const helper = spawn(process.execPath, ['-e', LAUNCHER_SOURCE], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'], env: { PATH: process.env.PATH ?? '' } });
      const ready = new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error('the git launcher did not start')), 10_000);
        helper.once('error', reject);
        helper.once('exit', () => reject(new Error('the git launcher ended while starting')));
        helper.on('message', (message: HelperMessage) => {
          if (message.type !== 'ready') return;
          clearTimeout(timer);
          resolve();
        });
      });
      try {
        await ready;
      } catch (error) {
        helper.kill('SIGKILL');
        server.close();
        throw error;
      }
      helper.unref();
      helper.channel?.unref();
      return new Launcher(helper, server, folder, onDeath);
    } catch (error) {
      await rm(folder, { recursive: true, force: true });
      throw error;
    }
  }

  /** Up, and not in the middle of a burst: more launches starting at once than the socket backlog takes go direct. */
  get usable(): boolean {
    return !this.#broken && this.#helper.connected && this.#starting.size < MAX_STARTING;
  }

  launch(command: string, args: readonly string[], options: LaunchOptions): LaunchedProcess {
    const id = this.#nextId++;
    // Each connection first says which launch and which of its fds it is (see #name).
    const mine = [0, 1, 2].map((fd) => {
      const socket = connect(this.#path);
      const name = Buffer.alloc(NAME_BYTES);
      name.writeUInt32BE(id, 0);
      name.writeUInt32BE(fd, 4);
      socket.write(name);
      return socket;
    }) as [Socket, Socket, Socket];
    const child = new LaunchedProcess(mine, (signal) => this.#send({ type: 'kill', id, signal }));
    this.#track(id, child);
    this.#starting.set(id, { command, args, options });
    // A socket failing before git runs means it never will; later, git's exit tells what happened (an EPIPE on its
    // stdin, say, when it stopped reading early, is no failure of its own).
    for (const socket of mine) {
      socket.once('error', (error) => {
        if (child.starting) this.#abandon(id, error);
      });
    }
    return child;
  }

  /**
   * Reads the name a connection starts with, and once a launch has its three sockets, passes them to the launcher
   * with the command. Nothing else is ever written to them before the launcher has started git and closed its
   * copies (a launch's stdin waits for that), so reading the name reads nothing of git's input.
   */
  #name(socket: Socket): void {
    socket.on('error', () => socket.destroy());
    let name = Buffer.alloc(0);
    const onData = (chunk: Buffer) => {
      name = Buffer.concat([name, chunk]);
      if (name.length < NAME_BYTES) return;
      socket.off('data', onData);
      socket.pause();
      const id = name.readUInt32BE(0);
      const fd = name.readUInt32BE(4);
      const start = this.#starting.get(id);
      if (!start || fd > 2 || name.length !== NAME_BYTES) return void socket.destroy();
      const sockets = this.#accepted.get(id) ?? [];
      sockets[fd] = socket;
      this.#accepted.set(id, sockets);
      if (sockets.filter(Boolean).length < 3) return;
      this.#accepted.delete(id);
      this.#starting.delete(id);
      sockets.forEach((accepted, index) => this.#send({ type: 'fd', id, fd: index }, accepted));
      this.#send({ type: 'spawn', id, command: start.command, args: start.args, cwd: start.options.cwd, env: start.options.env });
    };
    socket.on('data', onData);
    socket.resume();
  }

  /** While anything runs, the channel keeps the process alive: its exit may come after its outputs closed. */
  #track(id: number, child: LaunchedProcess): void {
    if (this.#running.size === 0) this.#helper.channel?.ref();
    this.#running.set(id, child);
  }

  #untrack(id: number): LaunchedProcess | undefined {
    const child = this.#running.get(id);
    if (!child) return undefined;
    this.#running.delete(id);
    if (this.#running.size === 0) {
      this.#helper.channel?.unref();
      for (const drained of this.#whenDrained.splice(0)) drained();
    }
    return child;
  }

  /** Ends the launcher once the processes it runs have ended (their exits come through it). */
  async close(): Promise<void> {
    this.#closing = true;
    if (this.#running.size > 0 && !this.#broken) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([new Promise<void>((resolve) => this.#whenDrained.push(resolve)), new Promise<void>((resolve) => (timer = setTimeout(resolve, 10_000)))]);
      clearTimeout(timer);
    }
    this.#broken = true;
    if (this.#helper.connected) this.#helper.disconnect();
    await this.#removeSocket();
  }

  #removeSocket(): Promise<void> {
    this.#removed ??= (async () => {
      this.#server.close();
      await rm(this.#folder, { recursive: true, force: true });
    })();
    return this.#removed;
  }

  #send(message: object, handle?: Socket): void {
    if (!this.#helper.connected) return;
    this.#helper.send(message, handle as never, (error) => {
      if (error) this.#onHelperGone();
    });
  }

  #onMessage(message: HelperMessage): void {
    if (message.type === 'ready') return;
    if (message.type === 'exit') return this.#untrack(message.id)?.exited(message.code, message.signal);
    const child = this.#running.get(message.id);
    if (message.type === 'spawned') child?.started(message.pid);
    else child?.failed(message.message, message.code);
  }

  /** A launch whose sockets failed: it never starts (the launcher may still run it; then it is killed). */
  #abandon(id: number, error: Error): void {
    this.#starting.delete(id);
    for (const socket of this.#accepted.get(id) ?? []) socket?.destroy();
    this.#accepted.delete(id);
    const child = this.#untrack(id);
    if (!child) return;
    child.failed(`git could not be started: ${error.message}`, (error as NodeJS.ErrnoException).code);
    child.exited(null, null);
    if (child.pid) child.kill('SIGKILL');
  }

  /**
   * The launcher died (or its channel broke): what it ran is killed and reported killed, and this launcher is done
   * with; whoever started it is told once (it is restarted from there).
   */
  #onHelperGone(): void {
    if (this.#gone) return;
    this.#gone = true;
    this.#broken = true;
    for (const id of [...this.#running.keys()]) {
      const child = this.#untrack(id)!;
      if (child.pid) {
        try {
          process.kill(child.pid, 'SIGKILL');
        } catch {
          /* already gone */
        }
      }
      child.exited(null, 'SIGKILL');
    }
    if (this.#closing) return;
    // A broken channel with the process still there: it would never be told to end.
    if (this.#helper.exitCode === null && this.#helper.signalCode === null) this.#helper.kill('SIGKILL');
    void this.#removeSocket().catch(() => undefined);
    this.#onDeath(this, { pid: this.#helper.pid, code: this.#helper.exitCode, signal: this.#helper.signalCode, livedMs: Date.now() - this.#startedAt });
  }
}

