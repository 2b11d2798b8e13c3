import { LruCache } from '../../../git/lru.js';
import { HIGHLIGHT_TIME_LIMIT_MS, type Highlighter } from '../../../highlight/index.js';
import { escapeHtml, html, type SafeHtml } from '../html.js';
import { renderMarkdown, type RelativeBase } from '../markdown.js';
import { numberedLines, type BlobContent } from './blob.js';
import { ownValue } from '../../../own-value.js';

/** Files larger than this are offered as downloads, never read into a page. */
export const MAX_SHOWN_BYTES = 1024 * 1024;
/** Git's own rule: a NUL byte in the first 8000 bytes makes a file binary. */
const BINARY_PROBE_BYTES = 8000;

const IMAGE_TYPES: Readonly<Record<string, string>> = {
  png: 'image/png', jpg: 'image/jpeg', jpeg: 'image/jpeg', gif: 'image/gif', webp: 'image/webp', bmp: 'image/bmp', ico: 'image/x-icon', avif: 'image/avif',
};

/** The image type a file name says (raster formats only: SVG can carry script, so it is shown as text). */
export function imageTypeOf(name: string): string | undefined {
  const dot = name.lastIndexOf('.');
  return dot >= 0 ? ownValue(IMAGE_TYPES, name.slice(dot + 1).toLowerCase()) : undefined;
}

export function looksBinary(bytes: Buffer): boolean {
  return bytes.subarray(0, BINARY_PROBE_BYTES).includes(0);
}

const isMarkdownName = (name: string) => /\.(md|markdown|mdown|mkd)$/i.test(name);

/** README files a folder view shows, best first. */
export function pickReadme(names: readonly string[]): string | undefined {
  const candidates = names.filter((name) => /^readme(\.[a-z]+)?$/i.test(name));
  return candidates.find(isMarkdownName) ?? candidates.find((name) => /^readme(\.txt)?$/i.test(name));
}

export interface ShownFile {
  oid: string;
  name: string;
  size: number;
  /** Reads at most `limit` bytes of the file. */
  read(limit: number): Promise<Buffer>;
  /** Where the Markdown's relative links lead. */
  base: RelativeBase;
  /** `owner/name`: the Markdown's `#12` references lead to its issues (the cache key holds it, in `base.pages`). */
  repository: string;
}

/**
 * How long a page of a small file (up to QUICK_HIGHLIGHT_BYTES) waits for its highlighting before it is served
 * plain; larger files, whose highlighting takes longer anyway, are served plain at once until highlighted.
 * Highlighting a small file takes milliseconds once a worker runs, but a worker's start (loading highlight.js) or a
 * queue behind other files takes hundreds under load: a short wait served first views plain and a reload added
 * colour. So a small file's first view waits for it, bounded by the highlighter's own time limit.
 */
export const HIGHLIGHT_WAIT_MS = HIGHLIGHT_TIME_LIMIT_MS;
const QUICK_HIGHLIGHT_BYTES = 32 * 1024;

/** A file's content: `plain` as soon as its bytes are read, `ready` once highlighted (the same for other kinds). */
interface Shown {
  plain: Promise<BlobContent>;
  ready: Promise<BlobContent>;
}

/**
 * What file pages show, cached by blob id (plus name, display and link base): a blob never changes, so a warm
 * page costs no git run and no highlighting. Highlighting runs in worker threads; a page whose highlighting is
 * not ready in time (see HIGHLIGHT_WAIT_MS) is served plain meanwhile, so a large file costs its readers git's
 * time, not highlight.js's.
 */
export class FileContents {
  readonly #cache = new LruCache<string, Shown>(64);

  constructor(private readonly highlighter: Highlighter) {}

  async content(file: ShownFile, display: 'rendered' | 'source'): Promise<BlobContent> {
    const markdown = isMarkdownName(file.name);
    const key = `${file.oid}\0${file.name}\0${markdown ? `${display}\0${file.base.pages}` : ''}`;
    let shown = this.#cache.get(key);
    if (!shown) {
      shown = this.#compute(file, markdown ? display : 'source');
      this.#cache.set(key, shown);
      shown.ready.catch(() => this.#cache.delete(key));
    }
    let timer: NodeJS.Timeout | undefined;
    const wait = file.size <= QUICK_HIGHLIGHT_BYTES ? HIGHLIGHT_WAIT_MS : 0;
    // An entry already highlighted wins the race even with no wait: its promise settled before the timer.
    const waited = new Promise<'late'>((resolve) => (timer = setTimeout(resolve, wait, 'late')));
    try {
      const first = await Promise.race([shown.ready, waited]);
      return first === 'late' ? await shown.plain : first;
    } finally {
      clearTimeout(timer);
    }
  }

  #compute(file: ShownFile, display: 'rendered' | 'source'): Shown {
    const read = this.#plain(file, display);
    const plain = read.then((result) => result.content);
    const ready = read.then(async ({ content, text }) => {
      if (text === undefined || (content.kind !== 'text' && content.kind !== 'markdown-source')) return content;
      // A highlighter failure leaves the file plain rather than failing its page.
      const lines = await this.highlighter.lines(file.name, text).catch(() => undefined);
      return lines ? { kind: content.kind, lines: numberedLines(lines) } : content;
    });
    plain.catch(() => undefined);
    return { plain, ready };
  }

  /** The content without highlighting (its kind, its escaped lines or its rendered Markdown), and the text to highlight. */
  async #plain(file: ShownFile, display: 'rendered' | 'source'): Promise<{ content: BlobContent; text?: string }> {
    if (imageTypeOf(file.name)) return { content: { kind: 'image' } };
    if (file.size > MAX_SHOWN_BYTES) return { content: { kind: 'large' } };
    const bytes = await file.read(file.size);
    if (looksBinary(bytes)) return { content: { kind: 'binary' } };
    const text = bytes.toString('utf8');
    if (isMarkdownName(file.name) && display === 'rendered') return { content: { kind: 'markdown', rendered: renderMarkdown(text, { base: file.base, repository: file.repository }) } };
    // A file's last newline ends its last line; it does not start an empty one.
    const body = text.endsWith('\n') ? text.slice(0, -1) : text;
    const lines = numberedLines(body.split('\n').map(escapeHtml));
    return { content: { kind: isMarkdownName(file.name) ? 'markdown-source' : 'text', lines }, text: body };
  }

  /** A README shown under a listing: Markdown rendered, other text as preformatted text; '' when binary or huge. */
  async readme(file: ShownFile): Promise<SafeHtml | ''> {
    const content = await this.content(file, 'rendered');
    if (content.kind === 'markdown') return html`<section class="readme" aria-labelledby="readme-title"><h2 id="readme-title">${file.name}</h2>${content.rendered}</section>`;
    if (content.kind !== 'text') return '';
    const text = (await file.read(Math.min(file.size, MAX_SHOWN_BYTES))).toString('utf8');
    return html`<section class="readme" aria-labelledby="readme-title"><h2 id="readme-title">${file.name}</h2><pre>${text}</pre></section>`;
  }
}
