// The deliveries the delivery worker (worker.ts) has in hand: claimed and not yet recorded. They start in the order
// they were claimed, at most `maxPerWebhook` at once per webhook (the rest wait here, in order); this counts those
// in flight or waiting (held) and those answered whose record is not written yet (recording).
import type { ClaimedDelivery } from '../store/store.js';
import type { WorkerLogger } from './worker-options.js';

/** One webhook's deliveries in hand: those in flight, those waiting for their turn, and those being recorded. */
interface WebhookInHand {
  sending: number;
  waiting: ClaimedDelivery[];
  inHand: number;
}

/** Makes one attempt; calls `onAnswer` when the answer is in (before the attempt is recorded). */
export type AttemptRunner = (delivery: ClaimedDelivery, onAnswer: () => void) => Promise<void>;

export class DeliveriesInHand {
  /** Deliveries in hand per webhook: those in flight, those waiting for their turn, and those being recorded. */
  private readonly perWebhook = new Map<string, WebhookInHand>();
  /** Deliveries claimed and not yet answered (in flight or waiting for their turn). */
  private heldCount = 0;
  /** Attempts answered whose record is not written yet (their claims still hold them, so no claim takes them again). */
  private recordingCount = 0;
  private readonly attempts = new Set<Promise<void>>();

  /** `wake`: called when an attempt is answered and when it is recorded (room for more). */
  constructor(
    private readonly maxPerWebhook: number,
    private readonly attempt: AttemptRunner,
    private readonly wake: () => void,
    private readonly logger: WorkerLogger,
  ) {}

  /** Deliveries claimed and not yet answered (in flight or waiting for their turn). */
  get held(): number {
    return this.heldCount;
  }

  /** Attempts answered whose record is not written yet. */
  get recording(): number {
    return this.recordingCount;
  }

  /** The webhooks with deliveries in hand. */
  webhookIds(): string[] {
    return [...this.perWebhook.keys()];
  }

  has(webhookId: string): boolean {
    return this.perWebhook.has(webhookId);
  }

  take(delivery: ClaimedDelivery): void {
    let state = this.perWebhook.get(delivery.webhookId);
    if (!state) {
      state = { sending: 0, waiting: [], inHand: 0 };
      this.perWebhook.set(delivery.webhookId, state);
    }
    this.heldCount++;
    state.inHand++;
    state.waiting.push(delivery);
    this.startWaiting(delivery.webhookId);
  }

  /** Lets go of the deliveries still waiting their turn (none of them was attempted): returns them. */
  giveBackWaiting(): ClaimedDelivery[] {
    const unattempted: ClaimedDelivery[] = [];
    for (const state of this.perWebhook.values()) {
      this.heldCount -= state.waiting.length;
      state.inHand -= state.waiting.length;
      unattempted.push(...state.waiting);
      state.waiting = [];
    }
    return unattempted;
  }

  /** Waits for the attempts in flight (and those they start) to end and be recorded. */
  async settled(): Promise<void> {
    while (this.attempts.size > 0) await Promise.allSettled([...this.attempts]);
  }

  /** Starts the webhook's waiting deliveries, in the order they were claimed, while it has room. */
  private startWaiting(webhookId: string): void {
    const state = this.perWebhook.get(webhookId);
    if (!state) return;
    while (state.sending < this.maxPerWebhook && state.waiting.length > 0) {
      const delivery = state.waiting.shift()!;
      state.sending++;
      // The next one starts when the answer is in; the claim still holds the delivery until its attempt is recorded.
      let answered = false;
      const onAnswer = () => {
        if (answered) return;
        answered = true;
        state.sending--;
        this.heldCount--;
        this.recordingCount++;
        this.startWaiting(webhookId);
        this.wake();
      };
      const attempt = this.attempt(delivery, onAnswer)
        .catch((error: unknown) =>
          this.logger.error({ err: error, deliveryId: delivery.id }, 'webhooks: recording an attempt failed'),
        )
        .finally(() => {
          onAnswer();
          this.attempts.delete(attempt);
          this.recordingCount--;
          state.inHand--;
          if (state.inHand === 0 && this.perWebhook.get(webhookId) === state) this.perWebhook.delete(webhookId);
          this.wake();
        });
      this.attempts.add(attempt);
    }
  }
}
