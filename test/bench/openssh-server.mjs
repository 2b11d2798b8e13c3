// OpenSSH's own sshd, run as the current user on a free loopback port with a private configuration, host key and
// authorized_keys in a folder of the caller's: the baseline git over SSH is measured against (bench:git). sshd runs
// `git-upload-pack '<path>'` and `git-receive-pack '<path>'` through the user's shell, as on any server. Nothing else
// on the machine is touched, except that sshd's privilege-separation folder (/run/sshd) is made when missing; it is
// left in place (as the system's ssh service would make it), since another sshd may be using it by then.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { copyFile, mkdir, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { delimiter, isAbsolute, join } from 'node:path';

/** The sshd binary (BENCH_SSHD to use another; sshd re-executes itself, so the path is absolute). */
export const SSHD = process.env.BENCH_SSHD ?? '/usr/sbin/sshd';
const PRIVILEGE_SEPARATION = '/run/sshd';
const START_TIMEOUT_MS = 10_000;

const onPath = (name) => (process.env.PATH ?? '').split(delimiter).some((dir) => dir && existsSync(join(dir, name)));

/** Runs a command to its end; resolves with what it wrote (stdout, then stderr). */
function run(command, args) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(out.trim()) : reject(new Error(`${command} ${args.join(' ')}: ${code}\n${out}`))));
  });
}

/** Why git over SSH cannot be measured against OpenSSH here, or undefined when it can. */
export function openSshMissing() {
  if (!isAbsolute(SSHD)) return `BENCH_SSHD must be an absolute path, not ${SSHD}`;
  if (!existsSync(SSHD)) return `${SSHD} not found (Debian: apt-get install openssh-server)`;
  for (const tool of ['ssh', 'ssh-keygen']) if (!onPath(tool)) return `${tool} not found on PATH (Debian: apt-get install openssh-client)`;
  return undefined;
}

/** The OpenSSH client's version line (`ssh -V`), e.g. "OpenSSH_9.2p1 Debian-2+deb12u10, OpenSSL 3.0.19 27 Jan 2026". */
export const openSshVersion = () => run('ssh', ['-V']);

/** A new ed25519 key pair without a passphrase at `path` (private) and `path`.pub; resolves with `path`. */
export async function makeKeyPair(path, comment = 'bench') {
  await run('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', comment, '-f', path]);
  return path;
}

/**
 * The client command both sides are reached with: only this key, no agent, no config file, no prompts, no host checks,
 * and BENCH_SSH_OPTIONS if set (e.g. `-o KexAlgorithms=curve25519-sha256`: OpenSSH 9 picks sntrup761x25519 with its
 * own sshd, which repohost's ssh2 does not offer).
 */
export function sshCommand(key) {
  const extra = process.env.BENCH_SSH_OPTIONS ? ` ${process.env.BENCH_SSH_OPTIONS}` : '';
  return `ssh -F none -i ${key} -o IdentitiesOnly=yes -o IdentityAgent=none -o BatchMode=yes -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o LogLevel=ERROR${extra}`;
}

async function freePort() {
  const server = createServer();
  await new Promise((resolve, reject) => server.once('error', reject).listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Starts sshd with `config` in the foreground; resolves once it listens on `port`, rejects (sshd stopped) if it does not. */
function launch(config, port) {
  return new Promise((resolve, reject) => {
    const child = spawn(SSHD, ['-D', '-e', '-f', config], { stdio: ['ignore', 'ignore', 'pipe'], env: { PATH: process.env.PATH ?? '' } });
    // Logged connections are kept only as a short tail, for the message of a failure.
    let log = '';
    let settled = false;
    const failed = (why) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      child.kill('SIGKILL');
      reject(new Error(`sshd ${why}${log ? `:\n${log.trim()}` : ''}`));
    };
    const timer = setTimeout(() => failed(`did not listen within ${START_TIMEOUT_MS} ms`), START_TIMEOUT_MS);
    const exited = (code, signal) => failed(`exited (${signal ?? code}) before listening`);
    child.on('error', (error) => failed(`could not start (${error.message})`));
    child.once('exit', exited);
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (text) => {
      log = (log + text).slice(-2000);
      if (settled || !log.includes(`Server listening on 127.0.0.1 port ${port}.`)) return;
      settled = true;
      clearTimeout(timer);
      child.off('exit', exited);
      resolve(child);
    });
  });
}

/**
 * A private sshd in `dir` (made if missing) that lets in the current user with the public key `clientPublicKey` (a
 * file). Resolves with its port and `stop()` (which also runs, killing it, should this process exit first).
 */
export async function startOpenSshServer(dir, clientPublicKey) {
  await mkdir(dir, { recursive: true });
  const hostKey = await makeKeyPair(join(dir, 'ssh_host_ed25519_key'), 'bench-sshd');
  const authorizedKeys = join(dir, 'authorized_keys');
  await copyFile(clientPublicKey, authorizedKeys);
  if (!existsSync(PRIVILEGE_SEPARATION)) await mkdir(PRIVILEGE_SEPARATION, { recursive: true, mode: 0o755 });
  const config = join(dir, 'sshd_config');
  let child;
  let port;
  // The free port is only free when looked at: another program may take it before sshd does; then try another.
  for (let attempt = 1; !child; attempt++) {
    port = await freePort();
    await writeFile(config, [
      `Port ${port}`,
      'ListenAddress 127.0.0.1',
      `HostKey ${hostKey}`,
      `AuthorizedKeysFile ${authorizedKeys}`,
      'PidFile none',
      'StrictModes no',
      'UsePAM no',
      'PasswordAuthentication no',
      'KbdInteractiveAuthentication no',
      'PermitRootLogin prohibit-password',
      // git sends GIT_PROTOCOL=version=2 (ssh -o SendEnv): without this sshd would drop it and git fall back to v0.
      'AcceptEnv GIT_PROTOCOL',
      'PrintMotd no',
      // git without the machine's and the user's git config, as repohost runs it. SHLVL=1: bash sources ~/.bashrc
      // for a command run by sshd only in a top-level shell, and what the user's .bashrc does (root's runs `pyenv init`
      // on the machine this was written on: ~90 ms a session) is no cost of sshd's; the command still runs in the shell.
      'SetEnv GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null SHLVL=1',
      '',
    ].join('\n'));
    child = await launch(config, port).catch((error) => {
      if (attempt >= 3) throw error;
    });
  }
  const kill = () => child.kill('SIGKILL');
  process.once('exit', kill);
  return {
    port,
    async stop() {
      process.off('exit', kill);
      if (child.exitCode !== null || child.signalCode !== null) return;
      const gone = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      const late = setTimeout(kill, 2000);
      await gone;
      clearTimeout(late);
    },
  };
}
