// Which delivery rows a materialiser makes (both stores; docs/decisions.md "Webhooks: one outbox row per write"):
// a write stores only its event, and each webhook has a cursor, the sequence up to which every event it subscribes
// to has its delivery row. The materialiser reads the events past the cursors, in sequence order, and plans a
// delivery for each event and each webhook of the event's workspace whose cursor is below it and that subscribes to it
// (the webhook's filter as it is now: a change of the filter materialises the webhook first, with the old one).
import { isSubscribed, PING_EVENT, type WebhookEventType, type WebhookSubscription } from '../../domain/webhook-events.js';

export interface WebhookCursor {
  subscription: WebhookSubscription;
  workspaceId: string;
  /** Every event up to this sequence that the webhook subscribes to has its delivery row. */
  lastSequence: number;
  /** At most this many deliveries in this pass (1: a paused webhook's probe), or Infinity. */
  limit: number;
}

export interface OutboxEvent {
  sequence: number;
  workspaceId: string;
  type: string;
  modelId: string | null;
}

export interface DeliveryPlan<E extends OutboxEvent> {
  /** In event order (then the cursors' order). */
  deliveries: { webhookId: string; event: E }[];
  /** The cursors that move: webhook id → new last sequence. */
  moved: Map<string, number>;
}

/**
 * `events`: those past the lowest cursor, in sequence order, every one up to `end` (the read's limit or the bound
 * below which nothing can still commit). A cursor moves to `end`, or, when its limit stops it, to the sequence
 * before the first event it did not get.
 */
export function planDeliveries<E extends OutboxEvent>(
  cursors: readonly WebhookCursor[],
  events: readonly E[],
  end: number,
): DeliveryPlan<E> {
  const byWorkspace = new Map<string, { cursor: WebhookCursor; made: number; stop: number }[]>();
  const states: { cursor: WebhookCursor; made: number; stop: number }[] = [];
  for (const cursor of cursors) {
    const state = { cursor, made: 0, stop: end };
    states.push(state);
    let list = byWorkspace.get(cursor.workspaceId);
    if (!list) byWorkspace.set(cursor.workspaceId, (list = []));
    list.push(state);
  }
  const deliveries: { webhookId: string; event: E }[] = [];
  for (const event of events) {
    if (event.sequence > end) break;
    const list = byWorkspace.get(event.workspaceId);
    if (!list || event.type === PING_EVENT) continue;
    for (const state of list) {
      const { cursor } = state;
      if (event.sequence <= cursor.lastSequence || event.sequence > state.stop) continue;
      if (!isSubscribed(cursor.subscription, event.type as WebhookEventType, event.modelId ?? '')) continue;
      if (state.made >= cursor.limit) {
        state.stop = event.sequence - 1;
        continue;
      }
      state.made++;
      deliveries.push({ webhookId: cursor.subscription.id, event });
    }
  }
  const moved = new Map<string, number>();
  for (const { cursor, stop } of states) if (stop > cursor.lastSequence) moved.set(cursor.subscription.id, stop);
  return { deliveries, moved };
}

/**
 * How far a webhook's last materialiser pass may lie ahead of this one's clock reading and still set its time: a
 * pass that read the clock first can make its deliveries after another's (waiting for a lock, a bound), and the
 * claims take a webhook's deliveries in due order. A clock set back further than this (or a test's clock) is taken
 * as it is, so that it never holds deliveries back for longer.
 */
const PASS_ORDER_TOLERANCE_MS = 5_000;

/** When a pass that read `now` makes a webhook's deliveries, after its last pass at `lastMade` (madeAt's due order). */
export function madeAt(now: number, lastMade: number): number {
  return lastMade > now && lastMade - now <= PASS_ORDER_TOLERANCE_MS ? lastMade : now;
}

/** Events read per materialiser pass at most. */
export const MATERIALISE_BATCH = 1000;
