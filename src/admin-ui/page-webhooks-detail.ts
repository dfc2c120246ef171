// One webhook of Settings → Webhooks: send a ping, pause or resume, rotate the signing secret (shown once), delete;
// edit its settings; and its delivery log, newest first, filtered by status and paged by the server, with a
// redeliver button per delivery. While a delivery on the page is pending the log reads itself again every few
// seconds, so a ping is seen to succeed (or fail) without reloading.
import { ApiError, gql } from './api.js';
import { h, replaceChildren } from './dom.js';
import { focusKey, returnFocusTo } from './focus-return.js';
import { listModels } from './models-cache.js';
import type { PageContext } from './page.js';
import { mayManageWebhooks, webhookHref, webhooksForbidden } from './page-webhooks.js';
import { WEBHOOK_FIELDS, webhookForm, type Webhook } from './page-webhooks-form.js';
import { secretPanel } from './page-webhooks-secret.js';
import { alertBox, announce, button, confirmDialog, errorArea, linkButton, pageHeader } from './ui.js';
import { formatDateTime } from './values.js';

interface WebhookDelivery {
  id: string;
  eventId: string;
  eventType: string;
  status: string;
  attempts: number;
  lastStatusCode: number | null;
  lastError: string | null;
  duration: number | null;
  nextAttemptAt: string | null;
  createdAt: string;
  updatedAt: string;
}

interface DeliveryList {
  total: number;
  hasMore: boolean;
  items: WebhookDelivery[];
}

const DELIVERY_FIELDS =
  'id eventId eventType status attempts lastStatusCode lastError duration nextAttemptAt createdAt updatedAt';
const STATUSES = ['pending', 'succeeded', 'failed'] as const;
const PAGE_SIZE = 20;
/** How often the log is read again while a delivery on the page is pending. */
const PENDING_REFRESH_MS = 2000;
/** How soon after a ping or a redelivery the log is read again: a receiver nearby has answered by then. */
const AFTER_SEND_REFRESH_MS = 400;
/** A next attempt closer than this is shown to the second: a retry in 5 s reads differently from its creation. */
const SECONDS_WITHIN_MS = 60 * 60 * 1000;

const STATUS_TEXT: Record<string, string> = { pending: 'Pending', succeeded: 'Succeeded', failed: 'Failed' };

function deliveryRow(delivery: WebhookDelivery, redeliver: (delivery: WebhookDelivery) => void): HTMLElement {
  const outcome =
    delivery.lastStatusCode !== null
      ? String(delivery.lastStatusCode)
      : delivery.attempts === 0
        ? h('span', { class: 'muted' }, 'not sent yet')
        : '';
  return h(
    'tr',
    { class: `delivery delivery-${delivery.status}` },
    h('th', { scope: 'row' }, h('code', null, delivery.eventType), h('div', { class: 'small muted' }, delivery.eventId)),
    h('td', null, h('span', { class: `status status-${delivery.status}` }, STATUS_TEXT[delivery.status] ?? delivery.status)),
    h('td', { class: 'num' }, String(delivery.attempts)),
    h('td', { class: 'num' }, outcome),
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

function deliveryTable(list: DeliveryList, redeliver: (delivery: WebhookDelivery) => void): HTMLElement {
  return h(
    'div',
    { class: 'table-scroll' },
    h(
      'table',
      { class: 'table deliveries' },
      h('caption', { tabindex: '-1' }, 'Deliveries, newest first'),
      h(
        'thead',
        null,
        h(
          'tr',
          null,
          ['Event', 'Status', 'Attempts', 'Last status code', 'Last error', 'Duration', 'Next attempt', 'Created'].map((title) =>
            h('th', { scope: 'col' }, title),
          ),
          h('th', { scope: 'col' }, h('span', { class: 'visually-hidden' }, 'Actions')),
        ),
      ),
      h(
        'tbody',
        null,
        list.items.map((delivery) => deliveryRow(delivery, redeliver)),
      ),
    ),
  );
}

export async function renderWebhookDetail(ctx: PageContext): Promise<void> {
  ctx.setTitle('Webhook');
  if (!mayManageWebhooks(ctx)) {
    webhooksForbidden(ctx, 'Webhook');
    return;
  }
  const id = ctx.params.webhookId ?? '';
  const status = STATUSES.find((value) => value === ctx.query.get('status')) ?? null;
  const offset = Math.max(0, Math.floor(Number(ctx.query.get('offset'))) || 0);
  const hrefFor = (next: { status?: string | null; offset?: number }) => {
    const query = new URLSearchParams();
    const wantedStatus = next.status === undefined ? status : next.status;
    if (wantedStatus) query.set('status', wantedStatus);
    const wantedOffset = next.offset ?? offset;
    if (wantedOffset > 0) query.set('offset', String(wantedOffset));
    const text = query.toString();
    return `${webhookHref(id)}${text ? `?${text}` : ''}`;
  };

  let webhook: Webhook | null;
  let models;
  try {
    const [data, modelList] = await Promise.all([
      gql<{ webhook: { get: Webhook | null } }>(
        `query AdminWebhook($id: ID!) { webhook { get(id: $id) { ${WEBHOOK_FIELDS} } } }`,
        { id },
      ),
      listModels(),
    ]);
    webhook = data.webhook.get;
    models = modelList;
  } catch (error) {
    if (error instanceof ApiError && error.code === 'FORBIDDEN') {
      webhooksForbidden(ctx, 'Webhook');
      return;
    }
    throw error;
  }
  if (!ctx.isCurrent()) return;
  if (!webhook) {
    replaceChildren(
      ctx.main,
      pageHeader('Webhook not found'),
      alertBox('There is no such webhook in this workspace: it may have been deleted.'),
      h('p', null, h('a', { href: '#/settings/webhooks' }, 'Go to the webhooks')),
    );
    return;
  }
  const current: Webhook = webhook;
  ctx.setTitle(`Webhook ${current.description ?? current.url}`);

  const errors = errorArea();
  const secretArea = h('div', { class: 'secret-area' });
  const logArea = h('div', { class: 'delivery-log' });
  const pagerArea = h('div');
  let refreshTimer: ReturnType<typeof setTimeout> | undefined;

  const rerender = (message: string, focus: string) => {
    ctx.flash(message);
    returnFocusTo(focus);
    ctx.navigate(location.hash);
  };

  const redeliver = async (delivery: WebhookDelivery) => {
    errors.clear();
    try {
      await gql(`mutation RedeliverWebhook($id: ID!) { webhook { redeliver(deliveryId: $id) { id } } }`, { id: delivery.id });
      const message = `${delivery.eventType} sent again as a new delivery.`;
      // The new delivery is the newest and pending: a page filtered to other deliveries, or an older page, would
      // not show it, so the log goes to its first page, unfiltered, where it is.
      if ((status !== null && status !== 'pending') || offset > 0) {
        ctx.flash(`${message} It is at the top of the log.`);
        ctx.navigate(hrefFor({ status: null, offset: 0 }));
        return;
      }
      announce(message);
      await loadLog(AFTER_SEND_REFRESH_MS);
    } catch (error) {
      errors.show(error, 'The delivery was not sent again.');
    }
  };

  /** Reads the log; while a delivery on the page is pending, it is read again after `refreshMs`. */
  const loadLog = async (refreshMs = PENDING_REFRESH_MS) => {
    clearTimeout(refreshTimer);
    const data = await gql<{ webhook: { deliveries: DeliveryList } }>(
      `query AdminWebhookDeliveries($id: ID!, $limit: Int, $offset: Int, $status: String) {
        webhook { deliveries(webhookId: $id, limit: $limit, offset: $offset, status: $status) { total hasMore items { ${DELIVERY_FIELDS} } } }
      }`,
      { id, limit: PAGE_SIZE, offset, status },
    );
    if (!ctx.isCurrent()) return;
    const list = data.webhook.deliveries;
    const onRedeliver = (delivery: WebhookDelivery) => void redeliver(delivery);
    logArea.replaceChildren(
      list.items.length === 0
        ? h('p', { class: 'empty' }, status ? `No ${status} deliveries.` : 'No deliveries yet. Send a ping to try the endpoint.')
        : deliveryTable(list, onRedeliver),
    );
    const first = list.total === 0 ? 0 : offset + 1;
    const last = offset + list.items.length;
    pagerArea.replaceChildren(
      h(
        'nav',
        { class: 'pager', 'aria-label': 'Delivery pages' },
        h('p', { class: 'pager-status' }, list.total === 0 ? 'No deliveries' : `Deliveries ${first}–${last} of ${list.total}`),
        h(
          'div',
          { class: 'pager-controls' },
          offset > 0
            ? linkButton('Newer deliveries', hrefFor({ offset: Math.max(0, offset - PAGE_SIZE) }), { rel: 'prev' })
            : h('span', { class: 'button', 'aria-disabled': 'true' }, 'Newer deliveries'),
          list.hasMore
            ? linkButton('Older deliveries', hrefFor({ offset: offset + PAGE_SIZE }), { rel: 'next' })
            : h('span', { class: 'button', 'aria-disabled': 'true' }, 'Older deliveries'),
        ),
      ),
    );
    if (list.items.some((delivery) => delivery.status === 'pending')) {
      refreshTimer = setTimeout(() => {
        if (ctx.isCurrent() && logArea.isConnected) void loadLogQuietly();
      }, refreshMs);
    }
  };
  /** Reads the log again in the background; a button that had the focus (by its focus key) gets it back. */
  const loadLogQuietly = async () => {
    const focused = document.activeElement instanceof HTMLElement ? document.activeElement.dataset.focusKey : undefined;
    try {
      await loadLog();
    } catch {
      // A failed background read leaves the log as it was; the Refresh button shows the error.
    }
    if (focused) logArea.querySelector<HTMLElement>(`[data-focus-key="${CSS.escape(focused)}"]`)?.focus();
  };

  const ping = async () => {
    errors.clear();
    try {
      await gql(`mutation PingWebhook($id: ID!) { webhook { ping(id: $id) { id } } }`, { id });
      announce('Ping sent. Its delivery is at the top of the log.');
      if ((status !== null && status !== 'pending') || offset > 0) {
        ctx.navigate(hrefFor({ status: null, offset: 0 }));
        return;
      }
      await loadLog(AFTER_SEND_REFRESH_MS);
    } catch (error) {
      errors.show(error, 'The ping was not sent.');
    }
  };

  const toggleActive = async () => {
    errors.clear();
    try {
      await gql(`mutation SetWebhookActive($input: UpdateWebhookInput!) { webhook { update(input: $input) { id active } } }`, {
        input: { id, active: !current.active },
      });
      rerender(current.active ? 'Webhook paused: no deliveries until it is resumed.' : 'Webhook resumed.', 'toggle-active');
    } catch (error) {
      errors.show(error, current.active ? 'The webhook was not paused.' : 'The webhook was not resumed.');
    }
  };

  const rotate = async () => {
    errors.clear();
    const confirmed = await confirmDialog({
      title: 'Rotate the signing secret?',
      message: h(
        'p',
        null,
        'A new secret is made and shown once. For 24 hours deliveries carry signatures with both secrets, then only the new one.',
      ),
      confirmLabel: 'Rotate secret',
    });
    if (!confirmed) return;
    try {
      const data = await gql<{ webhook: { rotateSecret: { secret: string } } }>(
        `mutation RotateWebhookSecret($id: ID!) { webhook { rotateSecret(id: $id) { webhook { id } secret } } }`,
        { id },
      );
      const panel = secretPanel({
        title: 'New signing secret',
        secret: data.webhook.rotateSecret.secret,
        rotated: true,
        onDone: () => {
          secretArea.replaceChildren();
          rotateButton.focus();
        },
      });
      secretArea.replaceChildren(panel);
      panel.focus();
    } catch (error) {
      errors.show(error, 'The secret was not rotated.');
    }
  };

  const remove = async () => {
    errors.clear();
    const confirmed = await confirmDialog({
      title: `Delete the webhook to ${current.url}?`,
      message: h('p', null, 'No more events are sent to it, and its delivery log is deleted with it. This cannot be undone.'),
      confirmLabel: 'Delete webhook',
      danger: true,
    });
    if (!confirmed) return;
    try {
      await gql(`mutation DeleteWebhook($id: ID!) { webhook { delete(id: $id) { id deleted } } }`, { id });
      ctx.flash(`Webhook to ${current.url} deleted.`);
      ctx.navigate('#/settings/webhooks');
    } catch (error) {
      errors.show(error, 'The webhook was not deleted.');
    }
  };

  const form = webhookForm({
    webhook: current,
    models,
    submitLabel: 'Save changes',
    titleId: 'webhook-settings-title',
    onSubmit: async (values) => {
      errors.clear();
      try {
        await gql(
          `mutation UpdateWebhook($input: UpdateWebhookInput!) { webhook { update(input: $input) { ${WEBHOOK_FIELDS} } } }`,
          {
            input: { id, ...values },
          },
        );
        rerender('Webhook saved.', 'webhook-save');
      } catch (error) {
        if (!form.showFieldError((error as Error).message)) errors.show(error, 'The webhook was not saved.');
      }
    },
  });
  const saveButton = form.element.querySelector<HTMLButtonElement>('button[type=submit]');
  if (saveButton) focusKey(saveButton, 'webhook-save');

  const rotateButton = button('Rotate secret', () => rotate());
  const statusFilter = focusKey(
    h(
      'select',
      {
        id: 'delivery-status',
        onchange: () => {
          returnFocusTo('delivery-status');
          ctx.navigate(hrefFor({ status: statusFilter.value || null, offset: 0 }));
        },
      },
      h('option', { value: '' }, 'All'),
      STATUSES.map((value) => h('option', { value }, STATUS_TEXT[value])),
    ),
    'delivery-status',
  ) as HTMLSelectElement;
  statusFilter.value = status ?? '';

  replaceChildren(
    ctx.main,
    h(
      'p',
      { class: 'breadcrumbs' },
      h('a', { href: '#/settings/webhooks' }, 'Webhooks'),
      ' / ',
      current.description ?? current.url,
    ),
    pageHeader(
      'Webhook',
      button('Send ping', () => ping()),
      focusKey(
        button(current.active ? 'Pause' : 'Resume', () => toggleActive()),
        'toggle-active',
      ),
      rotateButton,
      button('Delete', () => remove(), { class: 'button button-danger' }),
    ),
    h(
      'dl',
      { class: 'settings' },
      h('dt', null, 'Endpoint URL'),
      h('dd', null, h('code', { class: 'webhook-url' }, current.url)),
      h('dt', null, 'Status'),
      h('dd', null, current.active ? 'Active' : 'Paused: events are not sent to it'),
      h('dt', null, 'Created'),
      h('dd', null, formatDateTime(current.createdAt)),
    ),
    errors.element,
    secretArea,
    h(
      'section',
      { class: 'delivery-section', 'aria-labelledby': 'delivery-log-title' },
      h('h2', { id: 'delivery-log-title' }, 'Delivery log'),
      h(
        'div',
        { class: 'filter-bar delivery-filter' },
        h('label', { for: 'delivery-status' }, 'Status'),
        statusFilter,
        button('Refresh', async () => {
          errors.clear();
          try {
            await loadLog();
            announce('Delivery log read again.');
          } catch (error) {
            errors.show(error, 'The delivery log could not be read.');
          }
        }),
      ),
      logArea,
      pagerArea,
    ),
    h(
      'section',
      { class: 'webhook-settings', 'aria-labelledby': 'webhook-settings-title' },
      h('h2', { id: 'webhook-settings-title' }, 'Settings'),
      form.element,
    ),
  );
  // Soon, as after a send: a ping or a redelivery from a filtered page comes here with its delivery just sent.
  await loadLog(AFTER_SEND_REFRESH_MS);
}

/** A pending delivery's next attempt; one with none waits for its paused webhook to be made active again. */
function nextAttemptText(delivery: Pick<WebhookDelivery, 'status' | 'nextAttemptAt'>): string {
  if (delivery.status !== 'pending') return '';
  if (!delivery.nextAttemptAt) return 'when the webhook is active again';
  const soon = new Date(delivery.nextAttemptAt).getTime() - Date.now() < SECONDS_WITHIN_MS;
  return formatDateTime(delivery.nextAttemptAt, { seconds: soon });
}
