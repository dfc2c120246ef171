import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type Database from 'better-sqlite3';

/** How often the worker looks for new commits to checkpoint. */
const INTERVAL_MS = 200;
/**
 * The connection's own automatic checkpoint, at a larger WAL (pages). It is needed: SQLite starts the WAL file
 * over only when a write begins with every frame already copied, which a checkpointer running beside a steady
 * write load never achieves, so the WAL would grow without end. Once the WAL holds this many frames, the
 * connection checkpoints after its commits, as usual; the worker has copied all but the last frames by then, so
 * that checkpoint is short, and the next write starts the file over. It is also the fallback should the worker
 * fall behind or fail.
 */
const RESTART_PAGES = 10_000;

// The worker: its own connection to the file; a PASSIVE checkpoint whenever commits were counted since the last.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.path);
db.pragma('synchronous = NORMAL');
const commits = new Int32Array(workerData.commits);
let seen = 0;
const checkpoint = () => {
  const now = Atomics.load(commits, 0);
  if (now === seen) return;
  seen = now;
  try {
    db.pragma('wal_checkpoint(PASSIVE)');
  } catch {
    // Busy or failing now: the next round (or the connection's backstop) checkpoints.
  }
};
const timer = setInterval(checkpoint, workerData.intervalMs);
parentPort.on('message', (message) => {
  if (message !== 'stop') return;
  clearInterval(timer);
  checkpoint();
  db.close();
  parentPort.close();
});
`;

/**
 * WAL checkpoints on a worker thread. A checkpoint copies the WAL's pages into the database file and, with
 * synchronous=NORMAL, waits for two fsyncs: 10–20 ms during which the event loop stood still, several times a
 * second under a steady write load (it was most of the writes' p99, and a fifth of their throughput). Here the
 * connection's automatic checkpoint is turned down to a backstop and a worker with its own connection runs
 * PASSIVE checkpoints (they never block readers or writers) a few times a second when there were commits.
 * Commits still reach the WAL before they are acknowledged; only the copy into the database file moves.
 */
export class BackgroundCheckpointer {
  private worker: Worker | null = null;
  private started = false;
  private readonly commits = new Int32Array(new SharedArrayBuffer(4));

  constructor(
    private readonly db: Database.Database,
    private readonly path: string,
  ) {}

  /** Counts a commit; the first one starts the worker (commands that never write records never start it). */
  committed(): void {
    Atomics.add(this.commits, 0, 1);
    if (!this.started) this.start();
  }

  private start(): void {
    this.started = true;
    if (this.path === ':memory:' || this.path === '') return;
    const worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: {
        driver: createRequire(import.meta.url).resolve('better-sqlite3'),
        path: this.path,
        commits: this.commits.buffer,
        intervalMs: INTERVAL_MS,
      },
    });
    // Should the worker fail, the connection checkpoints by itself again, as SQLite does by default.
    worker.on('error', () => {
      if (this.db.open) this.db.pragma('wal_autocheckpoint = 1000');
    });
    worker.unref();
    this.worker = worker;
    this.db.pragma(`wal_autocheckpoint = ${RESTART_PAGES}`);
  }

  /** Stops the worker after a last checkpoint. */
  async stop(): Promise<void> {
    const worker = this.worker;
    if (!worker) return;
    this.worker = null;
    const exited = new Promise((resolve) => worker.once('exit', resolve));
    worker.postMessage('stop');
    const timer = setTimeout(() => void worker.terminate(), 5000);
    await exited;
    clearTimeout(timer);
  }
}
