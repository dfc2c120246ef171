// The worker thread of copyStoreInWorker (copy-thread.ts): runs one copy and posts its events and its end.
import { parentPort, workerData } from 'node:worker_threads';
import { copyStore, CopyRefusal, type CopyOptions } from './copy-store.js';
import type { WorkerMessage } from './copy-thread.js';

const port = parentPort!;
const post = (message: WorkerMessage) => port.postMessage(message);
const options = workerData as Omit<CopyOptions, 'onEvent'>;

try {
  const result = await copyStore({ ...options, onEvent: (event) => post({ kind: 'event', event }) });
  post({ kind: 'result', result });
} catch (error) {
  post({
    kind: 'error',
    message: error instanceof Error ? error.message : String(error),
    refusal: error instanceof CopyRefusal,
  });
}
