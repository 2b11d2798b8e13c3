import { afterAll, describe, expect, it } from 'vitest';
import { WorkerPool } from '../lib/worker-pool.js';

// Answers a number with its double; 'spin' never answers (a job that runs away), 'exit' ends its worker, 'throw'
// throws out of the worker's handler.
const SOURCE = `
const { parentPort } = load('node:worker_threads');
parentPort.on('message', (input) => {
  if (input === 'spin') for (;;) {}
  if (input === 'exit') process.exit(3);
  if (input === 'throw') throw new Error('thrown in the worker');
  parentPort.postMessage({ result: input * 2 });
});`;

describe('WorkerPool', () => {
  const pool = new WorkerPool<unknown, number>({ source: SOURCE, size: 1, name: 'doubler', jobTimeoutMs: 300 });
  afterAll(() => pool.close());

  it('fails a job past its time limit, ends that worker, and goes on with the jobs queued behind it', async () => {
    const spinning = pool.run('spin');
    const queued = pool.run(21);
    await expect(spinning).rejects.toThrow('doubler: the job took longer than 300 ms');
    expect(await queued).toBe(42);
    expect(await pool.run(5)).toBe(10);
  });

  it('fails a job whose input cannot be sent to a worker (a DataCloneError), and goes on', async () => {
    await expect(pool.run(Object)).rejects.toThrow(/doubler: the job could not be sent to a worker/);
    expect(await pool.run(4)).toBe(8);
  });

  it('fails the job of a worker that exits or throws, replaces the worker, and goes on', async () => {
    const exited = pool.run('exit');
    const behindExit = pool.run(1);
    await expect(exited).rejects.toThrow('doubler: the worker exited (code 3)');
    expect(await behindExit).toBe(2);
    await expect(pool.run('throw')).rejects.toThrow('doubler: the worker failed (thrown in the worker)');
    expect(await Promise.all([pool.run(2), pool.run(3)])).toEqual([4, 6]);
  });

  it('fails the jobs running and waiting when it closes', async () => {
    const closing = new WorkerPool<unknown, number>({ source: SOURCE, size: 1, name: 'closing' });
    // Awaited as refusals from the start: they fail inside close(), before the lines below it run.
    const running = expect(closing.run('spin')).rejects.toThrow('closing closed');
    const waiting = expect(closing.run(1)).rejects.toThrow('closing closed');
    await new Promise((resolve) => setTimeout(resolve, 50));
    await closing.close();
    await running;
    await waiting;
  });

  it('asks for its workers\' data when the first worker starts, and once', async () => {
    let asked = 0;
    const lazy = new WorkerPool<number, number>({
      source: `const { parentPort, workerData } = load('node:worker_threads'); parentPort.on('message', (n) => parentPort.postMessage({ result: n * workerData.factor }));`,
      workerData: () => ({ factor: 3 + asked++ }),
      size: 2,
      name: 'multiplier',
    });
    try {
      expect(asked).toBe(0);
      expect(await Promise.all([lazy.run(1), lazy.run(2), lazy.run(3)])).toEqual([3, 6, 9]);
      expect(asked).toBe(1);
    } finally {
      await lazy.close();
    }
  });
});
