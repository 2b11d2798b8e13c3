/** A Git LFS pointer file: what git holds in place of a file stored with LFS. */
export interface LfsPointer {
  oid: string;
  size: number;
}

/** Pointer files are small (about 130 bytes); anything larger is a file of its own. */
export const MAX_POINTER_BYTES = 1024;
const POINTER = /^version https:\/\/(?:git-lfs\.github\.com\/spec\/v1|hawser\.github\.com\/spec\/v1)\n(?:[a-z0-9.-]+ [^\n]*\n)*?oid sha256:([0-9a-f]{64})\nsize (\d{1,16})\n(?:[a-z0-9.-]+ [^\n]*\n)*$/;

/** The object a pointer file names (its spec's text: version first, then `oid sha256:` and `size`), or undefined. */
export function parseLfsPointer(bytes: Buffer): LfsPointer | undefined {
  if (bytes.length > MAX_POINTER_BYTES) return undefined;
  const match = POINTER.exec(bytes.toString('utf8'));
  return match ? { oid: match[1]!, size: Number(match[2]) } : undefined;
}
