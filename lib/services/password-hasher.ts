import { availableParallelism } from 'node:os';
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import { newToken } from './secrets.js';

// The worker is a plain script evaluated from this string, so the same code runs from the TypeScript sources
// (tests) and from dist/; bcryptjs is loaded by absolute path, resolved here, wherever repohost is installed.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const bcrypt = require(workerData.bcrypt);
parentPort.on('message', ({ id, op, password, hash, cost }) => {
  try {
    const result = op === 'hash' ? bcrypt.hashSync(password, cost) : bcrypt.compareSync(password, hash);
    parentPort.postMessage({ id, result });
  } catch (error) {
    parentPort.postMessage({ id, error: String((error && error.message) || error) });
  }
});`;

interface Job {
  op: 'hash' | 'compare';
  password: string;
  hash?: string;
  cost?: number;
  resolve: (value: string | boolean) => void;
  reject: (error: Error) => void;
}

/**
 * bcrypt off the event loop: a small pool of worker threads (one fewer than the cores, at least one), started on
 * first use and ended by `close()`. bcryptjs is pure JavaScript and costs tens of milliseconds per check at cost
 * 10: on the main thread forty concurrent wrong passwords stalled every other request. Hashes stay bcryptjs's own.
 */
export class PasswordHasher {
  readonly #size: number;
  readonly #idle: Worker[] = [];
  readonly #all: Worker[] = [];
  readonly #queue: Job[] = [];
  readonly #running = new Map<Worker, Job>();
  #closed = false;
  #decoy: Promise<string> | undefined;

  constructor(size = Math.max(1, availableParallelism() - 1)) {
    this.#size = size;
  }

  hash(password: string, cost: number): Promise<string> {
    return this.#submit({ op: 'hash', password, cost }) as Promise<string>;
  }

  matches(password: string, hash: string): Promise<boolean> {
    return this.#submit({ op: 'compare', password, hash }) as Promise<boolean>;
  }

  /** A hash of a random secret to compare against for unknown users, so timing does not reveal who exists. */
  decoy(cost: number): Promise<string> {
    this.#decoy ??= this.hash(newToken(), cost);
    return this.#decoy;
  }

  async close(): Promise<void> {
    this.#closed = true;
    for (const job of this.#queue.splice(0)) job.reject(new Error('password hasher closed'));
    await Promise.all(this.#all.splice(0).map((worker) => worker.terminate()));
  }

  #submit(job: Omit<Job, 'resolve' | 'reject'>): Promise<string | boolean> {
    if (this.#closed) return Promise.reject(new Error('password hasher closed'));
    return new Promise((resolve, reject) => {
      this.#queue.push({ ...job, resolve, reject });
      this.#pump();
    });
  }

  #pump(): void {
    while (this.#queue.length > 0) {
      const worker = this.#idle.pop() ?? (this.#all.length < this.#size ? this.#spawn() : undefined);
      if (!worker) return;
      const job = this.#queue.shift()!;
      this.#running.set(worker, job);
      worker.postMessage({ id: 0, op: job.op, password: job.password, hash: job.hash, cost: job.cost });
    }
  }

  #spawn(): Worker {
    const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { bcrypt: createRequire(import.meta.url).resolve('bcryptjs') } });
    worker.unref();
    this.#all.push(worker);
    worker.on('message', (message: { result?: string | boolean; error?: string }) => {
      const job = this.#running.get(worker);
      this.#running.delete(worker);
      this.#idle.push(worker);
      if (job) {
        if (message.error !== undefined) job.reject(new Error(message.error));
        else job.resolve(message.result!);
      }
      this.#pump();
    });
    worker.on('error', (error) => {
      // A crashed worker fails its job and is replaced on the next one.
      const job = this.#running.get(worker);
      this.#running.delete(worker);
      this.#all.splice(this.#all.indexOf(worker), 1);
      job?.reject(error);
      this.#pump();
    });
    return worker;
  }
}
