// The webhook page's views, built from its state (webhook-detail-state.ts): the delivery log's table and pager,
// and the webhook's settings as a definition list.
import type { Webhook, WebhookDelivery } from '../shared/webhooks.js';
import { h, listTable } from './dom.js';
import { focusKey } from './focus-return.js';
import { button, linkButton } from './ui.js';
import { formatDateTime } from './values.js';
import { STATUS_TEXT, logPager, nextAttemptText, outcomeText, type DeliveryList } from './webhook-detail-state.js';

function deliveryRow(delivery: WebhookDelivery, redeliver: (delivery: WebhookDelivery) => void): HTMLElement {
  const outcome = outcomeText(delivery);
  return h(
    'tr',
    { class: `delivery delivery-${delivery.status}` },
    h('th', { scope: 'row' }, h('code', null, delivery.eventType), h('div', { class: 'small muted' }, delivery.eventId)),
    h('td', null, h('span', { class: `status status-${delivery.status}` }, STATUS_TEXT[delivery.status] ?? delivery.status)),
    h('td', { class: 'num' }, String(delivery.attempts)),
    h('td', { class: 'num' }, outcome ?? h('span', { class: 'muted' }, 'not sent yet')),
    h('td', { class: 'delivery-error' }, delivery.lastError ?? ''),
    h('td', { class: 'num' }, delivery.duration === null ? '' : `${delivery.duration} ms`),
    h('td', null, nextAttemptText(delivery)),
    h('td', null, formatDateTime(delivery.createdAt)),
    h(
      'td',
      { class: 'actions' },
      delivery.status === 'pending'
        ? null
        : focusKey(
            button('Redeliver', () => redeliver(delivery), {
              'aria-label': `Redeliver ${delivery.eventType} ${delivery.eventId}`,
            }),
            `redeliver-${delivery.id}`,
          ),
    ),
  );
}

export function deliveryTable(list: DeliveryList, redeliver: (delivery: WebhookDelivery) => void): HTMLElement {
  return listTable(
    'table deliveries',
    'Deliveries, newest first',
    ['Event', 'Status', 'Attempts', 'Last status code', 'Last error', 'Duration', 'Next attempt', 'Created'],
    list.items.map((delivery) => deliveryRow(delivery, redeliver)),
    { actions: true },
  );
}

export function deliveryPager(list: DeliveryList, offset: number, hrefFor: (next: { offset: number }) => string) {
  const pager = logPager(list, offset);
  return h(
    'nav',
    { class: 'pager', 'aria-label': 'Delivery pages' },
    h('p', { class: 'pager-status' }, pager.status),
    h(
      'div',
      { class: 'pager-controls' },
      pager.newerOffset !== null
        ? linkButton('Newer deliveries', hrefFor({ offset: pager.newerOffset }), { rel: 'prev' })
        : h('span', { class: 'button', 'aria-disabled': 'true' }, 'Newer deliveries'),
      pager.olderOffset !== null
        ? linkButton('Older deliveries', hrefFor({ offset: pager.olderOffset }), { rel: 'next' })
        : h('span', { class: 'button', 'aria-disabled': 'true' }, 'Older deliveries'),
    ),
  );
}

export function webhookFacts(webhook: Webhook): HTMLElement {
  return h(
    'dl',
    { class: 'settings' },
    h('dt', null, 'Endpoint URL'),
    h('dd', null, h('code', { class: 'webhook-url' }, webhook.url)),
    h('dt', null, 'Status'),
    h('dd', null, webhook.active ? 'Active' : 'Paused: events are not sent to it'),
    h('dt', null, 'Created'),
    h('dd', null, formatDateTime(webhook.createdAt)),
  );
}
