// The webhook page's calls to the API: the webhook (and the models its form offers), its delivery log, and what
// its buttons do (ping, redeliver, pause or resume, rotate the secret, delete, save the settings).
import type { Webhook, WebhookSettings } from '../shared/webhooks.js';
import { ApiError, gql } from './api.js';
import { listModels } from './models-cache.js';
import { WEBHOOK_FIELDS } from './page-webhooks-form.js';
import { PAGE_SIZE, type DeliveryList, type LogView } from './webhook-detail-state.js';
import type { ModelDefinition } from './types.js';

const DELIVERY_FIELDS =
  'id eventId eventType status attempts lastStatusCode lastError duration nextAttemptAt createdAt updatedAt';

/** The webhook (null when there is none) and the workspace's models; 'forbidden' when the role may not see it. */
export async function loadWebhook(id: string): Promise<{ webhook: Webhook | null; models: ModelDefinition[] } | 'forbidden'> {
  try {
    const [data, models] = await Promise.all([
      gql<{ webhook: { get: Webhook | null } }>(
        `query AdminWebhook($id: ID!) { webhook { get(id: $id) { ${WEBHOOK_FIELDS} } } }`,
        { id },
      ),
      listModels(),
    ]);
    return { webhook: data.webhook.get, models };
  } catch (error) {
    if (error instanceof ApiError && error.code === 'FORBIDDEN') return 'forbidden';
    throw error;
  }
}

export async function loadDeliveries(id: string, view: LogView): Promise<DeliveryList> {
  const data = await gql<{ webhook: { deliveries: DeliveryList } }>(
    `query AdminWebhookDeliveries($id: ID!, $limit: Int, $offset: Int, $status: String) {
        webhook { deliveries(webhookId: $id, limit: $limit, offset: $offset, status: $status) { total hasMore items { ${DELIVERY_FIELDS} } } }
      }`,
    { id, limit: PAGE_SIZE, offset: view.offset, status: view.status },
  );
  return data.webhook.deliveries;
}

export async function redeliverCall(deliveryId: string): Promise<void> {
  await gql(`mutation RedeliverWebhook($id: ID!) { webhook { redeliver(deliveryId: $id) { id } } }`, { id: deliveryId });
}

export async function pingCall(id: string): Promise<void> {
  await gql(`mutation PingWebhook($id: ID!) { webhook { ping(id: $id) { id } } }`, { id });
}

export async function setActiveCall(id: string, active: boolean): Promise<void> {
  await gql(`mutation SetWebhookActive($input: UpdateWebhookInput!) { webhook { update(input: $input) { id active } } }`, {
    input: { id, active },
  });
}

/** Makes a new signing secret; answers it (shown once). */
export async function rotateSecretCall(id: string): Promise<string> {
  const data = await gql<{ webhook: { rotateSecret: { secret: string } } }>(
    `mutation RotateWebhookSecret($id: ID!) { webhook { rotateSecret(id: $id) { webhook { id } secret } } }`,
    { id },
  );
  return data.webhook.rotateSecret.secret;
}

export async function deleteWebhookCall(id: string): Promise<void> {
  await gql(`mutation DeleteWebhook($id: ID!) { webhook { delete(id: $id) { id deleted } } }`, { id });
}

export async function updateWebhookCall(id: string, values: WebhookSettings): Promise<void> {
  await gql(`mutation UpdateWebhook($input: UpdateWebhookInput!) { webhook { update(input: $input) { ${WEBHOOK_FIELDS} } } }`, {
    input: { id, ...values },
  });
}
