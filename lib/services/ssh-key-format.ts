import { createHash } from 'node:crypto';
import { invalid } from '../errors.js';

/** A public key as a user pastes it, checked and normalised. */
export interface PublicKey {
  type: string;
  /** `<type> <base64>`: the comment dropped, one space. */
  key: string;
  /** As OpenSSH shows it (`ssh-keygen -l`): `SHA256:` and the unpadded base64 of the key's SHA-256. */
  fingerprint: string;
  /** The comment after the key, if any (a title when none is given). */
  comment: string;
}

/** The key types accepted (OpenSSH's current ones); DSA is refused as OpenSSH itself no longer accepts it. */
const ACCEPTED_TYPES: ReadonlySet<string> = new Set(['ssh-ed25519', 'ssh-rsa', 'ecdsa-sha2-nistp256', 'ecdsa-sha2-nistp384', 'ecdsa-sha2-nistp521']);
/** RSA keys shorter than this are refused (GitHub and OpenSSH refuse short ones too). */
const MIN_RSA_BITS = 2048;
/** More than any public key line of an accepted type (an RSA 16384-bit key is about 2.8 KB). */
const MAX_KEY_CHARS = 16 * 1024;

const MALFORMED = 'key is invalid. You must supply a key in OpenSSH public key format';

/** OpenSSH's fingerprint of a key blob (the wire form). */
export function fingerprintOf(blob: Buffer): string {
  return `SHA256:${createHash('sha256').update(blob).digest('base64').replace(/=+$/, '')}`;
}

/** The bits of an RSA key's modulus, read from its blob (string type, mpint e, mpint n). */
function rsaBits(blob: Buffer): number {
  let offset = 0;
  const field = (): Buffer => {
    const length = blob.readUInt32BE(offset);
    const value = blob.subarray(offset + 4, offset + 4 + length);
    offset += 4 + length;
    return value;
  };
  field();
  field();
  const modulus = field();
  let start = 0;
  while (start < modulus.length && modulus[start] === 0) start++;
  if (start === modulus.length) return 0;
  return (modulus.length - start - 1) * 8 + (32 - Math.clz32(modulus[start]!));
}

/**
 * Checks a public key in OpenSSH's one-line form (`ssh-ed25519 AAAA… comment`) and normalises it. Refuses private keys,
 * more than one key, unknown or weak types, and anything that does not parse, with a message saying which.
 */
export async function parsePublicKey(text: unknown): Promise<PublicKey> {
  if (typeof text !== 'string' || text.trim() === '') throw invalid('key is missing');
  if (text.length > MAX_KEY_CHARS) throw invalid(MALFORMED);
  const trimmed = text.trim();
  if (/PRIVATE KEY/.test(trimmed)) throw invalid('key is a private key: paste the public key (the .pub file)');
  if (/[\r\n]/.test(trimmed)) throw invalid('key must be a single public key on one line');
  const [type = '', data = ''] = trimmed.split(/\s+/);
  if (type === 'ssh-dss') throw invalid('key is a DSA key, which is no longer accepted: use an Ed25519, ECDSA or RSA (2048 bits or more) key');
  if (!ACCEPTED_TYPES.has(type)) throw invalid(`${MALFORMED} (key type ${JSON.stringify(type.slice(0, 40))} is not supported)`);
  // ssh2 is loaded when first needed: a host that never sees a key does not pay for it at start.
  const { utils } = (await import('ssh2')).default;
  let parsed;
  try {
    parsed = utils.parseKey(trimmed);
  } catch {
    throw invalid(MALFORMED);
  }
  if (parsed instanceof Error || Array.isArray(parsed) || parsed.isPrivateKey() || parsed.type !== type) throw invalid(MALFORMED);
  const blob = parsed.getPublicSSH();
  // The blob must be exactly what was pasted (nothing after the key's own fields).
  if (blob.toString('base64') !== data) throw invalid(MALFORMED);
  if (type === 'ssh-rsa') {
    const bits = rsaBits(blob);
    if (bits < MIN_RSA_BITS) throw invalid(`key is an RSA key of ${bits} bits; at least ${MIN_RSA_BITS} are needed`);
  }
  return { type, key: `${type} ${data}`, fingerprint: fingerprintOf(blob), comment: parsed.comment ?? '' };
}
