import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { PACKAGE_ROOT } from '../package-root.js';
import { FRESH_SCHEMA, FRESH_SCHEMA_VERSION } from './fresh-schema.js';
import { SCHEMA_VERSION } from './migrations.js';
import { readIfExists } from './read-if-exists.js';
import { loadSqlJs, looksLikeSqlite } from './sqlite.js';

// A fresh database starts from an image of the newest schema (issue 23): opening SQLite bytes costs a parse of the
// schema, where running its ~100 statements on a cold WebAssembly engine cost ~40 ms and ~25 MB of memory. The build
// writes the image into dist/ (`npm run build`); where it is missing (tests run from unbuilt sources) it is made once
// per process. Either way every later host in the process opens the same bytes.

/** Where the build leaves the image, named after its version so that a stale one is never picked up. */
const IMAGE_FILE = join(PACKAGE_ROOT, 'dist', `fresh-image-v${FRESH_SCHEMA_VERSION}.sqlite`);

let image: Promise<Uint8Array | undefined> | undefined;

/**
 * A fresh database at the newest schema, as SQLite bytes, shared by every caller (never change them). Undefined while
 * `FRESH_SCHEMA` lags behind `MIGRATIONS` (a migration added, the list not regenerated yet): such a database is made
 * by replaying every step.
 */
export function freshImage(): Promise<Uint8Array | undefined> {
  image ??= (async () => {
    if (FRESH_SCHEMA_VERSION !== SCHEMA_VERSION) return undefined;
    const built = await readIfExists(IMAGE_FILE);
    // A plain Uint8Array of its own, not the Buffer read (a Buffer's slice() shares memory: sql.js would write into it).
    return built && looksLikeSqlite(built) ? new Uint8Array(built) : buildFreshImage();
  })();
  return image;
}

/** Runs the fresh schema, and stamps its version, on an empty database. */
export async function buildFreshImage(): Promise<Uint8Array> {
  const SQL = await loadSqlJs();
  const db = new SQL.Database();
  try {
    db.exec('BEGIN');
    for (const statement of FRESH_SCHEMA) db.run(statement);
    db.run('INSERT INTO schema_version (version) VALUES (?)', [FRESH_SCHEMA_VERSION]);
    db.exec('COMMIT');
    return db.export();
  } finally {
    db.close();
  }
}

/** Writes the image into dist/ (a step of `npm run build`, scripts/build.mjs). */
export async function writeFreshImage(): Promise<string> {
  await writeFile(IMAGE_FILE, await buildFreshImage());
  return IMAGE_FILE;
}
