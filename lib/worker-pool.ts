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
 * PRELUDE). The script answers each
 * message with `{ result }` or `{ error }`. Workers start on first use, are replaced when they crash or run a job
 * past `jobTimeoutMs` (the job fails, the worker is ended), never keep the process alive, and end with `close()`.
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
  readonly #all: Worker[] = [];
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
    if (!this.#closed && this.#all.length === 0) this.#idle.push(this.#spawn());
  }

  async close(): Promise<void> {
    this.#closed = true;
    for (const job of this.#queue.splice(0)) job.reject(new Error(`${this.#name} closed`));
    await Promise.all(this.#all.splice(0).map((worker) => worker.terminate()));
  }

  #pump(): void {
    while (this.#queue.length > 0) {
      const worker = this.#idle.pop() ?? (this.#all.length < this.#size ? this.#spawn() : undefined);
      if (!worker) return;
      const job = this.#queue.shift()!;
      this.#running.set(worker, job);
      if (this.#jobTimeoutMs !== undefined) job.timer = setTimeout(() => this.#abandon(worker, job), this.#jobTimeoutMs).unref();
      worker.postMessage(job.input);
    }
  }

  /** A job past its time: it fails, and its worker (busy with it, with no way to stop it) is ended and replaced. */
  #abandon(worker: Worker, job: Job<In, Out>): void {
    if (this.#running.get(worker) !== job) return;
    this.#running.delete(worker);
    this.#all.splice(this.#all.indexOf(worker), 1);
    void worker.terminate();
    job.reject(new Error(`${this.#name}: the job took longer than ${this.#jobTimeoutMs} ms`));
    this.#pump();
  }

  #spawn(): Worker {
    this.#workerData ??= { value: this.#workerDataOf() };
    const worker = new Worker(this.#source, { eval: true, workerData: this.#workerData.value });
    worker.unref();
    this.#all.push(worker);
    worker.on('message', (message: { result?: Out; error?: string }) => {
      const job = this.#running.get(worker);
      this.#running.delete(worker);
      this.#idle.push(worker);
      clearTimeout(job?.timer);
      if (job) {
        if (message.error !== undefined) job.reject(new Error(message.error));
        else job.resolve(message.result as Out);
      }
      this.#pump();
    });
    worker.on('error', (error) => {
      // A crashed worker fails its job and is replaced on the next one.
      const job = this.#running.get(worker);
      this.#running.delete(worker);
      clearTimeout(job?.timer);
      this.#all.splice(this.#all.indexOf(worker), 1);
      job?.reject(error);
      this.#pump();
    });
    return worker;
  }
}
