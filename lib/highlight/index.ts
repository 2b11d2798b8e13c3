import { availableParallelism } from 'node:os';
import { createRequire } from 'node:module';
import { createHash } from 'node:crypto';
import { LruCache } from '../git/lru.js';
import { WorkerPool } from '../worker-pool.js';

/**
 * Server-side syntax highlighting with highlight.js (core plus the languages below; no DOM, no guessing: the
 * language comes from the file name). It runs in worker threads: highlight.js needs hundreds of milliseconds for a
 * large source file, which on the main thread would stall every other request.
 */
const LANGUAGES = [
  'bash', 'c', 'cpp', 'csharp', 'css', 'diff', 'dockerfile', 'go', 'ini', 'java', 'javascript', 'json', 'kotlin', 'makefile',
  'markdown', 'php', 'python', 'ruby', 'rust', 'sql', 'swift', 'typescript', 'xml', 'yaml',
] as const;
type Language = (typeof LANGUAGES)[number];

// Maps, not object literals: a file name is the user's, and 'constructor' or '__proto__' must not reach Object.prototype.
const BY_EXTENSION: ReadonlyMap<string, Language> = new Map(Object.entries({
  sh: 'bash', bash: 'bash', zsh: 'bash', c: 'c', h: 'c', cc: 'cpp', cpp: 'cpp', cxx: 'cpp', hpp: 'cpp', hh: 'cpp', cs: 'csharp',
  css: 'css', diff: 'diff', patch: 'diff', go: 'go', ini: 'ini', toml: 'ini', cfg: 'ini', java: 'java', js: 'javascript',
  mjs: 'javascript', cjs: 'javascript', jsx: 'javascript', json: 'json', kt: 'kotlin', kts: 'kotlin', mk: 'makefile', md: 'markdown',
  markdown: 'markdown', php: 'php', py: 'python', rb: 'ruby', rs: 'rust', sql: 'sql', swift: 'swift', ts: 'typescript', mts: 'typescript',
  cts: 'typescript', tsx: 'typescript', html: 'xml', htm: 'xml', xml: 'xml', svg: 'xml', vue: 'xml', yml: 'yaml', yaml: 'yaml',
} satisfies Record<string, Language>));
const BY_NAME: ReadonlyMap<string, Language> = new Map([['dockerfile', 'dockerfile'], ['makefile', 'makefile'], ['gnumakefile', 'makefile']]);

/** Source larger than this is shown plain: highlighting cost stays bounded per file. */
export const MAX_HIGHLIGHT_BYTES = 256 * 1024;
/**
 * Source with a longer line is shown plain too: highlight.js takes time growing with the square of a long token
 * (5 KB of one identifier: 0.2 s, 40 KB: 7 s), and such lines are minified or generated code anyway.
 */
export const MAX_HIGHLIGHT_LINE = 1000;
/** A highlighting that takes longer is given up (its worker ended): the file stays plain. */
export const HIGHLIGHT_TIME_LIMIT_MS = 5000;

/** The language highlight.js should use for a file name, or undefined (plain text). */
export function languageOf(fileName: string): Language | undefined {
  const base = fileName.slice(fileName.lastIndexOf('/') + 1).toLowerCase();
  const byName = BY_NAME.get(base);
  if (byName) return byName;
  const dot = base.lastIndexOf('.');
  return dot > 0 ? BY_EXTENSION.get(base.slice(dot + 1)) : undefined;
}

// highlight.js is loaded in the worker by absolute paths resolved here, wherever repohost is installed.
// Highlighting is background work (a page is served plain until it is done), so the worker lowers its own priority:
// on Linux the nice value belongs to each thread, and setPriority(0, …) names the calling one. Elsewhere it would
// name the whole process, so it is left as it is.
const WORKER_SOURCE = `
const { parentPort, workerData } = load('node:worker_threads');
if (process.platform === 'linux') try { load('node:os').setPriority(0, 10); } catch {}
const hljs = load(workerData.core);
for (const [name, path] of workerData.languages) hljs.registerLanguage(name, load(path));
const TAG = /<span class="([^"]*)">|<\\/span>/g;
// Splits highlighted HTML into lines that each stand alone: a span open at a line break is closed at the end of the
// line and reopened on the next, so every line can sit in its own table row. Done here, off the event loop.
function splitLines(highlighted) {
  const lines = [];
  const open = [];
  for (const line of highlighted.split('\\n')) {
    let out = open.map((cls) => '<span class="' + cls + '">').join('') + line;
    for (const match of line.matchAll(TAG)) {
      if (match[1] !== undefined) open.push(match[1]);
      else open.pop();
    }
    out += '</span>'.repeat(open.length);
    lines.push(out);
  }
  return lines;
}
parentPort.on('message', ({ code, language }) => {
  try {
    parentPort.postMessage({ result: splitLines(hljs.highlight(code, { language, ignoreIllegals: true }).value) });
  } catch (error) {
    parentPort.postMessage({ error: String((error && error.message) || error) });
  }
});`;

function longestLine(text: string): number {
  let longest = 0;
  for (let start = 0; start <= text.length; ) {
    const end = text.indexOf('\n', start);
    const stop = end === -1 ? text.length : end;
    longest = Math.max(longest, stop - start);
    start = stop + 1;
  }
  return longest;
}

/** A patch longer than this (characters) is shown plain. */
export const MAX_HIGHLIGHT_PATCH = 32 * 1024;

/** A patch's lines highlighted: its old side (context and removed lines) and its new side (context and added lines). */
export interface PatchHighlight {
  old: string[];
  new: string[];
}

/** The text of each side of a patch, hunk after hunk (what highlight.js reads as one piece of source per side). */
function patchSides(patch: string): { old: string; new: string } {
  const old: string[] = [];
  const fresh: string[] = [];
  for (const line of patch.split('\n')) {
    if (line.startsWith('@@') || line.startsWith('\\')) continue;
    const sign = line[0];
    const text = line.slice(1);
    if (sign === '-') old.push(text);
    else if (sign === '+') fresh.push(text);
    else if (sign === ' ') {
      old.push(text);
      fresh.push(text);
    }
  }
  return { old: old.join('\n'), new: fresh.join('\n') };
}

/** Where highlight.js and its languages are installed, for the workers to load. */
function highlightModulePaths(): { core: string; languages: [Language, string][] } {
  const require = createRequire(import.meta.url);
  return { core: require.resolve('highlight.js/lib/core'), languages: LANGUAGES.map((name) => [name, require.resolve(`highlight.js/lib/languages/${name}`)]) };
}

export class Highlighter {
  readonly #pool: WorkerPool<{ code: string; language: Language }, string[]>;
  /** Patches highlighted, by a hash of the file name and the patch (a patch's lines never change). */
  readonly #patches = new LruCache<string, Promise<PatchHighlight | undefined>>(128);

  constructor(size = Math.max(1, availableParallelism() - 1)) {
    this.#pool = new WorkerPool({ source: WORKER_SOURCE, workerData: highlightModulePaths, size, name: 'highlighter', jobTimeoutMs: HIGHLIGHT_TIME_LIMIT_MS });
  }

  /**
   * The lines of a file as safe HTML (highlight.js escapes the source; only its own `<span class="hljs-…">` tags
   * are markup), or undefined when the language is unknown, the text larger than MAX_HIGHLIGHT_BYTES or a line
   * longer than MAX_HIGHLIGHT_LINE.
   */
  async lines(fileName: string, text: string): Promise<string[] | undefined> {
    const language = languageOf(fileName);
    if (!language || Buffer.byteLength(text) > MAX_HIGHLIGHT_BYTES || longestLine(text) > MAX_HIGHLIGHT_LINE) return undefined;
    return this.#pool.run({ code: text, language });
  }

  /**
   * A patch's lines highlighted (see PatchHighlight), cached; undefined where `lines` would not highlight the file.
   * Each side is highlighted as one text, so a comment or string spanning lines keeps its colour.
   */
  patch(fileName: string, patch: string): Promise<PatchHighlight | undefined> {
    // Larger patches are shown plain: the cache's memory stays bounded (128 of at most 32 KiB, each side).
    if (patch.length > MAX_HIGHLIGHT_PATCH || !languageOf(fileName)) return Promise.resolve(undefined);
    const key = createHash('sha1').update(fileName).update('\0').update(patch).digest('hex');
    let highlighted = this.#patches.get(key);
    if (!highlighted) {
      const sides = patchSides(patch);
      highlighted = Promise.all([this.lines(fileName, sides.old), this.lines(fileName, sides.new)])
        .then(([old, fresh]) => (old && fresh ? { old, new: fresh } : undefined))
        .catch(() => undefined);
      this.#patches.set(key, highlighted);
    }
    return highlighted;
  }

  /** Gets a worker loading highlight.js before the first file is shown (code pages call it). */
  warm(): void {
    this.#pool.warm();
  }

  close(): Promise<void> {
    return this.#pool.close();
  }
}
