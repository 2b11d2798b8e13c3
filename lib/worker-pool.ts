import { Worker } from 'node:worker_threads';

interface Job<In, Out> {
  input: In;
  resolve: (value: Out) => void;
  reject: (error: Error) => void;
  /** Ends the job that runs too long (see `jobTimeoutMs`). */
  timer?: NodeJS.Timeout;
}

/**
 * Put before every worker script: `load`, a require that exists whether Node evaluates the script as CommonJS or as
 * an ES module (workers inherit `--input-type=module` from `node --input-type=module -e`, where `require` does not).
 * Scripts load built-in modules and absolute paths only.
 */
const PRELUDE = "const load = process.getBuiltinModule('node:module').createRequire('/');\n";

/**
 * CPU-heavy work off the event loop: a small pool of worker threads running one plain script (evaluated from a
 * string, so the same code runs from the TypeScript sources in tests and from dist/; it loads modules with `load`, see
 * PRELUDE). The script answers each message with `{ result }` or `{ error }`.
 *
 * Kept as our own rather than a library such as piscina: those start workers from a file, and ours run a string so
 * that sources and bundle share one script without a second build output; what we need of a pool is below.
 *
 * No failure of one job reaches the process or the other jobs (issue 38): an input that cannot be sent (postMessage
 * throws), a worker that crashes or exits, a job past `jobTimeoutMs` each fail that job alone; a worker that cannot
 * go on is ended and replaced on the next job. Workers start on first use, never keep the process alive, and end
 * with `close()`.
 */
export class WorkerPool<In, Out> {
  readonly #source: string;
  /** What each worker is given, worked out when the first one starts (see the constructor). */
  readonly #workerDataOf: () => unknown;
  #workerData: { value: unknown } | undefined;
  readonly #size: number;
  readonly #name: string;
  readonly #jobTimeoutMs: number | undefined;
  readonly #idle: Worker[] = [];
  readonly #all = new Set<Worker>();
  readonly #queue: Job<In, Out>[] = [];
  readonly #running = new Map<Worker, Job<In, Out>>();
  #closed = false;

  /**
   * @param name what the pool does, for the errors of its jobs
   * @param workerData what each worker is given, asked for when the first worker starts: a host that never uses the
   *   pool never pays for it (resolving highlight.js's 25 module paths took ~10 ms of every first start, issue 23)
   */
  constructor(options: { source: string; workerData?: () => unknown; size: number; name: string; jobTimeoutMs?: number }) {
    this.#source = PRELUDE + options.source;
    this.#workerDataOf = options.workerData ?? (() => undefined);
    this.#size = Math.max(1, options.size);
    this.#name = options.name;
    this.#jobTimeoutMs = options.jobTimeoutMs;
  }

  run(input: In): Promise<Out> {
    if (this.#closed) return Promise.reject(new Error(`${this.#name} closed`));
    return new Promise((resolve, reject) => {
      this.#queue.push({ input, resolve, reject });
      this.#pump();
    });
  }

  /** Starts a worker ahead of the first job (its script loads meanwhile); does nothing once one exists. */
  warm(): void {
    if (!this.#closed && this.#all.size === 0) this.#idle.push(this.#spawn());
  }

  async close(): Promise<void> {
    this.#closed = true;
    for (const job of this.#queue.splice(0)) job.reject(new Error(`${this.#name} closed`));
    for (const job of this.#running.values()) {
      clearTimeout(job.timer);
      job.reject(new Error(`${this.#name} closed`));
    }
    this.#running.clear();
    const workers = [...this.#all];
    this.#all.clear();
    this.#idle.length = 0;
    await Promise.all(workers.map((worker) => worker.terminate()));
  }

  #pump(): void {
    while (this.#queue.length > 0 && !this.#closed) {
      const worker = this.#idle.pop() ?? (this.#all.size < this.#size ? this.#spawn() : undefined);
      if (!worker) return;
      const job = this.#queue.shift()!;
      try {
        worker.postMessage(job.input);
      } catch (error) {
        // The input could not be copied to the worker (a DataCloneError): that job fails, the worker never saw it.
        this.#idle.push(worker);
        job.reject(new Error(`${this.#name}: the job could not be sent to a worker (${(error as Error).message})`));
        continue;
      }
      this.#running.set(worker, job);
      if (this.#jobTimeoutMs !== undefined) job.timer = setTimeout(() => this.#abandon(worker, job), this.#jobTimeoutMs).unref();
    }
  }

  /** A job past its time: it fails, and its worker (busy with it, with no way to stop it) is ended and replaced. */
  #abandon(worker: Worker, job: Job<In, Out>): void {
    if (this.#running.get(worker) !== job) return;
    this.#retire(worker, new Error(`${this.#name}: the job took longer than ${this.#jobTimeoutMs} ms`));
    void worker.terminate().catch(() => undefined);
  }

  /** A worker that will run nothing more: its job (if any) fails with `error`, and the queue goes on without it. */
  #retire(worker: Worker, error: Error): void {
    if (!this.#all.delete(worker)) return;
    const idle = this.#idle.indexOf(worker);
    if (idle !== -1) this.#idle.splice(idle, 1);
    const job = this.#running.get(worker);
    this.#running.delete(worker);
    if (job) {
      clearTimeout(job.timer);
      job.reject(error);
    }
    this.#pump();
  }

  /** The job a worker answered, no longer running; the worker is idle again. */
  #finish(worker: Worker): Job<In, Out> | undefined {
    const job = this.#running.get(worker);
    if (!job) return undefined;
    this.#running.delete(worker);
    clearTimeout(job.timer);
    this.#idle.push(worker);
    return job;
  }

  #spawn(): Worker {
    this.#workerData ??= { value: this.#workerDataOf() };
    const worker = new Worker(this.#source, { eval: true, workerData: this.#workerData.value });
    worker.unref();
    this.#all.add(worker);
    worker.on('message', (message: { result?: Out; error?: string }) => {
      const job = this.#finish(worker);
      if (message?.error !== undefined) job?.reject(new Error(`${this.#name}: ${message.error}`));
      else job?.resolve(message?.result as Out);
      this.#pump();
    });
    // A message the main thread cannot read fails the job; the worker itself goes on.
    worker.on('messageerror', (error) => {
      this.#finish(worker)?.reject(new Error(`${this.#name}: the worker's answer could not be read (${error.message})`));
      this.#pump();
    });
    // A worker that throws or exits on its own fails its job and is replaced on the next one.
    worker.on('error', (error) => this.#retire(worker, new Error(`${this.#name}: the worker failed (${error.message})`)));
    worker.on('exit', (code) => this.#retire(worker, new Error(`${this.#name}: the worker exited (code ${code})`)));
    return worker;
  }
}
