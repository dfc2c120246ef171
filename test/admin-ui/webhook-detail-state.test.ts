// The webhook page's state (src/admin-ui/webhook-detail-state.ts): the delivery log's filter and page from the
// URL, its addresses, where a new delivery is seen, the pager and the texts of a row. No DOM.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  PAGE_SIZE,
  emptyLogText,
  hasPending,
  logHref,
  logPager,
  newDeliveryHidden,
  nextAttemptText,
  outcomeText,
  parseLogView,
  type DeliveryList,
  type WebhookDelivery,
} from '../../src/admin-ui/webhook-detail-state.js';

function delivery(part: Partial<WebhookDelivery>): WebhookDelivery {
  return {
    id: 'd1',
    eventId: 'e1',
    eventType: 'record.created',
    status: 'succeeded',
    attempts: 1,
    lastStatusCode: 200,
    lastError: null,
    duration: 12,
    nextAttemptAt: null,
    createdAt: '2026-01-01T00:00:00Z',
    updatedAt: '2026-01-01T00:00:00Z',
    ...part,
  };
}

function list(total: number, items: WebhookDelivery[], hasMore = false): DeliveryList {
  return { total, hasMore, items };
}

describe('webhook-detail-state: the log view and its addresses', () => {
  test('the status filter is one of the known statuses; the offset a whole number, not below 0', () => {
    assert.deepEqual(parseLogView(new URLSearchParams('')), { status: null, offset: 0 });
    assert.deepEqual(parseLogView(new URLSearchParams('status=failed&offset=40')), { status: 'failed', offset: 40 });
    assert.deepEqual(parseLogView(new URLSearchParams('status=bogus&offset=-3')), { status: null, offset: 0 });
    assert.deepEqual(parseLogView(new URLSearchParams('offset=20.7')), { status: null, offset: 20 });
    assert.deepEqual(parseLogView(new URLSearchParams('offset=x')), { status: null, offset: 0 });
  });

  test('addresses keep the view, leave out defaults, and status null shows all', () => {
    const view = { status: 'failed' as const, offset: 20 };
    assert.equal(logHref('#/settings/webhooks/w1', view, {}), '#/settings/webhooks/w1?status=failed&offset=20');
    assert.equal(logHref('#/settings/webhooks/w1', view, { offset: 0 }), '#/settings/webhooks/w1?status=failed');
    assert.equal(logHref('#/settings/webhooks/w1', view, { status: null, offset: 0 }), '#/settings/webhooks/w1');
    assert.equal(
      logHref('#/settings/webhooks/w1', { status: null, offset: 0 }, { status: 'pending' }),
      '#/settings/webhooks/w1?status=pending',
    );
  });

  test('a new delivery is hidden on a page of other statuses or an older page', () => {
    assert.equal(newDeliveryHidden({ status: null, offset: 0 }), false);
    assert.equal(newDeliveryHidden({ status: 'pending', offset: 0 }), false);
    assert.equal(newDeliveryHidden({ status: 'failed', offset: 0 }), true);
    assert.equal(newDeliveryHidden({ status: 'succeeded', offset: 0 }), true);
    assert.equal(newDeliveryHidden({ status: null, offset: PAGE_SIZE }), true);
  });
});

describe('webhook-detail-state: the pager and the rows', () => {
  test('the pager says which deliveries are shown and where newer and older ones are', () => {
    assert.deepEqual(logPager(list(0, []), 0), { status: 'No deliveries', newerOffset: null, olderOffset: null });
    const items = Array.from({ length: PAGE_SIZE }, (_, index) => delivery({ id: `d${index}` }));
    assert.deepEqual(logPager(list(45, items, true), 20), {
      status: 'Deliveries 21–40 of 45',
      newerOffset: 0,
      olderOffset: 40,
    });
    assert.equal(logPager(list(45, items.slice(0, 5)), 40).status, 'Deliveries 41–45 of 45');
    assert.equal(logPager(list(45, items.slice(0, 5)), 40).olderOffset, null);
    assert.equal(logPager(list(45, items), 10).newerOffset, 0);
  });

  test('pending deliveries make the log read itself again', () => {
    assert.equal(hasPending(list(1, [delivery({})])), false);
    assert.equal(hasPending(list(2, [delivery({}), delivery({ status: 'pending' })])), true);
  });

  test('an empty log says what is missing', () => {
    assert.equal(emptyLogText(null), 'No deliveries yet. Send a ping to try the endpoint.');
    assert.equal(emptyLogText('failed'), 'No failed deliveries.');
  });

  test('the last status code, or not sent yet, or nothing when no answer came', () => {
    assert.equal(outcomeText(delivery({ lastStatusCode: 503 })), '503');
    assert.equal(outcomeText(delivery({ lastStatusCode: null, attempts: 0 })), null);
    assert.equal(outcomeText(delivery({ lastStatusCode: null, attempts: 2 })), '');
  });

  test('the next attempt: only for pending ones; none means it waits for the webhook to be active again', () => {
    assert.equal(nextAttemptText(delivery({ status: 'failed', nextAttemptAt: '2026-01-01T00:00:05Z' })), '');
    assert.equal(nextAttemptText(delivery({ status: 'pending', nextAttemptAt: null })), 'when the webhook is active again');
    const now = Date.parse('2026-01-01T00:00:00Z');
    const soon = nextAttemptText(delivery({ status: 'pending', nextAttemptAt: '2026-01-01T00:00:05Z' }), now);
    const later = nextAttemptText(delivery({ status: 'pending', nextAttemptAt: '2026-01-01T05:00:05Z' }), now);
    assert.ok(soon.length > 0 && later.length > 0);
    assert.match(soon, /05/, 'an attempt within the hour shows its seconds');
  });
});
