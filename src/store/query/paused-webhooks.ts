// The webhooks this process has paused (their receiver keeps failing: see webhooks/pauses.ts), for the materialisers
// of both stores (query/delivery-plan.ts): while a webhook is paused its cursor stays where it is, so an outage adds
// no delivery row per write; once the pause is over, until the webhook answers again (resume), one event at a time
// is materialised for it, the probe.

export type PauseState = 'running' | 'paused' | 'probing';

export class PausedWebhooks {
  /** Webhook id → the pause's end (epoch milliseconds). Kept after the end, until the webhook answers (resume). */
  private readonly until = new Map<string, number>();
  /** Webhook id → when it last answered after a pause (its put-off deliveries were made due then: expedite). */
  private readonly resumedAt = new Map<string, number>();

  pause(webhookId: string, until: number): void {
    this.until.set(webhookId, until);
  }

  /** The webhook answers again (at `now`): its events are materialised at once, all of them. */
  resume(webhookId: string, now: number): void {
    if (this.until.delete(webhookId)) this.resumedAt.set(webhookId, now);
  }

  /** The webhook is gone. */
  forget(webhookId: string): void {
    this.until.delete(webhookId);
    this.resumedAt.delete(webhookId);
  }

  /**
   * When a delivery made at `madeAt` (by a materialiser pass) is due: then, and not before the deliveries of the
   * webhook that a pause put off (to its end) or that its answer made due (at that time). Claims take deliveries in
   * due order, then event order, so the webhook's deliveries start in event order. Not the event's own time: events
   * take their sequence in commit order, which concurrent writes reach in another order than their clocks' readings.
   */
  dueOf(webhookId: string, madeAt: number): number {
    const floor = this.until.get(webhookId) ?? this.resumedAt.get(webhookId);
    return floor === undefined || floor < madeAt ? madeAt : floor;
  }

  state(webhookId: string, now: number): PauseState {
    if (this.until.size === 0) return 'running';
    const until = this.until.get(webhookId);
    if (until === undefined) return 'running';
    return until > now ? 'paused' : 'probing';
  }

  /**
   * How many deliveries a materialiser pass may make for the webhook now: none while it is paused (its cursor stays
   * where it is), one once the pause is over and until it answers (the probe), else any number.
   */
  cursorLimit(webhookId: string, now: number): number {
    const state = this.state(webhookId, now);
    return state === 'paused' ? 0 : state === 'probing' ? 1 : Infinity;
  }

  /** When a delivery to the webhook made now is due: null for at once, or its pause's end. */
  dueAt(webhookId: string, now: number): number | null {
    const until = this.until.get(webhookId);
    return until !== undefined && until > now ? until : null;
  }

  /** Whether one of the webhooks is not paused now. */
  anyRunning(webhooks: readonly { id: string }[], now: number): boolean {
    if (this.until.size === 0) return true;
    return webhooks.some((webhook) => this.state(webhook.id, now) !== 'paused');
  }

  /** Whether one of the webhooks is running: neither paused nor waiting for its probe's answer. */
  anyAnswering(webhooks: readonly { id: string }[], now: number): boolean {
    if (this.until.size === 0) return true;
    return webhooks.some((webhook) => this.state(webhook.id, now) === 'running');
  }

  /** The webhooks paused now. */
  pausedNow(now: number): string[] {
    const ids: string[] = [];
    for (const [id, until] of this.until) if (until > now) ids.push(id);
    return ids;
  }

  /** The earlier of `due` (the next due delivery, or null) and the end of a pause still running, or null. */
  nextWake(due: number | null, now: number): number | null {
    const pauseEnd = this.nextEnd(now);
    return due === null ? pauseEnd : pauseEnd === null ? due : Math.min(due, pauseEnd);
  }

  /** The earliest end of a pause still running (the worker wakes then to materialise the probe), or null. */
  nextEnd(now: number): number | null {
    let next: number | null = null;
    for (const until of this.until.values()) if (until > now && (next === null || until < next)) next = until;
    return next;
  }
}
