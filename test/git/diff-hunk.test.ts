import { describe, expect, it } from 'vitest';
import { hunkUpTo, lineAtPosition } from '../../lib/git/diff-hunk.js';

// A patch of two hunks: position 1 is the line after the first header, and a later header counts as a position.
const PATCH = ['@@ -1,3 +1,3 @@', ' keep', '-old two', '+new two', ' three', '@@ -10,2 +10,3 @@', ' ten', '+added', ' eleven'].join('\n');

describe('patch positions', () => {
  it('names the line and side of each position, removed lines on the LEFT, and nothing for a header or past the end', () => {
    expect([1, 2, 3, 4, 5, 6, 7, 8, 9].map((position) => lineAtPosition(PATCH, position))).toEqual([
      { line: 1, side: 'RIGHT' },
      { line: 2, side: 'LEFT' },
      { line: 2, side: 'RIGHT' },
      { line: 3, side: 'RIGHT' },
      undefined,
      { line: 10, side: 'RIGHT' },
      { line: 11, side: 'RIGHT' },
      { line: 12, side: 'RIGHT' },
      undefined,
    ]);
  });

  it("counts nothing past the patch's last newline", () => {
    expect(lineAtPosition(`${PATCH}\n`, 9)).toBeUndefined();
    expect(hunkUpTo(`${PATCH}\n`, 13, 'RIGHT')).toBeUndefined();
  });

  it('is the inverse of the position hunkUpTo gives a line', () => {
    for (let position = 1; position <= 8; position++) {
      const placed = lineAtPosition(PATCH, position);
      if (placed) expect(hunkUpTo(PATCH, placed.line, placed.side)?.position).toBe(position);
    }
  });
});
