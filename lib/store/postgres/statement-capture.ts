import { appendFileSync, mkdirSync } from 'node:fs';
import { isAbsolute, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { threadId } from 'node:worker_threads';
import { PACKAGE_ROOT } from '../../package-root.js';

/**
 * Statement capture for the PostgreSQL check (`test/store/postgres-statements.check.ts`): when the environment names a
 * folder in `REPOHOST_SQL_CAPTURE`, the sql.js engine reports here every SQL text it prepares, and each distinct one
 * is appended to `<folder>/<pid>-<thread>.jsonl` as `{"sql": …, "from": …}`. `from` is the first caller outside the
 * engine (`lib/store/queries/issues.ts:40`, `test/store/write-log.test.ts:132`, or `replay` for write-log records
 * applied on open), so the check can tell the store's statements from the ones tests issue themselves.
 */
export const CAPTURE_DIR: string | undefined = process.env.REPOHOST_SQL_CAPTURE || undefined;

/** The checkout (or installed package) root, callers' paths are named from. */
const ROOT = PACKAGE_ROOT;
/** Frames inside the engine, skipped to find who issued a statement. */
const ENGINE = /[\\/](?:lib|dist)[\\/]store[\\/](?:sqlite|database|transactions|postgres[\\/]statement-capture)\.[jt]s\b/;

const seen = new Set<string>();
/** Texts already recorded from the store's own code: every host prepares them again, and one record is enough. */
const seenFromStore = new Set<string>();
let file: string | undefined;

/** Records `sql` once per caller and process. Only called when `CAPTURE_DIR` is set. */
export function captureStatement(sql: string): void {
  if (seenFromStore.has(sql)) return;
  const from = caller();
  if (from.startsWith('lib/') || from.startsWith('dist/')) seenFromStore.add(sql);
  const key = `${from}\0${sql}`;
  if (seen.has(key)) return;
  seen.add(key);
  try {
    if (!file) {
      mkdirSync(CAPTURE_DIR!, { recursive: true });
      file = join(CAPTURE_DIR!, `${process.pid}-${threadId}.jsonl`);
    }
    appendFileSync(file, `${JSON.stringify({ sql, from })}\n`);
  } catch (error) {
    // The check finds the statement missing or no capture at all; the store itself goes on.
    process.stderr.write(`repohost: could not record a statement in ${CAPTURE_DIR}: ${(error as Error).message}\n`);
  }
}

function caller(): string {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 40;
  const stack = new Error().stack ?? '';
  Error.stackTraceLimit = limit;
  for (const line of stack.split('\n').slice(1)) {
    // By name: in the bundle (servers the CLI starts) the engine shares its file with everything else.
    if (/\bapplyRecord\b/.test(line)) return 'replay';
    if (ENGINE.test(line)) continue;
    const location = /\(?((?:file:\/\/)?[^\s()]+):(\d+):\d+\)?\s*$/.exec(line);
    if (!location || location[1]!.startsWith('node:')) continue;
    const path = location[1]!.startsWith('file://') ? fileURLToPath(location[1]!) : location[1]!;
    const inside = relative(ROOT, path);
    const shown = isAbsolute(inside) || inside.startsWith('..') ? path : inside.split(sep).join('/');
    return `${shown}:${location[2]}`;
  }
  return 'unknown';
}
