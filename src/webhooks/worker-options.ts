// What the delivery worker (worker.ts) is started with, and the logger it writes to.
import type { Clock } from '../clock.js';
import type { WebhookStore } from '../store/store.js';
import type { SendOutcome, UnsignedSendRequest } from './send.js';

export interface WorkerLogger {
  info(object: object, message: string): void;
  warn(object: object, message: string): void;
  error(object: object, message: string): void;
}

export interface WorkerOptions {
  store: WebhookStore;
  logger: WorkerLogger;
  allowPrivate: boolean;
  /** One attempt's time limit (WEBHOOK_TIMEOUT_MS, default 10 s). */
  timeoutMs: number;
  retryDelaysSeconds: readonly number[];
  /** Attempts in flight at once, all webhooks together. */
  maxInFlight?: number;
  /** Attempts in flight at once to one webhook (started in event order). */
  maxInFlightPerWebhook?: number;
  /**
   * How often the outbox is read when nothing wakes the worker: other processes' events on PostgreSQL (500 ms by
   * default); on SQLite, which one process serves, every event wakes the worker and this is a safety net (1 s).
   */
  pollIntervalMs?: number;
  /**
   * How long work gathers before the worker turns to the store: a wake waits this long, and the attempts that end
   * meanwhile are recorded together. On PostgreSQL each claim and record is a round trip and a statement planned
   * and run, which cost this process and the database much more than the rows in them, so one pass for many events
   * is worth a short wait (50 ms by default). SQLite's statements are calls in this process, yet a claim and a record
   * for one event each cost more than the rows in them: 5 ms (server CPU per delivered event 132–142 µs against
   * 160–180 µs at 0, bench:webhooks).
   */
  gatherMs?: number;
  clock?: Clock;
  /** Sends one attempt (tests of the worker's rules could pass another; serve uses the real one). */
  send?: (request: UnsignedSendRequest) => Promise<SendOutcome>;
}

export const DEFAULT_TIMEOUT_MS = 10_000;
