const HUNK = /^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@/;

/**
 * Where a line of a file sits in its patch, as GitHub's review comments say it: `diff_hunk`, the lines from the header
 * of the hunk holding `line` (a line of the new file on the RIGHT side, of the old one on the LEFT) down to that line,
 * and `position`, the line's index in the patch counted from the line after the first hunk's header. Undefined when
 * the line is not part of the diff (GitHub then refuses the comment).
 */
export function hunkUpTo(patch: string, line: number, side: 'LEFT' | 'RIGHT'): { diff_hunk: string; position: number } | undefined {
  let first = -1;
  let header = -1;
  let oldLine = 0;
  let newLine = 0;
  const lines = patch.split('\n');
  for (let index = 0; index < lines.length; index++) {
    const text = lines[index]!;
    const start = HUNK.exec(text);
    if (start) {
      if (first < 0) first = index;
      header = index;
      oldLine = Number(start[1]);
      newLine = Number(start[2]);
      continue;
    }
    if (header < 0 || text.startsWith('\\')) continue;
    const kind = text[0];
    const hit = side === 'RIGHT' ? kind !== '-' && newLine === line : kind !== '+' && oldLine === line;
    if (hit) return { diff_hunk: lines.slice(header, index + 1).join('\n'), position: index - first };
    if (kind !== '+') oldLine += 1;
    if (kind !== '-') newLine += 1;
  }
  return undefined;
}

/**
 * The line a patch `position` (GitHub's deprecated way to place a review comment, see `hunkUpTo`) stands for: a
 * removed line is on the LEFT, any other on the RIGHT. Undefined for a position outside the patch or on a hunk's
 * header.
 */
export function lineAtPosition(patch: string, position: number): { line: number; side: 'LEFT' | 'RIGHT' } | undefined {
  let first = -1;
  let oldLine = 0;
  let newLine = 0;
  const lines = patch.split('\n');
  for (let index = 0; index < lines.length; index++) {
    const text = lines[index]!;
    const start = HUNK.exec(text);
    if (start) {
      if (first < 0) first = index;
      oldLine = Number(start[1]);
      newLine = Number(start[2]);
      continue;
    }
    if (first < 0 || text.startsWith('\\')) continue;
    const kind = text[0];
    if (index - first === position) return kind === '-' ? { line: oldLine, side: 'LEFT' } : { line: newLine, side: 'RIGHT' };
    if (kind !== '+') oldLine += 1;
    if (kind !== '-') newLine += 1;
  }
  return undefined;
}
