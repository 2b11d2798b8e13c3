/**
 * The event layer: what happened in a repository, recorded in the write that made it happen (lib/webhooks sends it
 * on), and heard in the process through `HostEvents` (`host.events`).
 */
export { HostEvents, EventTimeoutError, type EventListener, type WaitForOptions } from './bus.js';
export { EventRecorder, NOTHING_PUSHED, type EventOutbox, type EventFields } from './recorder.js';
export * from './types.js';
