import { newId } from '../../ids.js';
import type { DeliveryPage, NewWebhook, StoredWebhook, WebhookChanges, WebhookDelivery } from '../store.js';
import {
  DELIVERY_COLUMNS,
  toDelivery,
  toWebhook,
  WEBHOOK_COLUMNS,
  type DeliveryRow,
  type WebhookRow,
} from '../rows/webhook-rows.js';
import type { StepRunner } from './runner.js';
import { all, one, run, type Steps } from './steps.js';

/**
 * A paused webhook (active: false) sends nothing: its pending deliveries wait with no next attempt (HOLD_PENDING),
 * and making it active again makes them due (RELEASE_HELD).
 */
const HOLD_PENDING = "UPDATE webhook_deliveries SET next_attempt_at = NULL WHERE webhook_id = ? AND status = 'pending'";
const RELEASE_HELD =
  "UPDATE webhook_deliveries SET next_attempt_at = ? WHERE webhook_id = ? AND status = 'pending' AND next_attempt_at IS NULL";

/**
 * Newest first; in one millisecond, by event: a materialised delivery's id is made when the worker makes its row,
 * after the ids of deliveries (pings, redeliveries) made since its write. The id last, so that pages never overlap.
 */
const DELIVERY_ORDER = 'd.created_at DESC, d.event_sequence DESC, d.id DESC';

/** What a dialect does at two moments of a webhook's update, in its transaction (its cursor is its own). */
export interface WebhookUpdateHooks {
  /** Before its filter changes: the events written so far go out under the old one; answers the deliveries made. */
  materialise(): Steps<number>;
  /** Made active again: it gets the events written from now on. */
  restartCursor(): Steps<void>;
}

/**
 * The webhook CRUD half of both webhook stores, written once: webhooks, their delivery log, redeliveries. The outbox
 * and the claims (cursors, leases, in-process claims) stay each database's own.
 */
export class CoreWebhookCrud {
  constructor(
    private readonly db: StepRunner,
    /** The join of a delivery to its event, by the key the database indexes (SQLite: the sequence, its rowid). */
    private readonly deliveryFrom: string,
  ) {}

  list(workspaceId: string): Promise<StoredWebhook[]> {
    return this.db.read(this.listSteps(workspaceId));
  }

  private *listSteps(workspaceId: string): Steps<StoredWebhook[]> {
    const rows = yield* all<WebhookRow>(
      `SELECT ${WEBHOOK_COLUMNS} FROM webhooks WHERE workspace_id = ? ORDER BY created_at, id`,
      workspaceId,
    );
    return rows.map(toWebhook);
  }

  get(workspaceId: string, id: string): Promise<StoredWebhook | null> {
    return this.db.read(this.getSteps(workspaceId, id));
  }

  private *getSteps(workspaceId: string, id: string): Steps<StoredWebhook | null> {
    const row = yield* one<WebhookRow>(
      `SELECT ${WEBHOOK_COLUMNS} FROM webhooks WHERE workspace_id = ? AND id = ?`,
      workspaceId,
      id,
    );
    return row ? toWebhook(row) : null;
  }

  /** The webhook and its cursor (`startCursor`, the dialect's) in one transaction. */
  create(webhook: NewWebhook, startCursor: Steps<void>): Promise<StoredWebhook> {
    return this.db.transaction(this.createSteps(webhook, startCursor));
  }

  private *createSteps(webhook: NewWebhook, startCursor: Steps<void>): Steps<StoredWebhook> {
    const rows = yield* all<WebhookRow>(
      `INSERT INTO webhooks (id, workspace_id, url, events, model_ids, description, active, secret, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING ${WEBHOOK_COLUMNS}`,
      webhook.id,
      webhook.workspaceId,
      webhook.url,
      JSON.stringify(webhook.events),
      webhook.modelIds === null ? null : JSON.stringify(webhook.modelIds),
      webhook.description,
      this.db.sql.bool(webhook.active),
      webhook.secret,
      webhook.createdAt,
      webhook.createdAt,
    );
    yield* startCursor;
    return toWebhook(rows[0]!);
  }

  /** The webhook as changed (null: no such webhook) and how many deliveries the change made or made due. */
  update(
    workspaceId: string,
    id: string,
    changes: WebhookChanges,
    now: number,
    hooks: WebhookUpdateHooks,
  ): Promise<{ webhook: StoredWebhook; made: number } | null> {
    return this.db.transaction(this.updateSteps(workspaceId, id, changes, now, hooks));
  }

  private *updateSteps(
    workspaceId: string,
    id: string,
    changes: WebhookChanges,
    now: number,
    hooks: WebhookUpdateHooks,
  ): Steps<{ webhook: StoredWebhook; made: number } | null> {
    const current = yield* one<{ active: number | boolean }>(
      `SELECT active FROM webhooks WHERE workspace_id = ? AND id = ?${this.db.sql.lockRows('webhooks')}`,
      workspaceId,
      id,
    );
    if (!current) return null;
    const wasActive = Boolean(current.active);
    let made = 0;
    if (filterChanges(changes) && wasActive) made += yield* hooks.materialise();
    const { sets, values } = this.changeSets(changes, now);
    const rows = yield* all<WebhookRow>(
      `UPDATE webhooks SET ${sets.join(', ')} WHERE workspace_id = ? AND id = ? RETURNING ${WEBHOOK_COLUMNS}`,
      ...values,
      workspaceId,
      id,
    );
    if (changes.active === false && wasActive) yield* run(HOLD_PENDING, id);
    // Made active again: the events written while it was not are not its own; those it held go out now.
    if (changes.active === true && !wasActive) {
      yield* hooks.restartCursor();
      made += yield* run(RELEASE_HELD, now, id);
    }
    return { webhook: toWebhook(rows[0]!), made };
  }

  private changeSets(changes: WebhookChanges, now: number): { sets: string[]; values: unknown[] } {
    const sets: string[] = [];
    const values: unknown[] = [];
    const set = (column: string, value: unknown) => {
      sets.push(`${column} = ?`);
      values.push(value);
    };
    if (changes.url !== undefined) set('url', changes.url);
    if (changes.events !== undefined) set('events', JSON.stringify(changes.events));
    if (changes.modelIds !== undefined) set('model_ids', changes.modelIds === null ? null : JSON.stringify(changes.modelIds));
    if (changes.description !== undefined) set('description', changes.description);
    if (changes.active !== undefined) set('active', this.db.sql.bool(changes.active));
    set('updated_at', now);
    return { sets, values };
  }

  /** The webhook with its deliveries, their attempts and its cursor; false when there is no such webhook. */
  delete(workspaceId: string, id: string): Promise<boolean> {
    return this.db.transaction(deleteSteps(workspaceId, id));
  }

  async rotateSecret(workspaceId: string, id: string, secret: string, previousUntil: number, now: number): Promise<boolean> {
    const changed = await this.db.read(
      run(
        `UPDATE webhooks SET previous_secret = secret, previous_secret_until = ?, secret = ?, updated_at = ?
         WHERE workspace_id = ? AND id = ?`,
        previousUntil,
        secret,
        now,
        workspaceId,
        id,
      ),
    );
    return changed > 0;
  }

  /** A page of the webhook's delivery log (the dialect first makes the deliveries of events past its cursor). */
  deliveries(workspaceId: string, webhookId: string, page: DeliveryPage): Promise<{ total: number; items: WebhookDelivery[] }> {
    return this.db.read(this.deliveriesSteps(workspaceId, webhookId, page));
  }

  private *deliveriesSteps(
    workspaceId: string,
    webhookId: string,
    page: DeliveryPage,
  ): Steps<{ total: number; items: WebhookDelivery[] }> {
    const where = 'd.webhook_id = ? AND e.workspace_id = ? AND (CAST(? AS TEXT) IS NULL OR d.status = ?)';
    const parameters = [webhookId, workspaceId, page.status, page.status];
    const counted = yield* one<{ total: number | string }>(
      `SELECT count(*) AS total FROM ${this.deliveryFrom} WHERE ${where}`,
      ...parameters,
    );
    const rows = yield* all<DeliveryRow>(
      `SELECT ${DELIVERY_COLUMNS} FROM ${this.deliveryFrom} WHERE ${where} ORDER BY ${DELIVERY_ORDER} LIMIT ? OFFSET ?`,
      ...parameters,
      page.limit,
      page.offset,
    );
    return { total: Number(counted!.total), items: rows.map(toDelivery) };
  }

  delivery(id: string): Promise<WebhookDelivery | null> {
    return this.db.read(this.deliverySteps(id));
  }

  private *deliverySteps(id: string): Steps<WebhookDelivery | null> {
    const row = yield* one<DeliveryRow>(`SELECT ${DELIVERY_COLUMNS} FROM ${this.deliveryFrom} WHERE d.id = ?`, id);
    return row ? toDelivery(row) : null;
  }

  /** A new pending delivery of a delivery's event, due now; answers its id (null: no such delivery here). */
  async redeliver(workspaceId: string, deliveryId: string, now: number): Promise<string | null> {
    const newDeliveryId = newId();
    const made = await this.db.read(
      run(
        `INSERT INTO webhook_deliveries (id, webhook_id, event_id, event_sequence, status, next_attempt_at, created_at, updated_at)
         SELECT ?, d.webhook_id, d.event_id, d.event_sequence, 'pending', ?, ?, ?
         FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id WHERE d.id = ? AND w.workspace_id = ?`,
        newDeliveryId,
        now,
        now,
        now,
        deliveryId,
        workspaceId,
      ),
    );
    return made === 0 ? null : newDeliveryId;
  }
}

/**
 * The webhook store methods that are the same on both databases but for a moment of their own: a read of the log
 * first makes the deliveries of the events still past the webhook's cursor (`catchUp`), and a redelivery wakes the
 * worker (`redelivered`).
 */
export abstract class CoreWebhookMethods {
  protected abstract readonly crud: CoreWebhookCrud;
  protected abstract catchUp(webhookId: string): Promise<void>;
  protected abstract redelivered(): void;

  list(workspaceId: string): Promise<StoredWebhook[]> {
    return this.crud.list(workspaceId);
  }

  get(workspaceId: string, id: string): Promise<StoredWebhook | null> {
    return this.crud.get(workspaceId, id);
  }

  rotateSecret(workspaceId: string, id: string, secret: string, previousUntil: number, now: number): Promise<boolean> {
    return this.crud.rotateSecret(workspaceId, id, secret, previousUntil, now);
  }

  async deliveries(
    workspaceId: string,
    webhookId: string,
    page: DeliveryPage,
  ): Promise<{ total: number; items: WebhookDelivery[] }> {
    // The log shows every event the webhook gets, those still past its cursor (a paused webhook's) too: made now.
    await this.catchUp(webhookId);
    return this.crud.deliveries(workspaceId, webhookId, page);
  }

  async redeliver(workspaceId: string, deliveryId: string, now: number): Promise<WebhookDelivery | null> {
    const newDeliveryId = await this.crud.redeliver(workspaceId, deliveryId, now);
    if (newDeliveryId === null) return null;
    this.redelivered();
    return this.crud.delivery(newDeliveryId);
  }
}

/** Whether a change alters which events the webhook gets. */
export function filterChanges(changes: WebhookChanges): boolean {
  return changes.events !== undefined || changes.modelIds !== undefined || changes.active !== undefined;
}

/** Whether the workspace has that webhook (in a transaction, before a ping is stored for it). */
export function* webhookExists(workspaceId: string, id: string): Steps<boolean> {
  return (yield* one('SELECT 1 FROM webhooks WHERE workspace_id = ? AND id = ?', workspaceId, id)) !== undefined;
}

function* deleteSteps(workspaceId: string, id: string): Steps<boolean> {
  if ((yield* run('DELETE FROM webhooks WHERE workspace_id = ? AND id = ?', workspaceId, id)) === 0) return false;
  yield* run('DELETE FROM webhook_attempts WHERE delivery_id IN (SELECT id FROM webhook_deliveries WHERE webhook_id = ?)', id);
  yield* run('DELETE FROM webhook_deliveries WHERE webhook_id = ?', id);
  yield* run('DELETE FROM webhook_cursors WHERE webhook_id = ?', id);
  return true;
}
