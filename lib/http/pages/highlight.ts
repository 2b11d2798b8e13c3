import hljs from 'highlight.js/lib/core';
import bash from 'highlight.js/lib/languages/bash';
import c from 'highlight.js/lib/languages/c';
import cpp from 'highlight.js/lib/languages/cpp';
import csharp from 'highlight.js/lib/languages/csharp';
import css from 'highlight.js/lib/languages/css';
import diff from 'highlight.js/lib/languages/diff';
import dockerfile from 'highlight.js/lib/languages/dockerfile';
import go from 'highlight.js/lib/languages/go';
import ini from 'highlight.js/lib/languages/ini';
import java from 'highlight.js/lib/languages/java';
import javascript from 'highlight.js/lib/languages/javascript';
import json from 'highlight.js/lib/languages/json';
import kotlin from 'highlight.js/lib/languages/kotlin';
import makefile from 'highlight.js/lib/languages/makefile';
import markdown from 'highlight.js/lib/languages/markdown';
import php from 'highlight.js/lib/languages/php';
import python from 'highlight.js/lib/languages/python';
import ruby from 'highlight.js/lib/languages/ruby';
import rust from 'highlight.js/lib/languages/rust';
import sql from 'highlight.js/lib/languages/sql';
import swift from 'highlight.js/lib/languages/swift';
import typescript from 'highlight.js/lib/languages/typescript';
import xml from 'highlight.js/lib/languages/xml';
import yaml from 'highlight.js/lib/languages/yaml';
import { escapeHtml } from './html.js';

/**
 * Server-side syntax highlighting with highlight.js core and the languages registered here (no DOM, no guessing:
 * the language comes from the file name, so the cost is one tokenizer pass).
 */
const LANGUAGES = { bash, c, cpp, csharp, css, diff, dockerfile, go, ini, java, javascript, json, kotlin, makefile, markdown, php, python, ruby, rust, sql, swift, typescript, xml, yaml };
for (const [name, language] of Object.entries(LANGUAGES)) hljs.registerLanguage(name, language);

const BY_EXTENSION: Readonly<Record<string, keyof typeof LANGUAGES>> = {
  sh: 'bash', bash: 'bash', zsh: 'bash', c: 'c', h: 'c', cc: 'cpp', cpp: 'cpp', cxx: 'cpp', hpp: 'cpp', hh: 'cpp', cs: 'csharp',
  css: 'css', diff: 'diff', patch: 'diff', go: 'go', ini: 'ini', toml: 'ini', cfg: 'ini', java: 'java', js: 'javascript',
  mjs: 'javascript', cjs: 'javascript', jsx: 'javascript', json: 'json', kt: 'kotlin', kts: 'kotlin', mk: 'makefile', md: 'markdown',
  markdown: 'markdown', php: 'php', py: 'python', rb: 'ruby', rs: 'rust', sql: 'sql', swift: 'swift', ts: 'typescript', mts: 'typescript',
  cts: 'typescript', tsx: 'typescript', html: 'xml', htm: 'xml', xml: 'xml', svg: 'xml', vue: 'xml', yml: 'yaml', yaml: 'yaml',
};
const BY_NAME: Readonly<Record<string, keyof typeof LANGUAGES>> = { dockerfile: 'dockerfile', makefile: 'makefile', gnumakefile: 'makefile' };

/** Source larger than this is shown plain: highlighting cost stays bounded per request. */
export const MAX_HIGHLIGHT_BYTES = 256 * 1024;

/** The language highlight.js should use for a file name, or undefined (plain text). */
export function languageOf(fileName: string): string | undefined {
  const base = fileName.slice(fileName.lastIndexOf('/') + 1).toLowerCase();
  const byName = BY_NAME[base];
  if (byName) return byName;
  const dot = base.lastIndexOf('.');
  return dot > 0 ? BY_EXTENSION[base.slice(dot + 1)] : undefined;
}

const TAG = /<span class="([^"]*)">|<\/span>/g;

/**
 * Splits highlighted HTML into lines that each stand alone: a span open at a line break is closed at the end of
 * the line and reopened on the next, so every line can sit in its own table row.
 */
function splitLines(highlighted: string): string[] {
  const lines: string[] = [];
  const open: string[] = [];
  for (const line of highlighted.split('\n')) {
    let out = open.map((cls) => `<span class="${cls}">`).join('') + line;
    for (const match of line.matchAll(TAG)) {
      if (match[1] !== undefined) open.push(match[1]);
      else open.pop();
    }
    out += '</span>'.repeat(open.length);
    lines.push(out);
  }
  return lines;
}

/** The lines of a text file as safe HTML: highlighted when the language is known and the size small enough. */
export function highlightLines(fileName: string, text: string): string[] {
  const language = languageOf(fileName);
  if (language && Buffer.byteLength(text) <= MAX_HIGHLIGHT_BYTES) {
    // highlight.js escapes the source itself; only its own <span class="hljs-..."> tags are markup.
    return splitLines(hljs.highlight(text, { language, ignoreIllegals: true }).value);
  }
  return text.split('\n').map(escapeHtml);
}
