import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import ssh2 from 'ssh2';
import { createOnce } from './secret-file.js';

/** The host key files, as OpenSSH names them, and how each is made. */
const HOST_KEYS: ReadonlyArray<{ file: string; make: () => Promise<string> }> = [
  { file: 'ssh_host_ed25519_key', make: () => generate((done) => utils.generateKeyPair('ed25519', done)) },
  { file: 'ssh_host_rsa_key', make: () => generate((done) => utils.generateKeyPair('rsa', { bits: 3072 }, done)) },
];

/** Host keys of throw-away hosts (`:memory:`), made once per process: an RSA key takes most of a second to make. */
let ephemeralKeys: Promise<Buffer[]> | undefined;

const { utils } = ssh2;

/** A new private key, made off the event loop, in OpenSSH's format. */
function generate(start: (done: (error: Error | null, keys: { private: string }) => void) => void): Promise<string> {
  return new Promise((resolve, reject) => start((error, keys) => (error ? reject(error) : resolve(keys.private))));
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
  return await Promise.all(HOST_KEYS.map((key) => createOnce(join(folder, key.file), key.make)));
}
