// The webhooks this process has paused (their receiver keeps failing: see webhooks/worker.ts), for the outboxes of
// both stores: a delivery written for a paused webhook is stored due when the pause ends, so that the worker does not
// claim it only to put it off.

export class PausedWebhooks {
  /** Webhook id → the pause's end (epoch milliseconds). */
  private readonly until = new Map<string, number>();

  pause(webhookId: string, until: number): void {
    this.until.set(webhookId, until);
  }

  /** The webhook answers again: its new deliveries are due at once. */
  resume(webhookId: string): void {
    this.until.delete(webhookId);
  }

  /** When a delivery to the webhook written at `createdAt` is due: null for at once, or its pause's end. */
  dueAt(webhookId: string, createdAt: number): number | null {
    if (this.until.size === 0) return null;
    const until = this.until.get(webhookId);
    if (until === undefined) return null;
    if (until > createdAt) return until;
    this.until.delete(webhookId);
    return null;
  }
}
