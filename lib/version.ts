import { readFileSync } from 'node:fs';

/** This package's version (read once at load, never on a request path). */
export const VERSION = (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;
