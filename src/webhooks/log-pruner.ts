// The delivery log's pruning (for the delivery worker, worker.ts): at most once per PRUNE_EVERY_MS, the settled
// deliveries and their attempts older than LOG_RETENTION_MS go.
import type { Clock } from '../clock.js';
import type { WebhookStore } from '../store/store.js';
import type { WorkerLogger } from './worker-options.js';

const PRUNE_EVERY_MS = 60 * 60 * 1000;

/** The delivery log keeps settled deliveries and their attempts this long. */
export const LOG_RETENTION_MS = 7 * 24 * 60 * 60 * 1000;

export class LogPruner {
  private lastPrune = 0;

  constructor(
    private readonly store: WebhookStore,
    private readonly clock: Clock,
    private readonly logger: WorkerLogger,
  ) {}

  async pruneNowAndThen(): Promise<void> {
    const now = this.clock();
    if (now - this.lastPrune < PRUNE_EVERY_MS) return;
    this.lastPrune = now;
    const removed = await this.store.prune(now - LOG_RETENTION_MS);
    if (removed > 0) this.logger.info({ removed }, 'webhooks: pruned the delivery log');
  }
}
