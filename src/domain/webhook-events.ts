import type { ModelDefinition } from './fields.js';
import { assetPath, type AssetAccess, type AssetType, type FocalPoint } from '../shared/media.js';

// Webhook events (spec/webhooks.md): the types, which webhooks an event goes to, and the body a receiver gets.
// Pure: the stores write events with these rules inside the write's own transaction, the worker renders the body.

export const WEBHOOK_EVENT_TYPES = [
  'record.created',
  'record.updated',
  'record.deleted',
  'records.imported',
  'record.published',
  'record.unpublished',
  'schedule.failed',
  'asset.created',
  'asset.updated',
  'asset.deleted',
  'model.created',
  'model.updated',
  'model.deleted',
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];
/** Sent by the `ping` mutation to one webhook only; not subscribable. */
export const PING_EVENT = 'webhook.ping';
/** In a webhook's `events`: every event type. */
export const ALL_EVENTS = '*';

export function isWebhookEventType(value: string): value is WebhookEventType {
  return (WEBHOOK_EVENT_TYPES as readonly string[]).includes(value);
}

/** What decides whether an event goes to a webhook. */
export interface WebhookSubscription {
  id: string;
  events: readonly string[];
  /** null: every model. */
  modelIds: readonly string[] | null;
}

/** `modelIds` narrows record events only: model, schedule and asset events go to every webhook subscribed to their type. */
export function isSubscribed(subscription: WebhookSubscription, type: WebhookEventType, modelId: string): boolean {
  if (!subscription.events.includes(type) && !subscription.events.includes(ALL_EVENTS)) return false;
  // A schedule's records may be of several models, an asset is of none: their events go to every webhook subscribed
  // to their type.
  if (subscription.modelIds === null || type.startsWith('model.') || type.startsWith('schedule.') || type.startsWith('asset.')) {
    return true;
  }
  return subscription.modelIds.includes(modelId);
}

/** The ids of the subscriptions the event goes to. */
export function subscribersOf(subscriptions: readonly WebhookSubscription[], type: WebhookEventType, modelId: string): string[] {
  const ids: string[] = [];
  for (const subscription of subscriptions) if (isSubscribed(subscription, type, modelId)) ids.push(subscription.id);
  return ids;
}

/**
 * An event as written with its write: `payload` is the JSON text of an object whose members complete the body's
 * `data` (`{"record":…}`, `{"recordIds":…,"importedCount":…}`, `{"model":…}`), made only when a webhook wants it.
 */
export interface NewWebhookEvent {
  id: string;
  workspaceId: string;
  type: WebhookEventType | typeof PING_EVENT;
  modelId: string | null;
  modelSlug: string | null;
  payload: string;
  /** Epoch milliseconds. */
  createdAt: number;
}

/** A stored event: its `sequence` increases with every event of the workspace. */
export interface WebhookEvent extends NewWebhookEvent {
  sequence: number;
}

/** `{"record":{"id","data","createdAt","updatedAt"}}` from the record's stored JSON text, without parsing it again. */
export function recordPayload(id: string, dataText: string, createdAt: string, updatedAt: string): string {
  return `{"record":{"id":${JSON.stringify(id)},"data":${dataText},"createdAt":"${createdAt}","updatedAt":"${updatedAt}"}}`;
}

export function deletedRecordPayload(id: string): string {
  return `{"record":{"id":${JSON.stringify(id)}}}`;
}

/** `{"schedule":{…}}`: what a failed schedule was to do, and why it did nothing. */
export function schedulePayload(schedule: {
  id: string;
  action: string;
  at: number;
  ids: readonly string[];
  error: string | null;
}): string {
  const { id, action, ids, error } = schedule;
  return JSON.stringify({ schedule: { id, action, at: new Date(schedule.at).toISOString(), ids, error } });
}

/** What an asset event shows of an asset (never its signing key); times in epoch milliseconds. */
export interface AssetEventFields {
  id: string;
  workspaceId: string;
  filename: string;
  mimeType: string;
  type: AssetType;
  size: number;
  width: number | null;
  height: number | null;
  blurhash: string | null;
  sha256: string;
  alt: Record<string, string> | null;
  tags: readonly string[];
  focalPoint: FocalPoint | null;
  access: AssetAccess;
  createdAt: number;
  updatedAt: number;
}

/**
 * What every answer about an asset shows of it, in the admin API's order: the webhook payloads here and the answers of
 * the upload routes (services/asset-json.ts). `url` is where it is served.
 */
export function assetFields(asset: AssetEventFields, url: string) {
  const { id, filename, mimeType, type, size, width, height, blurhash, sha256, alt, tags, focalPoint, access } = asset;
  return {
    id,
    filename,
    mimeType,
    type,
    size,
    width,
    height,
    blurhash,
    sha256,
    alt,
    tags,
    focalPoint,
    access,
    url,
    createdAt: new Date(asset.createdAt).toISOString(),
  };
}

/** `{"asset":{…}}`: the asset as the admin API shows it (`url` the path it is served at, without the origin). */
export function assetPayload(asset: AssetEventFields): string {
  const url = assetPath(asset.workspaceId, asset.id, asset.filename);
  return JSON.stringify({ asset: { ...assetFields(asset, url), updatedAt: new Date(asset.updatedAt).toISOString() } });
}

export function deletedAssetPayload(id: string): string {
  return JSON.stringify({ asset: { id } });
}

/** `recordIds`: the created ids, in row order. */
export function importPayload(recordIds: readonly string[]): string {
  return JSON.stringify({ recordIds, importedCount: recordIds.length });
}

/** The model as the admin API shows it (not its internal counters). */
export function modelPayload(model: ModelDefinition): string {
  const { recordCount: _count, writeVersion: _version, hasLargeRecords: _large, workspaceId: _workspace, ...shown } = model;
  return JSON.stringify({ model: shown });
}

export function deletedModelPayload(id: string, slug: string): string {
  return JSON.stringify({ model: { id, slug } });
}

export function pingPayload(webhookId: string): string {
  return JSON.stringify({ webhookId });
}

/**
 * The body a receiver gets: `{ type, timestamp, data: { workspaceId, modelId, modelSlug, sequence, …payload } }`
 * (a ping has no model). The same event always renders to the same text.
 */
export function renderEventBody(event: WebhookEvent): string {
  let head = `"workspaceId":${JSON.stringify(event.workspaceId)}`;
  if (event.modelId !== null) head += `,"modelId":${JSON.stringify(event.modelId)}`;
  if (event.modelSlug !== null) head += `,"modelSlug":${JSON.stringify(event.modelSlug)}`;
  head += `,"sequence":${event.sequence}`;
  const rest = event.payload.trim().slice(1, -1).trim();
  const data = rest === '' ? `{${head}}` : `{${head},${rest}}`;
  const timestamp = new Date(event.createdAt).toISOString();
  return `{"type":${JSON.stringify(event.type)},"timestamp":"${timestamp}","data":${data}}`;
}
