const HUNK = /^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@/;

/** A line of a patch's hunks (not a header, not `\ No newline`), with its numbers in the old and new file. */
interface PatchLine {
  kind: string;
  oldLine: number;
  newLine: number;
  /** Its index in the patch's lines, and that of the header of its hunk. */
  index: number;
  header: number;
  /** GitHub's position: the line's index counted from the line after the first hunk's header. */
  position: number;
}

function* patchLines(lines: readonly string[]): Generator<PatchLine> {
  let first = -1;
  let header = -1;
  let oldLine = 0;
  let newLine = 0;
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
    // Every line of a hunk has its mark; an empty one is only what follows the patch's last newline.
    if (header < 0 || text === '' || text.startsWith('\\')) continue;
    const kind = text[0]!;
    yield { kind, oldLine, newLine, index, header, position: index - first };
    if (kind !== '+') oldLine += 1;
    if (kind !== '-') newLine += 1;
  }
}

/**
 * Where a line of a file sits in its patch, as GitHub's review comments say it: `diff_hunk`, the lines from the header
 * of the hunk holding `line` (a line of the new file on the RIGHT side, of the old one on the LEFT) down to that line,
 * and `position` (see PatchLine). Undefined when the line is not part of the diff (GitHub then refuses the comment).
 */
export function hunkUpTo(patch: string, line: number, side: 'LEFT' | 'RIGHT'): { diff_hunk: string; position: number } | undefined {
  const lines = patch.split('\n');
  for (const at of patchLines(lines)) {
    const hit = side === 'RIGHT' ? at.kind !== '-' && at.newLine === line : at.kind !== '+' && at.oldLine === line;
    if (hit) return { diff_hunk: lines.slice(at.header, at.index + 1).join('\n'), position: at.position };
  }
  return undefined;
}

/**
 * The line a patch `position` (GitHub's deprecated way to place a review comment) stands for: a removed line is on
 * the LEFT, any other on the RIGHT. Undefined for a position outside the patch or on a hunk's header.
 */
export function lineAtPosition(patch: string, position: number): { line: number; side: 'LEFT' | 'RIGHT' } | undefined {
  for (const at of patchLines(patch.split('\n'))) {
    if (at.position === position) return at.kind === '-' ? { line: at.oldLine, side: 'LEFT' } : { line: at.newLine, side: 'RIGHT' };
  }
  return undefined;
}
