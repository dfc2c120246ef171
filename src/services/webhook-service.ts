import { systemClock, type Clock } from '../clock.js';
import { ServiceError } from '../domain/errors.js';
import { pageBounds } from '../domain/listing.js';
import { ALL_EVENTS, isWebhookEventType, PING_EVENT, pingPayload, WEBHOOK_EVENT_TYPES } from '../domain/webhook-events.js';
import { newId } from '../ids.js';
import {
  DELIVERY_STATUSES,
  type DeliveryStatus,
  type StoredWebhook,
  type Store,
  type WebhookChanges,
  type WebhookDelivery,
} from '../store/store.js';
import { checkWebhookUrl, WebhookUrlError } from '../webhooks/address-guard.js';
import { newWebhookSecret } from '../webhooks/signing.js';
import type { Actor } from './actor.js';

export interface CreateWebhookInput {
  url: string;
  events: string[];
  modelIds?: string[] | null;
  description?: string | null;
  active?: boolean | null;
}

export interface UpdateWebhookInput {
  id: string;
  url?: string | null;
  events?: string[] | null;
  modelIds?: string[] | null;
  description?: string | null;
  active?: boolean | null;
}

export interface DeliveryListArguments {
  webhookId: string;
  limit?: number | null;
  offset?: number | null;
  status?: string | null;
}

export interface WebhookServiceOptions {
  /** Lets webhooks go to loopback and private addresses (development, tests): --webhook-allow-private. */
  allowPrivate: boolean;
}

export const MAX_WEBHOOK_URL_LENGTH = 2000;
export const MAX_WEBHOOK_DESCRIPTION_LENGTH = 500;
/** During a rotation the previous secret signs too, for this long. */
export const ROTATION_OVERLAP_MS = 24 * 60 * 60 * 1000;

function badInput(field: string, reason: string): ServiceError {
  return new ServiceError('BAD_USER_INPUT', `${field}: ${reason}`, { field });
}

function notFound(field: string, what: string): ServiceError {
  return new ServiceError('NOT_FOUND', `${field}: ${what} not found`, { field });
}

/** Webhooks of a workspace (spec/webhooks.md), managed by its owners and admins. */
export class WebhookService {
  constructor(
    private readonly store: Store,
    private readonly options: WebhookServiceOptions,
    private readonly clock: Clock = systemClock,
  ) {}

  list(workspaceId: string): Promise<StoredWebhook[]> {
    return this.store.webhooks.list(workspaceId);
  }

  get(workspaceId: string, id: string): Promise<StoredWebhook | null> {
    return this.store.webhooks.get(workspaceId, id);
  }

  async deliveries(workspaceId: string, args: DeliveryListArguments) {
    await this.require(workspaceId, args.webhookId, 'webhookId');
    const { limit, offset } = pageBounds(args);
    const status = args.status ?? null;
    if (status !== null && !(DELIVERY_STATUSES as readonly string[]).includes(status)) {
      throw badInput('status', `must be one of ${DELIVERY_STATUSES.join(', ')}, got "${status}"`);
    }
    const page = await this.store.webhooks.deliveries(workspaceId, args.webhookId, {
      limit,
      offset,
      status: status as DeliveryStatus | null,
    });
    return { total: page.total, hasMore: offset + page.items.length < page.total, items: page.items };
  }

  /** The secret is in this answer only. */
  async create(actor: Actor, input: CreateWebhookInput): Promise<{ webhook: StoredWebhook; secret: string }> {
    const url = await this.checkUrl(input.url);
    const events = checkEvents(input.events);
    const modelIds = await this.checkModelIds(actor.workspaceId, input.modelIds ?? null);
    const description = checkDescription(input.description ?? null);
    if (input.active !== undefined && input.active !== null && typeof input.active !== 'boolean') {
      throw badInput('active', 'must be true or false');
    }
    const secret = newWebhookSecret();
    const webhook = await this.store.webhooks.create({
      id: newId(),
      workspaceId: actor.workspaceId,
      url,
      events,
      modelIds,
      description,
      active: input.active ?? true,
      secret,
      createdAt: this.clock(),
    });
    return { webhook, secret };
  }

  async update(actor: Actor, input: UpdateWebhookInput): Promise<StoredWebhook> {
    await this.require(actor.workspaceId, input.id, 'id');
    const changes: WebhookChanges = {};
    if (input.url !== undefined && input.url !== null) changes.url = await this.checkUrl(input.url);
    if (input.events !== undefined && input.events !== null) changes.events = checkEvents(input.events);
    if (input.modelIds !== undefined) changes.modelIds = await this.checkModelIds(actor.workspaceId, input.modelIds);
    if (input.description !== undefined) changes.description = checkDescription(input.description);
    if (input.active !== undefined && input.active !== null) changes.active = input.active;
    const updated = await this.store.webhooks.update(actor.workspaceId, input.id, changes, this.clock());
    if (!updated) throw notFound('id', 'webhook');
    return updated;
  }

  async delete(actor: Actor, id: string): Promise<{ id: string; deleted: boolean }> {
    if (!(await this.store.webhooks.delete(actor.workspaceId, id))) throw notFound('id', 'webhook');
    return { id, deleted: true };
  }

  /** A new secret, in this answer only; the old one keeps signing too for 24 hours. */
  async rotateSecret(actor: Actor, id: string): Promise<{ webhook: StoredWebhook; secret: string }> {
    const secret = newWebhookSecret();
    const now = this.clock();
    if (!(await this.store.webhooks.rotateSecret(actor.workspaceId, id, secret, now + ROTATION_OVERLAP_MS, now))) {
      throw notFound('id', 'webhook');
    }
    return { webhook: await this.require(actor.workspaceId, id, 'id'), secret };
  }

  async redeliver(actor: Actor, deliveryId: string): Promise<WebhookDelivery> {
    const delivery = await this.store.webhooks.redeliver(actor.workspaceId, deliveryId, this.clock());
    if (!delivery) throw notFound('deliveryId', 'delivery');
    return delivery;
  }

  async ping(actor: Actor, id: string): Promise<WebhookDelivery> {
    const event = {
      id: newId(),
      workspaceId: actor.workspaceId,
      type: PING_EVENT,
      modelId: null,
      modelSlug: null,
      payload: pingPayload(id),
      createdAt: this.clock(),
    } as const;
    const delivery = await this.store.webhooks.addEventFor(id, event);
    if (!delivery) throw notFound('id', 'webhook');
    return delivery;
  }

  private async require(workspaceId: string, id: string, field: string): Promise<StoredWebhook> {
    const webhook = await this.store.webhooks.get(workspaceId, id);
    if (!webhook) throw notFound(field, 'webhook');
    return webhook;
  }

  private async checkUrl(url: unknown): Promise<string> {
    if (typeof url !== 'string' || url.trim() === '') throw badInput('url', 'must not be empty');
    const trimmed = url.trim();
    if (trimmed.length > MAX_WEBHOOK_URL_LENGTH) throw badInput('url', `must be at most ${MAX_WEBHOOK_URL_LENGTH} characters`);
    try {
      await checkWebhookUrl(trimmed, { allowPrivate: this.options.allowPrivate });
    } catch (error) {
      if (error instanceof WebhookUrlError) throw badInput('url', error.message.replace(/^url: /, ''));
      throw error;
    }
    return trimmed;
  }

  private async checkModelIds(workspaceId: string, modelIds: unknown): Promise<string[] | null> {
    if (modelIds === null || modelIds === undefined) return null;
    if (!Array.isArray(modelIds)) throw badInput('modelIds', 'must be a list of model ids');
    const known = new Set((await this.store.models.list(workspaceId)).map((model) => model.id));
    for (const id of modelIds) {
      if (typeof id !== 'string' || !known.has(id))
        throw badInput('modelIds', `no model with id "${String(id)}" in this workspace`);
    }
    return [...new Set(modelIds as string[])];
  }
}

function checkEvents(events: unknown): string[] {
  if (!Array.isArray(events) || events.length === 0) {
    throw badInput('events', `must list at least one event type: "*" or ${WEBHOOK_EVENT_TYPES.join(', ')}`);
  }
  for (const event of events) {
    if (typeof event !== 'string' || (event !== ALL_EVENTS && !isWebhookEventType(event))) {
      throw badInput('events', `unknown event type "${String(event)}"; known: "*", ${WEBHOOK_EVENT_TYPES.join(', ')}`);
    }
  }
  return [...new Set(events as string[])];
}

function checkDescription(description: unknown): string | null {
  if (description === null) return null;
  if (typeof description !== 'string') throw badInput('description', 'must be text');
  if (description.length > MAX_WEBHOOK_DESCRIPTION_LENGTH) {
    throw badInput('description', `must be at most ${MAX_WEBHOOK_DESCRIPTION_LENGTH} characters`);
  }
  return description;
}
