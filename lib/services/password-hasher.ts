import { availableParallelism } from 'node:os';
import { createRequire } from 'node:module';
import { WorkerPool } from '../worker-pool.js';
import { newToken } from './secrets.js';

// The worker is a plain script evaluated from this string, so the same code runs from the TypeScript sources
// (tests) and from dist/; bcryptjs is loaded by absolute path, resolved here, wherever repohost is installed.
const WORKER_SOURCE = `
const { parentPort, workerData } = load('node:worker_threads');
const bcrypt = load(workerData.bcrypt);
parentPort.on('message', ({ op, password, hash, cost }) => {
  try {
    const result = op === 'hash' ? bcrypt.hashSync(password, cost) : bcrypt.compareSync(password, hash);
    parentPort.postMessage({ result });
  } catch (error) {
    parentPort.postMessage({ error: String((error && error.message) || error) });
  }
});`;

/**
 * bcrypt off the event loop: a small pool of worker threads (one fewer than the cores, at least one), started on
 * first use and ended by `close()`. bcryptjs is pure JavaScript and costs tens of milliseconds per check at cost
 * 10: on the main thread forty concurrent wrong passwords stalled every other request. Hashes stay bcryptjs's own.
 */
export class PasswordHasher {
  readonly #pool: WorkerPool<{ op: 'hash' | 'compare'; password: string; hash?: string; cost?: number }, string | boolean>;
  #decoy: Promise<string> | undefined;

  constructor(size = Math.max(1, availableParallelism() - 1)) {
    this.#pool = new WorkerPool({ source: WORKER_SOURCE, workerData: () => ({ bcrypt: createRequire(import.meta.url).resolve('bcryptjs') }), size, name: 'password hasher' });
  }

  hash(password: string, cost: number): Promise<string> {
    return this.#pool.run({ op: 'hash', password, cost }) as Promise<string>;
  }

  matches(password: string, hash: string): Promise<boolean> {
    return this.#pool.run({ op: 'compare', password, hash }) as Promise<boolean>;
  }

  /** A hash of a random secret to compare against for unknown users, so timing does not reveal who exists. */
  decoy(cost: number): Promise<string> {
    this.#decoy ??= this.hash(newToken(), cost);
    return this.#decoy;
  }

  close(): Promise<void> {
    return this.#pool.close();
  }
}
