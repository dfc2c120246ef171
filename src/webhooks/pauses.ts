// The pauses of a webhook whose receiver keeps failing (for the delivery worker, worker.ts): after
// PAUSE_AFTER_FAILURES retryable failures in a row its new attempts wait, 1 s and then twice as long each time, at
// most the schedule's first retry delay; after each pause one attempt (the probe) tries the receiver alone.
import type { ClaimedDelivery } from '../store/store.js';

/** Retryable failures in a row after which a webhook's new attempts wait (a pause). */
const PAUSE_AFTER_FAILURES = 5;
const FIRST_PAUSE_MS = 1000;
const MAX_PAUSE_MS = 30_000;
const MIN_PAUSE_MS = 100;
/**
 * The longest pause: the schedule's first retry delay (5 s by default), at most 30 s. A receiver that comes back is
 * then tried no later than a retry of a delivery attempted when it was down would be, and an event written meanwhile
 * is not held back longer than that by the deliveries that failed before it.
 */
export function longestPause(retryDelaysSeconds: readonly number[]): number {
  return Math.max(MIN_PAUSE_MS, Math.min((retryDelaysSeconds[0] ?? 0) * 1000, MAX_PAUSE_MS));
}
/** The `count`th pause of a failing webhook: 1 s, then twice as long each time, at most `longest`. */
export function pauseLength(count: number, longest: number): number {
  return Math.min(FIRST_PAUSE_MS * 2 ** (count - 1), longest);
}
/** A webhook whose attempts failed (retryably) in a row. */
interface FailingWebhook {
  failures: number;
  /** Pauses so far: the next one lasts pauseLength(pauses + 1). */
  pauses: number;
  /** Until then its deliveries wait (epoch milliseconds). */
  pausedUntil: number;
  /** When the attempt that tries the receiver after a pause started; null when none is out. */
  probeStartedAt: number | null;
}

/** A claim sorted by Pauses.sort: the deliveries to take in hand, and per paused webhook those that go back. */
export interface SortedClaim {
  taken: ClaimedDelivery[];
  /** Per webhook: the deliveries that go back, and until when its backlog is put off. */
  goingBack: Map<string, { until: number; ids: string[] }>;
}

/** The webhooks whose attempts failed (retryably) in a row, and their pauses. */
export class Pauses {
  private readonly failing = new Map<string, FailingWebhook>();

  constructor(private readonly longestPauseMs: number) {}

  /**
   * Sorts a claim (in event order): the deliveries of a webhook that failed again and again go back while it is
   * paused, and with them the webhook's whole backlog, put off to the pause's end. When the pause is over, the oldest
   * delivery claimed (if nothing of the webhook is in hand: `inHand`) is the probe, taken alone, and the backlog is
   * put off until the next pause would end, counted from the probe's start. See DeliveryWorker.deferPaused.
   */
  sort(claimed: ClaimedDelivery[], now: number, inHand: (webhookId: string) => boolean): SortedClaim {
    const taken: ClaimedDelivery[] = [];
    const goingBack = new Map<string, { until: number; ids: string[] }>();
    for (const delivery of claimed) {
      const { webhookId } = delivery;
      const state = this.failing.get(webhookId);
      if (!state || state.failures < PAUSE_AFTER_FAILURES) {
        taken.push(delivery);
        continue;
      }
      let back = goingBack.get(webhookId);
      if (!back) {
        if (state.pausedUntil <= now && !inHand(webhookId)) {
          // The pause is over and nothing of the webhook is in hand: this one, the oldest claimed, is the probe.
          state.probeStartedAt = now;
          taken.push(delivery);
          goingBack.set(webhookId, { until: now + this.pauseLength(state.pauses + 1), ids: [] });
          continue;
        }
        // Paused, or a probe (or an attempt of before the pause) is out: until its pause would end.
        const until = state.pausedUntil > now ? state.pausedUntil : now + this.pauseLength(state.pauses + 1);
        back = { until, ids: [] };
        goingBack.set(webhookId, back);
      }
      back.ids.push(delivery.id);
    }
    return { taken, goingBack };
  }

  /**
   * After an attempt: counts the webhook's failures in a row. A success ends them; returns true when they had paused
   * the webhook (the endpoint was down): its waiting retries are then to be made due at once (see
   * DeliveryWorker.noteOutcome).
   */
  noteOutcome(webhookId: string, succeeded: boolean, retryable: boolean, now: number): boolean {
    const failing = this.failing.get(webhookId);
    if (succeeded) {
      if (failing) {
        this.failing.delete(webhookId);
        return failing.pauses > 0;
      }
      return false;
    }
    if (!retryable) return false;
    const state = failing ?? { failures: 0, pauses: 0, pausedUntil: 0, probeStartedAt: null };
    state.failures++;
    // Attempts already in flight when a pause began do not lengthen it.
    if (state.failures >= PAUSE_AFTER_FAILURES && now >= state.pausedUntil) {
      state.pauses++;
      // After a probe, the pause counts from its start: the backlog was put off until then (sort). A probe slower
      // than that still leaves a short pause, so that a receiver that hangs does not get one probe after another.
      state.pausedUntil = Math.max(
        (state.probeStartedAt ?? now) + this.pauseLength(state.pauses),
        now + Math.min(FIRST_PAUSE_MS, this.longestPauseMs),
      );
      state.probeStartedAt = null;
    }
    this.failing.set(webhookId, state);
    return false;
  }

  /** The `count`th pause of a failing webhook, with this worker's longest pause. */
  private pauseLength(count: number): number {
    return pauseLength(count, this.longestPauseMs);
  }
}
