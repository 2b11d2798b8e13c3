import { mkdir, rename } from 'node:fs/promises';
import { join } from 'node:path';
import ssh2 from 'ssh2';
import { createOnce } from '../secret-file.js';

/** The host key files, as OpenSSH names them, and how each is made. */
const HOST_KEYS: ReadonlyArray<{ file: string; make: () => Promise<string> }> = [
  { file: 'ssh_host_ed25519_key', make: () => newHostKey('ed25519') },
  { file: 'ssh_host_rsa_key', make: () => newHostKey('rsa') },
];

/** Host keys of throw-away hosts (`:memory:`), made once per process: an RSA key takes most of a second to make. */
let ephemeralKeys: Promise<Buffer[]> | undefined;

const { utils } = ssh2;

/** Tries at a key ssh2 can read back (see `newHostKey`). */
const KEY_ATTEMPTS = 10;

/**
 * A new host key, made off the event loop, in OpenSSH's format. About one Ed25519 key in 250 that ssh2 writes is one
 * it cannot read back ("Malformed OpenSSH private key"), which would stop the SSH server from starting, every time
 * once the key is kept: a key is kept only once it reads back, and made again otherwise.
 */
export async function newHostKey(type: 'ed25519' | 'rsa'): Promise<string> {
  for (let attempt = 1; ; attempt++) {
    const key = await new Promise<string>((resolve, reject) => {
      const done = (error: Error | null, keys: { private: string }) => (error ? reject(error) : resolve(keys.private));
      if (type === 'rsa') utils.generateKeyPair('rsa', { bits: 3072 }, done);
      else utils.generateKeyPair('ed25519', done);
    });
    if (!(utils.parseKey(key) instanceof Error) || attempt === KEY_ATTEMPTS) return key;
  }
}

/**
 * The host's SSH keys (Ed25519, then RSA), in `<dataDir>/ssh` as OpenSSH's own files: made at the first start with SSH
 * and kept, so clients' `known_hosts` stay valid across restarts and upgrades. Throw-away hosts share keys made once.
 */
export async function loadHostKeys(dataDir: string, ephemeral: boolean): Promise<Buffer[]> {
  if (ephemeral) {
    ephemeralKeys ??= Promise.all(HOST_KEYS.map(async (key) => Buffer.from(await key.make())));
    return await ephemeralKeys;
  }
  const folder = join(dataDir, 'ssh');
  await mkdir(folder, { recursive: true, mode: 0o700 });
  return await Promise.all(HOST_KEYS.map((key) => usableKey(join(folder, key.file), key.make)));
}

/**
 * The key kept at `path`, made at the first start. One that cannot be read (an earlier version kept the malformed keys
 * `newHostKey` now makes again) never let the server start, so no client knows it: it is moved aside and replaced.
 */
async function usableKey(path: string, make: () => Promise<string>): Promise<Buffer> {
  const key = await createOnce(path, make);
  if (!(utils.parseKey(key) instanceof Error)) return key;
  await rename(path, `${path}.unreadable`).catch(() => undefined);
  return await createOnce(path, make);
}
