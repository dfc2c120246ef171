// Webhook, delivery and event rows (both stores), and what the layers above get from them.
import type { NewWebhookEvent, WebhookEvent } from '../../domain/webhook-events.js';
import type { ClaimedDelivery, DeliveryStatus, StoredWebhook, WebhookDelivery } from '../store.js';
import { fromJson, type Json } from './json.js';
import { isoTime, isoTimeOrNull, type Millis } from './time.js';

export interface WebhookRow {
  id: string;
  workspace_id: string;
  url: string;
  events: Json<string[]>;
  model_ids: Json<string[]> | null;
  description: string | null;
  active: number | boolean;
  created_at: Millis;
  updated_at: Millis;
}

/** The columns both outboxes insert an event with. */
export const EVENT_INSERT_COLUMNS = 'id, workspace_id, type, model_id, model_slug, payload, created_at';

/** An event's values, in the order of EVENT_INSERT_COLUMNS. */
export function eventValues(event: NewWebhookEvent): unknown[] {
  return [event.id, event.workspaceId, event.type, event.modelId, event.modelSlug, event.payload, event.createdAt];
}

export const WEBHOOK_COLUMNS = 'id, workspace_id, url, events, model_ids, description, active, created_at, updated_at';

export function toWebhook(row: WebhookRow): StoredWebhook {
  return {
    id: row.id,
    workspaceId: row.workspace_id,
    url: row.url,
    events: fromJson(row.events),
    modelIds: row.model_ids === null ? null : fromJson(row.model_ids),
    description: row.description,
    active: Boolean(row.active),
    createdAt: isoTime(row.created_at),
    updatedAt: isoTime(row.updated_at),
  };
}

export interface DeliveryRow {
  id: string;
  webhook_id: string;
  event_id: string;
  type: string;
  status: string;
  attempts: number;
  last_status_code: number | null;
  last_error: string | null;
  last_duration_ms: number | null;
  next_attempt_at: Millis | null;
  created_at: Millis;
  updated_at: Millis;
}

/** The columns of DeliveryRow, from `webhook_deliveries d JOIN webhook_events e` (the duration from the last attempt's row). */
export const DELIVERY_COLUMNS = `d.id, d.webhook_id, d.event_id, e.type, d.status, d.attempts, d.last_status_code, d.last_error,
  (SELECT a.duration_ms FROM webhook_attempts a WHERE a.delivery_id = d.id AND a.attempt = d.attempts) AS last_duration_ms,
  d.next_attempt_at, d.created_at, d.updated_at`;

export function toDelivery(row: DeliveryRow): WebhookDelivery {
  const status = row.status as DeliveryStatus;
  return {
    id: row.id,
    webhookId: row.webhook_id,
    eventId: row.event_id,
    eventType: row.type,
    status,
    attempts: row.attempts,
    lastStatusCode: row.last_status_code,
    lastError: row.last_error,
    duration: row.last_duration_ms,
    nextAttemptAt: status === 'pending' ? isoTimeOrNull(row.next_attempt_at) : null,
    createdAt: isoTime(row.created_at),
    updatedAt: isoTime(row.updated_at),
  };
}

export interface ClaimedRow {
  id: string;
  webhook_id: string;
  attempts: number;
  url: string;
  secret: string;
  previous_secret: string | null;
  previous_secret_until: Millis | null;
  event_id: string;
  sequence: Millis;
  workspace_id: string;
  type: string;
  model_id: string | null;
  model_slug: string | null;
  payload: string;
  event_created_at: Millis;
}

/** Selected from `claimed d JOIN webhooks w JOIN webhook_events e`. */
export const CLAIMED_COLUMNS = `d.id, d.webhook_id, d.attempts, w.url, w.secret, w.previous_secret, w.previous_secret_until,
  e.id AS event_id, e.sequence, e.workspace_id, e.type, e.model_id, e.model_slug, e.payload, e.created_at AS event_created_at`;

export function toClaimed(row: ClaimedRow, claimToken: string): ClaimedDelivery {
  const event: WebhookEvent = {
    id: row.event_id,
    sequence: Number(row.sequence),
    workspaceId: row.workspace_id,
    type: row.type as WebhookEvent['type'],
    modelId: row.model_id,
    modelSlug: row.model_slug,
    payload: row.payload,
    createdAt: Number(row.event_created_at),
  };
  return claimedDelivery({ id: row.id, webhookId: row.webhook_id, attempts: row.attempts }, row, event, claimToken);
}

/** The webhook's columns a claimed delivery is sent with. */
export type EndpointRow = Pick<ClaimedRow, 'url' | 'secret' | 'previous_secret' | 'previous_secret_until'>;

export function claimedDelivery(
  delivery: { id: string; webhookId: string; attempts: number },
  endpoint: EndpointRow,
  event: WebhookEvent,
  claimToken: string,
): ClaimedDelivery {
  return {
    ...delivery,
    url: endpoint.url,
    claimToken,
    secret: endpoint.secret,
    previousSecret: endpoint.previous_secret,
    previousSecretUntil: endpoint.previous_secret_until === null ? null : Number(endpoint.previous_secret_until),
    event,
  };
}

/** At most this many characters of an attempt's error are kept. */
export const MAX_ERROR_CHARS = 500;
