// Settings → Webhooks: the endpoints told about every change in this workspace. List, create (the signing secret
// is shown once); each webhook's own page (page-webhooks-detail.ts) edits, pauses, rotates, deletes, pings and
// shows its delivery log. Owners and admins only (the server decides; others are told so here).
import type { Webhook } from '../shared/webhooks.js';
import { ApiError, gql } from './api.js';
import { h, listTable, replaceChildren } from './dom.js';
import { listModels } from './models-cache.js';
import type { PageContext } from './page.js';
import { secretPanel } from './page-webhooks-secret.js';
import { eventsText, WEBHOOK_FIELDS, webhookForm } from './page-webhooks-form.js';
import { mayChangeWorkspaceSettings } from './types.js';
import { alertBox, announce, errorArea, pageHeader } from './ui.js';
import { formatDateTime } from './values.js';

export function mayManageWebhooks(ctx: PageContext): boolean {
  return mayChangeWorkspaceSettings(ctx.workspace.role);
}

/** The page for an editor or viewer (or when the server refuses): who may manage webhooks. */
export function webhooksForbidden(ctx: PageContext, title: string): void {
  replaceChildren(
    ctx.main,
    pageHeader(title),
    alertBox(`Only owners and admins of a workspace manage its webhooks; your role here is ${ctx.workspace.role}.`),
  );
}

export function webhookHref(id: string): string {
  return `#/settings/webhooks/${encodeURIComponent(id)}`;
}

function webhookTable(webhooks: readonly Webhook[]): HTMLElement {
  if (webhooks.length === 0) return h('p', { class: 'empty' }, 'No webhooks yet.');
  return listTable(
    'table webhooks',
    'Webhooks of this workspace',
    ['Endpoint URL', 'Events', 'Description', 'Status', 'Created'],
    webhooks.map((webhook) =>
      h(
        'tr',
        { class: webhook.active ? null : 'paused' },
        h('th', { scope: 'row' }, h('a', { href: webhookHref(webhook.id), class: 'webhook-url' }, webhook.url)),
        h(
          'td',
          null,
          eventsText(webhook.events),
          webhook.modelIds
            ? h('span', { class: 'muted' }, ` (${webhook.modelIds.length} model${webhook.modelIds.length === 1 ? '' : 's'})`)
            : null,
        ),
        h('td', null, webhook.description ?? ''),
        h('td', null, webhook.active ? 'Active' : 'Paused'),
        h('td', null, formatDateTime(webhook.createdAt)),
      ),
    ),
  );
}

export async function renderWebhooks(ctx: PageContext): Promise<void> {
  ctx.setTitle('Webhooks');
  if (!mayManageWebhooks(ctx)) {
    webhooksForbidden(ctx, 'Webhooks');
    return;
  }
  const errors = errorArea();
  const secretArea = h('div', { class: 'secret-area' });
  const listArea = h('div');

  const loadList = async () => {
    const data = await gql<{ webhook: { list: Webhook[] } }>(`query AdminWebhooks { webhook { list { ${WEBHOOK_FIELDS} } } }`);
    if (ctx.isCurrent()) listArea.replaceChildren(webhookTable(data.webhook.list));
  };

  let models;
  try {
    [models] = await Promise.all([listModels(), loadList()]);
  } catch (error) {
    if (error instanceof ApiError && error.code === 'FORBIDDEN') {
      webhooksForbidden(ctx, 'Webhooks');
      return;
    }
    throw error;
  }
  if (!ctx.isCurrent()) return;

  const form = webhookForm({
    models,
    submitLabel: 'Create webhook',
    titleId: 'create-webhook-title',
    onSubmit: async (values) => {
      const data = await gql<{ webhook: { create: { webhook: Webhook; secret: string } } }>(
        `mutation CreateWebhook($input: CreateWebhookInput!) { webhook { create(input: $input) { webhook { ${WEBHOOK_FIELDS} } secret } } }`,
        { input: values },
      );
      const { webhook, secret } = data.webhook.create;
      form.reset();
      const panel = secretPanel({
        title: `Webhook to ${webhook.url} created`,
        secret,
        rotated: false,
        onDone: () => {
          secretArea.replaceChildren();
          form.focus();
        },
      });
      secretArea.replaceChildren(panel);
      panel.focus();
      announce(`Webhook created. Copy its signing secret now.`);
      await loadList();
    },
    errors,
    failedTitle: 'The webhook was not created.',
  });

  replaceChildren(
    ctx.main,
    pageHeader('Webhooks'),
    h(
      'p',
      { class: 'muted' },
      'Each change in this workspace (records, imports, models) is POSTed to the endpoints below, signed, and retried for about a day until the endpoint answers 2xx.',
    ),
    errors.element,
    secretArea,
    h(
      'section',
      { class: 'webhook-create', 'aria-labelledby': 'create-webhook-title' },
      h('h2', { id: 'create-webhook-title' }, 'Add a webhook'),
      form.element,
    ),
    h('h2', null, 'Endpoints'),
    listArea,
  );
}
