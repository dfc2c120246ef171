// copyStore in a worker thread with a bounded heap. V8 sizes a heap by how fast a program allocates, not by what it
// keeps: a copy allocates each row's values, its checksum line and its COPY text once and keeps only a few batches,
// but on the main thread's default heap the process grew to 206–212 MiB over 1,000,000 records of 600 bytes (and
// 211 MiB at 200,000), mostly garbage. In a worker whose young generation is small the garbage is collected young:
// 150–160 MiB at 1,000,000 (bench/copy.ts), with no difference in speed beyond the machine's noise.
import { Worker } from 'node:worker_threads';
import { CopyRefusal, type CopyEvent, type CopyOptions, type CopyResult } from './copy-store.js';

/**
 * The worker's heap, MiB. The old generation is a ceiling, not a size (it holds the batches in flight, a few MB of
 * ordinary records, and up to 2,000 records of up to 1 MB each if a store holds such); the young one is what keeps
 * the process small.
 */
export const COPY_HEAP = { maxOldGenerationSizeMb: 1024, maxYoungGenerationSizeMb: 16 };

export type WorkerMessage =
  | { kind: 'event'; event: CopyEvent }
  | { kind: 'result'; result: CopyResult }
  | { kind: 'error'; message: string; refusal: boolean };

/** Runs copyStore(options) in a worker thread (the built module next to this one); events come to `onEvent` here. */
export function copyStoreInWorker(options: CopyOptions): Promise<CopyResult> {
  const { onEvent, ...data } = options;
  const worker = new Worker(new URL('./copy-worker.js', import.meta.url), { workerData: data, resourceLimits: COPY_HEAP });
  return new Promise((resolve, reject) => {
    let settled = false;
    const settle = (done: () => void) => {
      if (settled) return;
      settled = true;
      done();
    };
    worker.on('message', (message: WorkerMessage) => {
      if (message.kind === 'event') onEvent?.(message.event);
      else if (message.kind === 'result') settle(() => resolve(message.result));
      else settle(() => reject(message.refusal ? new CopyRefusal(message.message) : new Error(message.message)));
    });
    worker.on('error', (error) => settle(() => reject(error)));
    worker.on('exit', (code) => settle(() => reject(new Error(`the copy's worker thread stopped (exit code ${code})`))));
  });
}
