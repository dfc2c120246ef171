// The worker thread `content-service import` runs in (see bounded-heap.ts).
import { parentPort, workerData } from 'node:worker_threads';
import type { WorkerSetup } from './bounded-heap.js';
import { runCli } from './main.js';

const setup = workerData as WorkerSetup;
// A worker's stderr is a pipe to the main thread; the progress bar needs to know the terminal behind it.
if (setup.stderrIsTTY) Object.assign(process.stderr, { isTTY: true, columns: setup.stderrColumns ?? 80 });
parentPort?.on('message', (message: { signal?: NodeJS.Signals }) => {
  if (message.signal) process.emit(message.signal, message.signal);
});
parentPort?.unref();

runCli(process.argv).catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : String(error));
  process.exit(1);
});
