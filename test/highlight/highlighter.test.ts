import { readdir, readFile } from 'node:fs/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { Highlighter, MAX_HIGHLIGHT_BYTES, MAX_HIGHLIGHT_LINE } from '../../lib/highlight/index.js';

/** The nice value of each thread of this process (Linux: /proc/self/task/<tid>/stat, field 19). */
async function threadNiceValues(): Promise<Map<string, number>> {
  const values = new Map<string, number>();
  for (const tid of await readdir('/proc/self/task')) {
    const stat = await readFile(`/proc/self/task/${tid}/stat`, 'utf8').catch(() => undefined);
    // Fields after the command name (which may hold spaces) start at field 3.
    if (stat) values.set(tid, Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19 - 3]));
  }
  return values;
}

describe('the highlighter', () => {
  const highlighter = new Highlighter(1);
  afterAll(() => highlighter.close());

  it('highlights by file name, escapes the source, and leaves alone what is unknown, too large or too long a line', async () => {
    const lines = await highlighter.lines('a.ts', 'const x = "<b>";\nexport {}\n');
    expect(lines![0]).toContain('<span class="hljs-keyword">const</span>');
    expect(lines![0]).toContain('&lt;b&gt;');
    // A comment across lines: each line closes the spans it opens and reopens those still open, so rows stand alone.
    expect(await highlighter.lines('c.ts', '/* one\ntwo */ let y;')).toEqual([
      '<span class="hljs-comment">/* one</span>',
      '<span class="hljs-comment">two */</span> <span class="hljs-keyword">let</span> y;',
    ]);
    expect(await highlighter.lines('notes.unknown-kind', 'const x = 1;')).toBeUndefined();
    const line = `let a = 1; // ${'words '.repeat(15)}\n`;
    expect(await highlighter.lines('edge.ts', line.repeat(Math.floor(MAX_HIGHLIGHT_BYTES / line.length)))).toBeDefined();
    expect(await highlighter.lines('big.ts', line.repeat(Math.floor(MAX_HIGHLIGHT_BYTES / line.length) + 1))).toBeUndefined();
    // One 40 KB token alone would keep highlight.js busy for seconds.
    expect(await highlighter.lines('minified.ts', `let a = 1;\n${'x'.repeat(MAX_HIGHLIGHT_LINE + 1)}\n`)).toBeUndefined();
  });

  it.runIf(process.platform === 'linux')('runs at a lower priority than the threads answering requests (nice 10, that thread only)', async () => {
    const own = new Highlighter(1);
    const before = await threadNiceValues();
    await own.lines('b.ts', 'let y = 2;');
    const after = await threadNiceValues();
    await own.close();
    const lowered = [...after].filter(([tid, nice]) => nice === 10 && !before.has(tid));
    expect(lowered.length).toBeGreaterThanOrEqual(1);
    // The process's own (main) thread keeps its priority.
    expect(after.get(String(process.pid))).toBe(0);
  });
});
