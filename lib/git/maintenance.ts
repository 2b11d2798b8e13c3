import { runGit } from './run-git.js';

/**
 * Background upkeep after pushes and imports: `git gc --auto` (never detached, so no orphan) and
 * a commit-graph with changed-path Bloom filters, which makes path-limited walks (listings of
 * sub-folders) skip most commits. Debounced per repository; never two jobs at once for one repository.
 */
export class Maintenance {
  readonly #delayMs: number;
  readonly #timers = new Map<string, NodeJS.Timeout>();
  readonly #running = new Map<string, Promise<void>>();
  readonly #again = new Set<string>();
  readonly #abort = new AbortController();

  constructor(delayMs = 1000) {
    this.#delayMs = delayMs;
  }

  /** Asks for upkeep of the repository at `gitDir` once pushes have paused for the delay. */
  schedule(gitDir: string): void {
    if (this.#abort.signal.aborted) return;
    clearTimeout(this.#timers.get(gitDir));
    const timer = setTimeout(() => {
      this.#timers.delete(gitDir);
      this.#start(gitDir);
    }, this.#delayMs);
    timer.unref();
    this.#timers.set(gitDir, timer);
  }

  #start(gitDir: string): void {
    if (this.#running.has(gitDir)) {
      this.#again.add(gitDir);
      return;
    }
    const job = this.#job(gitDir)
      .catch(() => {
        /* upkeep is an optimisation: a failure (repository removed, killed on close) is not an error */
      })
      .finally(() => {
        this.#running.delete(gitDir);
        if (this.#again.delete(gitDir)) this.#start(gitDir);
      });
    this.#running.set(gitDir, job);
  }

  async #job(gitDir: string): Promise<void> {
    const signal = this.#abort.signal;
    const options = { gitDir, signal, timeoutMs: 30 * 60_000 };
    await runGit(['-c', 'gc.autoDetach=false', '-c', 'gc.writeCommitGraph=false', 'gc', '--auto', '--quiet'], options);
    await runGit(['commit-graph', 'write', '--reachable', '--changed-paths', '--no-progress'], options);
  }

  /** Runs every scheduled job now and waits until none is pending or running (tests, benchmarks). */
  async flush(gitDir?: string): Promise<void> {
    for (const [dir, timer] of [...this.#timers]) {
      if (gitDir && dir !== gitDir) continue;
      clearTimeout(timer);
      this.#timers.delete(dir);
      this.#start(dir);
    }
    for (;;) {
      const jobs = [...this.#running].filter(([dir]) => !gitDir || dir === gitDir).map(([, job]) => job);
      if (jobs.length === 0) return;
      await Promise.all(jobs);
    }
  }

  /** Drops pending work for a repository about to be removed or renamed and waits for a running job. */
  async forget(gitDir: string): Promise<void> {
    clearTimeout(this.#timers.get(gitDir));
    this.#timers.delete(gitDir);
    this.#again.delete(gitDir);
    await this.#running.get(gitDir);
  }

  /**
   * Drops every pending job and waits for the running ones: the repositories are about to be replaced wholesale
   * (host.restore) and bring their own commit-graphs.
   */
  async forgetAll(): Promise<void> {
    for (const timer of this.#timers.values()) clearTimeout(timer);
    this.#timers.clear();
    this.#again.clear();
    while (this.#running.size > 0) await Promise.all(this.#running.values());
  }

  /** Waits for running jobs only (their files are being written); pending ones stay scheduled. */
  async settle(): Promise<void> {
    while (this.#running.size > 0) await Promise.all(this.#running.values());
  }

  /** Cancels pending jobs, stops running ones (git removes its lock files on SIGTERM) and waits for them. */
  async close(): Promise<void> {
    for (const timer of this.#timers.values()) clearTimeout(timer);
    this.#timers.clear();
    this.#again.clear();
    this.#abort.abort();
    await Promise.all(this.#running.values());
  }
}
