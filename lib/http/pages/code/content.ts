import { LruCache } from '../../../git/lru.js';
import type { Highlighter } from '../../../highlight/index.js';
import { escapeHtml, html, type SafeHtml } from '../html.js';
import { renderMarkdown, type RelativeBase } from '../markdown.js';
import { numberedLines, type BlobContent } from './blob.js';

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
  return dot >= 0 ? IMAGE_TYPES[name.slice(dot + 1).toLowerCase()] : undefined;
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
}

/**
 * What file pages show, cached by blob id (plus name, display and link base): a blob never changes, so a warm
 * page costs no git run and no highlighting.
 */
export class FileContents {
  readonly #cache = new LruCache<string, Promise<BlobContent>>(64);

  constructor(private readonly highlighter: Highlighter) {}

  /** Numbered lines, highlighted when the highlighter knows the language, else escaped plain text. */
  async #lines(name: string, text: string): Promise<SafeHtml> {
    const body = withoutFinalNewline(text);
    return numberedLines((await this.highlighter.lines(name, body)) ?? body.split('\n').map(escapeHtml));
  }

  content(file: ShownFile, display: 'rendered' | 'source'): Promise<BlobContent> {
    const markdown = isMarkdownName(file.name);
    const key = `${file.oid}\0${file.name}\0${markdown ? `${display}\0${file.base.pages}` : ''}`;
    let content = this.#cache.get(key);
    if (!content) {
      content = this.#compute(file, markdown ? display : 'source');
      this.#cache.set(key, content);
      content.catch(() => this.#cache.delete(key));
    }
    return content;
  }

  async #compute(file: ShownFile, display: 'rendered' | 'source'): Promise<BlobContent> {
    if (imageTypeOf(file.name)) return { kind: 'image' };
    if (file.size > MAX_SHOWN_BYTES) return { kind: 'large' };
    const bytes = await file.read(file.size);
    if (looksBinary(bytes)) return { kind: 'binary' };
    const text = bytes.toString('utf8');
    if (!isMarkdownName(file.name)) return { kind: 'text', lines: await this.#lines(file.name, text) };
    if (display === 'rendered') return { kind: 'markdown', rendered: renderMarkdown(text, file.base) };
    return { kind: 'markdown-source', lines: await this.#lines(file.name, text) };
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

// A file's last newline ends its last line; it does not start an empty one.
const withoutFinalNewline = (text: string) => (text.endsWith('\n') ? text.slice(0, -1) : text);
