// One webhook of Settings → Webhooks: send a ping, pause or resume, rotate the signing secret (shown once), delete;
// edit its settings; and its delivery log, newest first, filtered by status and paged by the server, with a
// redeliver button per delivery. While a delivery on the page is pending the log reads itself again every few
// seconds, so a ping is seen to succeed (or fail) without reloading.
// The page's state is webhook-detail-state.ts, its calls webhook-detail-api.ts, its views webhook-detail-views.ts.
import { DELIVERY_STATUSES, type Webhook, type WebhookDelivery } from '../shared/webhooks.js';
import { h, replaceChildren } from './dom.js';
import { focusKey, returnFocusTo } from './focus-return.js';
import type { PageContext } from './page.js';
import { mayManageWebhooks, webhookHref, webhooksForbidden } from './page-webhooks.js';
import { webhookForm } from './page-webhooks-form.js';
import { secretPanel } from './page-webhooks-secret.js';
import type { ModelDefinition } from './types.js';
import { alertBox, announce, button, confirmDialog, errorArea, pageHeader } from './ui.js';
import {
  deleteWebhookCall,
  loadDeliveries,
  loadWebhook,
  pingCall,
  redeliverCall,
  rotateSecretCall,
  setActiveCall,
  updateWebhookCall,
} from './webhook-detail-api.js';
import {
  AFTER_SEND_REFRESH_MS,
  PENDING_REFRESH_MS,
  STATUS_TEXT,
  emptyLogText,
  hasPending,
  logHref,
  newDeliveryHidden,
  parseLogView,
  type LogView,
} from './webhook-detail-state.js';
import { deliveryPager, deliveryTable, webhookFacts } from './webhook-detail-views.js';

/** What the page's parts share. */
interface DetailPage {
  ctx: PageContext;
  id: string;
  webhook: Webhook;
  view: LogView;
  hrefFor: (next: { status?: string | null; offset?: number }) => string;
  errors: ReturnType<typeof errorArea>;
}

/** The delivery log: its area, its pager, and a read of it (again after `refreshMs` while one is pending). */
function deliveryLog(page: DetailPage) {
  const { ctx, id, view, errors } = page;
  const logArea = h('div', { class: 'delivery-log' });
  const pagerArea = h('div');
  let refreshTimer: ReturnType<typeof setTimeout> | undefined;

  const redeliver = async (delivery: WebhookDelivery) => {
    errors.clear();
    try {
      await redeliverCall(delivery.id);
      const message = `${delivery.eventType} sent again as a new delivery.`;
      if (newDeliveryHidden(view)) {
        ctx.flash(`${message} It is at the top of the log.`);
        ctx.navigate(page.hrefFor({ status: null, offset: 0 }));
        return;
      }
      announce(message);
      await load(AFTER_SEND_REFRESH_MS);
    } catch (error) {
      errors.show(error, 'The delivery was not sent again.');
    }
  };
  const load = async (refreshMs = PENDING_REFRESH_MS) => {
    clearTimeout(refreshTimer);
    const list = await loadDeliveries(id, view);
    if (!ctx.isCurrent()) return;
    const onRedeliver = (delivery: WebhookDelivery) => void redeliver(delivery);
    logArea.replaceChildren(
      list.items.length === 0 ? h('p', { class: 'empty' }, emptyLogText(view.status)) : deliveryTable(list, onRedeliver),
    );
    pagerArea.replaceChildren(deliveryPager(list, view.offset, page.hrefFor));
    if (hasPending(list)) {
      refreshTimer = setTimeout(() => {
        if (ctx.isCurrent() && logArea.isConnected) void loadQuietly();
      }, refreshMs);
    }
  };
  /** Reads the log again in the background; a button that had the focus (by its focus key) gets it back. */
  const loadQuietly = async () => {
    const focused = document.activeElement instanceof HTMLElement ? document.activeElement.dataset.focusKey : undefined;
    try {
      await load();
    } catch {
      // A failed background read leaves the log as it was; the Refresh button shows the error.
    }
    if (focused) logArea.querySelector<HTMLElement>(`[data-focus-key="${CSS.escape(focused)}"]`)?.focus();
  };
  return { logArea, pagerArea, load };
}

/** The buttons of the page's header: ping, pause or resume, rotate the secret, delete. */
function webhookActions(page: DetailPage, secretArea: HTMLElement, loadLog: (refreshMs?: number) => Promise<void>) {
  const { ctx, id, webhook, errors } = page;
  const ping = async () => {
    errors.clear();
    try {
      await pingCall(id);
      announce('Ping sent. Its delivery is at the top of the log.');
      if (newDeliveryHidden(page.view)) {
        ctx.navigate(page.hrefFor({ status: null, offset: 0 }));
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
      await setActiveCall(id, !webhook.active);
      rerender(ctx, webhook.active ? 'Webhook paused: no deliveries until it is resumed.' : 'Webhook resumed.', 'toggle-active');
    } catch (error) {
      errors.show(error, webhook.active ? 'The webhook was not paused.' : 'The webhook was not resumed.');
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
      const secret = await rotateSecretCall(id);
      const panel = secretPanel({
        title: 'New signing secret',
        secret,
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
      title: `Delete the webhook to ${webhook.url}?`,
      message: h('p', null, 'No more events are sent to it, and its delivery log is deleted with it. This cannot be undone.'),
      confirmLabel: 'Delete webhook',
      danger: true,
    });
    if (!confirmed) return;
    try {
      await deleteWebhookCall(id);
      ctx.flash(`Webhook to ${webhook.url} deleted.`);
      ctx.navigate('#/settings/webhooks');
    } catch (error) {
      errors.show(error, 'The webhook was not deleted.');
    }
  };
  const rotateButton = button('Rotate secret', () => rotate());
  return [
    button('Send ping', () => ping()),
    focusKey(
      button(webhook.active ? 'Pause' : 'Resume', () => toggleActive()),
      'toggle-active',
    ),
    rotateButton,
    button('Delete', () => remove(), { class: 'button button-danger' }),
  ];
}

/** Shows the page again (read anew) with a message, the focus back on the control named by `focus`. */
function rerender(ctx: PageContext, message: string, focus: string): void {
  ctx.flash(message);
  returnFocusTo(focus);
  ctx.navigate(location.hash);
}

function settingsForm(page: DetailPage, models: ModelDefinition[]): HTMLElement {
  const { ctx, id, errors } = page;
  const form = webhookForm({
    webhook: page.webhook,
    models,
    submitLabel: 'Save changes',
    titleId: 'webhook-settings-title',
    onSubmit: async (values) => {
      await updateWebhookCall(id, values);
      rerender(ctx, 'Webhook saved.', 'webhook-save');
    },
    errors,
    failedTitle: 'The webhook was not saved.',
  });
  const saveButton = form.element.querySelector<HTMLButtonElement>('button[type=submit]');
  if (saveButton) focusKey(saveButton, 'webhook-save');
  return form.element;
}

function statusFilterSelect(page: DetailPage): HTMLSelectElement {
  const statusFilter = focusKey(
    h(
      'select',
      {
        id: 'delivery-status',
        onchange: () => {
          returnFocusTo('delivery-status');
          page.ctx.navigate(page.hrefFor({ status: statusFilter.value || null, offset: 0 }));
        },
      },
      h('option', { value: '' }, 'All'),
      DELIVERY_STATUSES.map((value) => h('option', { value }, STATUS_TEXT[value])),
    ),
    'delivery-status',
  ) as HTMLSelectElement;
  statusFilter.value = page.view.status ?? '';
  return statusFilter;
}

function webhookNotFound(ctx: PageContext): void {
  replaceChildren(
    ctx.main,
    pageHeader('Webhook not found'),
    alertBox('There is no such webhook in this workspace: it may have been deleted.'),
    h('p', null, h('a', { href: '#/settings/webhooks' }, 'Go to the webhooks')),
  );
}

export async function renderWebhookDetail(ctx: PageContext): Promise<void> {
  ctx.setTitle('Webhook');
  if (!mayManageWebhooks(ctx)) {
    webhooksForbidden(ctx, 'Webhook');
    return;
  }
  const id = ctx.params.webhookId ?? '';
  const view = parseLogView(ctx.query);
  const loaded = await loadWebhook(id);
  if (loaded === 'forbidden') {
    webhooksForbidden(ctx, 'Webhook');
    return;
  }
  if (!ctx.isCurrent()) return;
  if (!loaded.webhook) return webhookNotFound(ctx);
  const webhook = loaded.webhook;
  ctx.setTitle(`Webhook ${webhook.description ?? webhook.url}`);
  const errors = errorArea();
  const page: DetailPage = { ctx, id, webhook, view, errors, hrefFor: (next) => logHref(webhookHref(id), view, next) };
  const secretArea = h('div', { class: 'secret-area' });
  const log = deliveryLog(page);
  const actions = webhookActions(page, secretArea, log.load);
  const form = settingsForm(page, loaded.models);
  const refresh = button('Refresh', async () => {
    errors.clear();
    try {
      await log.load();
      announce('Delivery log read again.');
    } catch (error) {
      errors.show(error, 'The delivery log could not be read.');
    }
  });
  replaceChildren(
    ctx.main,
    h(
      'p',
      { class: 'breadcrumbs' },
      h('a', { href: '#/settings/webhooks' }, 'Webhooks'),
      ' / ',
      webhook.description ?? webhook.url,
    ),
    pageHeader('Webhook', ...actions),
    webhookFacts(webhook),
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
        statusFilterSelect(page),
        refresh,
      ),
      log.logArea,
      log.pagerArea,
    ),
    h(
      'section',
      { class: 'webhook-settings', 'aria-labelledby': 'webhook-settings-title' },
      h('h2', { id: 'webhook-settings-title' }, 'Settings'),
      form,
    ),
  );
  // Soon, as after a send: a ping or a redelivery from a filtered page comes here with its delivery just sent.
  await log.load(AFTER_SEND_REFRESH_MS);
}
