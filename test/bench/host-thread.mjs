// A host in a worker thread of its own, as a server in its own process: a benchmark's client then never waits behind
// the server's own work after an answer (background upkeep spawning git), as a client sharing the host's event loop
// would. The handle offers what the benchmarks use: url, options.dataDir, admin.*, idle(), close(), and a watch of
// the host's own event loop: watchLoop() starts a fresh delay histogram in the host's thread, loopDelayMax() stops it
// and answers its largest delay in milliseconds.
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';

export async function startHostThread(options) {
  const worker = new Worker(new URL(import.meta.url), { workerData: options });
  const waiting = new Map();
  let nextId = 0;
  const ready = new Promise((resolve, reject) => {
    worker.once('error', reject);
    worker.on('message', (message) => {
      if (message.ready) return resolve(message.ready);
      const pending = waiting.get(message.id);
      waiting.delete(message.id);
      if (message.error) pending.reject(new Error(message.error));
      else pending.resolve(message.result);
    });
  });
  const call = (method, ...args) =>
    new Promise((resolve, reject) => {
      const id = nextId++;
      waiting.set(id, { resolve, reject });
      worker.postMessage({ id, method, args });
    });
  const { url, dataDir } = await ready;
  return {
    url,
    options: { dataDir },
    admin: new Proxy({}, { get: (_, name) => (...args) => call(`admin.${String(name)}`, ...args) }),
    idle: () => call('idle'),
    watchLoop: () => call('watchLoop'),
    loopDelayMax: () => call('loopDelayMax'),
    close: async () => {
      await call('close');
      await worker.terminate();
    },
  };
}

if (!isMainThread) {
  const { createRepoHost } = await import('../../dist/index.js');
  const host = await createRepoHost(workerData);
  // A fresh histogram per watch: one re-enabled after a pause would count the pause as a delay.
  let delay;
  const own = {
    watchLoop: () => {
      delay = monitorEventLoopDelay({ resolution: 5 });
      delay.enable();
    },
    loopDelayMax: () => {
      delay.disable();
      return delay.max / 1e6;
    },
  };
  parentPort.on('message', async ({ id, method, args }) => {
    try {
      const [first, second] = method.split('.');
      const result = own[method] ? own[method]() : second ? await host[first][second](...args) : await host[first](...args);
      parentPort.postMessage({ id, result });
    } catch (error) {
      parentPort.postMessage({ id, error: String(error?.stack ?? error) });
    }
  });
  parentPort.postMessage({ ready: { url: host.url, dataDir: host.options.dataDir } });
}
