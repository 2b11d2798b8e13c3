import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { createOnce } from '../secret-file.js';

/** Whom a token speaks for: an account, or a deploy key (by its key id). */
export type TokenPrincipal = { kind: 'user'; id: number } | { kind: 'deploy'; id: number };

/**
 * The claims' format. 2: since repositories and keys take ids never given twice (schema 27, issue 38); tokens of
 * format 1, minted while a deleted repository's or key's id could still go to the next one made, are refused.
 */
const FORMAT = 2;

interface Claims {
  v: typeof FORMAT;
  p: 'u' | 'k';
  i: number;
  r: number;
  o: 'upload' | 'download';
  e: number;
}

/** The secrets of each data folder, read (or made) once per process. */
const secrets = new Map<string, Promise<Buffer>>();

/**
 * Short-lived tokens that `git-lfs-authenticate` (over SSH) hands to git-lfs for the HTTP batch and transfer requests:
 * signed with a secret kept in the data folder (so every instance sharing it accepts them), naming one principal, one
 * repository and one operation, valid for an hour.
 */
export class LfsTokens {
  private constructor(private readonly secret: Buffer) {}

  static async of(dataDir: string): Promise<LfsTokens> {
    let secret = secrets.get(dataDir);
    if (!secret) {
      secret = (async () => {
        const folder = join(dataDir, 'ssh');
        await mkdir(folder, { recursive: true, mode: 0o700 });
        return await createOnce(join(folder, 'lfs-token-key'), async () => randomBytes(32).toString('hex'));
      })();
      secrets.set(dataDir, secret);
      secret.catch(() => secrets.delete(dataDir));
    }
    return new LfsTokens(await secret);
  }

  #sign(payload: string): string {
    return createHmac('sha256', this.secret).update(payload).digest('base64url');
  }

  mint(principal: TokenPrincipal, repoId: number, operation: 'upload' | 'download', expiresAt: number): string {
    const claims: Claims = { v: FORMAT, p: principal.kind === 'user' ? 'u' : 'k', i: principal.id, r: repoId, o: operation, e: Math.floor(expiresAt / 1000) };
    const payload = Buffer.from(JSON.stringify(claims)).toString('base64url');
    return `${payload}.${this.#sign(payload)}`;
  }

  /** The principal and operation a token grants on the repository, if it is genuine and not expired. */
  verify(token: string, repoId: number, now: number): { principal: TokenPrincipal; operation: 'upload' | 'download' } | undefined {
    const [payload = '', signature = ''] = token.split('.');
    const expected = Buffer.from(this.#sign(payload));
    const given = Buffer.from(signature);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
    let claims: Claims;
    try {
      claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Claims;
    } catch {
      return undefined;
    }
    if (claims.v !== FORMAT || claims.r !== repoId || claims.e * 1000 < now) return undefined;
    return { principal: { kind: claims.p === 'u' ? 'user' : 'deploy', id: claims.i }, operation: claims.o === 'upload' ? 'upload' : 'download' };
  }
}
