// The webhook page's state, without a DOM: the delivery log's filter and page from the URL, the addresses of the
// other views of the log, where a ping or a redelivery leaves the user, and the texts of a delivery's row.
// page-webhooks-detail.ts renders it (webhook-detail-views.ts), webhook-detail-api.ts reads and writes it.
import { DELIVERY_STATUSES, type DeliveryStatus, type WebhookDelivery } from '../shared/webhooks.js';
import { formatDateTime } from './values.js';

export type { WebhookDelivery };

export interface DeliveryList {
  total: number;
  hasMore: boolean;
  items: WebhookDelivery[];
}

export const PAGE_SIZE = 20;
/** How often the log is read again while a delivery on the page is pending. */
export const PENDING_REFRESH_MS = 2000;
/** How soon after a ping or a redelivery the log is read again: a receiver nearby has answered by then. */
export const AFTER_SEND_REFRESH_MS = 400;
/** A next attempt closer than this is shown to the second: a retry in 5 s reads differently from its creation. */
const SECONDS_WITHIN_MS = 60 * 60 * 1000;

export const STATUS_TEXT: Record<string, string> = { pending: 'Pending', succeeded: 'Succeeded', failed: 'Failed' };

/** The log's view: the status filter (null for all) and the offset. */
export interface LogView {
  status: DeliveryStatus | null;
  offset: number;
}

export function parseLogView(query: URLSearchParams): LogView {
  return {
    status: DELIVERY_STATUSES.find((value) => value === query.get('status')) ?? null,
    offset: Math.max(0, Math.floor(Number(query.get('offset'))) || 0),
  };
}

/** The address of the webhook's page with `next` applied to the log's view (`status: null` shows all). */
export function logHref(base: string, view: LogView, next: { status?: string | null; offset?: number }): string {
  const query = new URLSearchParams();
  const wantedStatus = next.status === undefined ? view.status : next.status;
  if (wantedStatus) query.set('status', wantedStatus);
  const wantedOffset = next.offset ?? view.offset;
  if (wantedOffset > 0) query.set('offset', String(wantedOffset));
  const text = query.toString();
  return `${base}${text ? `?${text}` : ''}`;
}

/**
 * Whether a new delivery (a ping, a redelivery: the newest, pending) is outside this view: a page filtered to other
 * deliveries or an older page. The log then goes to its first page, unfiltered, where it is.
 */
export function newDeliveryHidden(view: LogView): boolean {
  return (view.status !== null && view.status !== 'pending') || view.offset > 0;
}

export function hasPending(list: DeliveryList): boolean {
  return list.items.some((delivery) => delivery.status === 'pending');
}

export function emptyLogText(status: DeliveryStatus | null): string {
  return status ? `No ${status} deliveries.` : 'No deliveries yet. Send a ping to try the endpoint.';
}

/** The pager's status and where its two links go (null: that way there is nothing). */
export function logPager(list: DeliveryList, offset: number) {
  const first = list.total === 0 ? 0 : offset + 1;
  const last = offset + list.items.length;
  return {
    status: list.total === 0 ? 'No deliveries' : `Deliveries ${first}–${last} of ${list.total}`,
    newerOffset: offset > 0 ? Math.max(0, offset - PAGE_SIZE) : null,
    olderOffset: list.hasMore ? offset + PAGE_SIZE : null,
  };
}

/** The last answer's status code; null when the delivery was not sent yet, '' when it got no answer. */
export function outcomeText(delivery: Pick<WebhookDelivery, 'lastStatusCode' | 'attempts'>): string | null {
  if (delivery.lastStatusCode !== null) return String(delivery.lastStatusCode);
  return delivery.attempts === 0 ? null : '';
}

/** A pending delivery's next attempt; one with none waits for its paused webhook to be made active again. */
export function nextAttemptText(delivery: Pick<WebhookDelivery, 'status' | 'nextAttemptAt'>, now = Date.now()): string {
  if (delivery.status !== 'pending') return '';
  if (!delivery.nextAttemptAt) return 'when the webhook is active again';
  const soon = new Date(delivery.nextAttemptAt).getTime() - now < SECONDS_WITHIN_MS;
  return formatDateTime(delivery.nextAttemptAt, { seconds: soon });
}
