// `import` streams files of any size through a few batches of rows. V8 sizes its heap by how fast a program
// allocates, not by what it keeps, so a long stream would grow the process to ~180 MB of mostly garbage. The
// command therefore runs in a worker thread with a bounded heap: memory stays flat through any file size.
import { Worker } from 'node:worker_threads';

/** Heap of the import worker, MiB: a few 1000-row batches of 10 MB request bodies fit with room to spare. */
export const IMPORT_HEAP = { maxOldGenerationSizeMb: 96, maxYoungGenerationSizeMb: 16 };

export interface WorkerSetup {
  stderrIsTTY: boolean;
  stderrColumns: number | undefined;
}

/** True when the command line runs `import` and the user has not chosen a heap size of their own. */
export function needsBoundedHeap(argv: readonly string[], env: NodeJS.ProcessEnv = process.env): boolean {
  if (argv[2] !== 'import') return false;
  return ![...process.execArgv, env.NODE_OPTIONS ?? ''].some((flag) => flag.includes('max-old-space-size'));
}

/** Runs the command line in a worker thread with a bounded heap; resolves with its exit code. */
export function runWithBoundedHeap(argv: readonly string[]): Promise<number> {
  const readsStdin = argv.slice(3).includes('-');
  const setup: WorkerSetup = { stderrIsTTY: Boolean(process.stderr.isTTY), stderrColumns: process.stderr.columns };
  const worker = new Worker(new URL('./import-worker.js', import.meta.url), {
    argv: argv.slice(2),
    workerData: setup,
    resourceLimits: IMPORT_HEAP,
    stdin: readsStdin,
  });
  if (readsStdin && worker.stdin) process.stdin.pipe(worker.stdin);
  // Signals reach only the main thread; the worker's own handlers (stop after the batch in flight) get them by message.
  const forward = (signal: NodeJS.Signals) => worker.postMessage({ signal });
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, forward);
  return new Promise((resolve) => {
    worker.on('error', (error) => {
      process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    });
    worker.on('exit', (code) => {
      if (readsStdin) process.stdin.destroy();
      resolve(code);
    });
  });
}
