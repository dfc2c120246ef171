import type Database from 'better-sqlite3';
import {
  subscribersOf,
  type NewWebhookEvent,
  type WebhookEventType,
  type WebhookSubscription,
} from '../../domain/webhook-events.js';
import { newId } from '../../ids.js';
import type {
  AttemptRecord,
  ClaimedDelivery,
  DeliveryClaim,
  DeliveryPage,
  NewWebhook,
  StoredWebhook,
  WebhookChanges,
  WebhookDelivery,
  WebhookStore,
} from '../store.js';
import { sharedJson } from '../rows/json.js';
import {
  CLAIMED_COLUMNS,
  DELIVERY_COLUMNS,
  MAX_ERROR_CHARS,
  toClaimed,
  toDelivery,
  toWebhook,
  WEBHOOK_COLUMNS,
  type ClaimedRow,
  type DeliveryRow,
  type WebhookRow,
} from '../rows/webhook-rows.js';

/** What a write tells the outbox about its event; `details` runs only when some webhook wants the event. */
export interface WrittenEvent {
  workspaceId: string;
  type: WebhookEventType;
  modelId: string;
  at: number;
  details: () => { modelSlug: string; payload: string };
}

/**
 * The transactional outbox: record and model writes call `add` inside their own transaction, so an event is
 * committed with its write or not at all. A workspace without active webhooks costs one indexed lookup.
 */
export class SqliteOutbox {
  private readonly selectSubscriptions: Database.Statement;
  private readonly insertEvent: Database.Statement;
  private readonly insertDelivery: Database.Statement;
  private readonly listeners: (() => void)[] = [];
  private wrote = false;

  constructor(db: Database.Database) {
    this.selectSubscriptions = db.prepare('SELECT id, events, model_ids FROM webhooks WHERE workspace_id = ? AND active = 1');
    this.insertEvent = db.prepare(
      `INSERT INTO webhook_events (id, workspace_id, type, model_id, model_slug, payload, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?)`,
    );
    this.insertDelivery = db.prepare(
      `INSERT INTO webhook_deliveries (id, webhook_id, event_id, event_sequence, status, next_attempt_at, created_at, updated_at)
       VALUES (?, ?, ?, ?, 'pending', ?, ?, ?)`,
    );
  }

  /** Inside the write's transaction: stores the event and its deliveries when an active webhook wants it. */
  add(event: WrittenEvent): void {
    const rows = this.selectSubscriptions.all(event.workspaceId) as SubscriptionRow[];
    if (rows.length === 0) return;
    const webhookIds = subscribersOf(rows.map(toSubscription), event.type, event.modelId);
    if (webhookIds.length === 0) return;
    const { modelSlug, payload } = event.details();
    const { workspaceId, type, modelId, at } = event;
    this.store({ id: newId(), workspaceId, type, modelId, modelSlug, payload, createdAt: at }, webhookIds);
  }

  /** Stores the event with a pending delivery to each webhook; returns the delivery ids in the webhooks' order. */
  store(event: NewWebhookEvent, webhookIds: readonly string[]): string[] {
    const { lastInsertRowid } = this.insertEvent.run(
      event.id,
      event.workspaceId,
      event.type,
      event.modelId,
      event.modelSlug,
      event.payload,
      event.createdAt,
    );
    const deliveryIds = webhookIds.map((webhookId) => {
      const id = newId();
      this.insertDelivery.run(id, webhookId, event.id, lastInsertRowid, event.createdAt, event.createdAt, event.createdAt);
      return id;
    });
    this.wrote = true;
    return deliveryIds;
  }

  /** After a commit: wakes the listeners when the transaction wrote events. */
  committed(): void {
    if (!this.wrote) return;
    this.wrote = false;
    this.notify();
  }

  /** Wakes the listeners (the worker): deliveries are due. */
  notify(): void {
    for (const listener of this.listeners) listener();
  }

  onEventsWritten(listener: () => void): void {
    this.listeners.push(listener);
  }
}

interface SubscriptionRow {
  id: string;
  events: string;
  model_ids: string | null;
}

function toSubscription(row: SubscriptionRow): WebhookSubscription {
  return {
    id: row.id,
    events: sharedJson<string[]>(row.events),
    modelIds: row.model_ids === null ? null : sharedJson<string[]>(row.model_ids),
  };
}

const DELIVERY_FROM = 'webhook_deliveries d JOIN webhook_events e ON e.id = d.event_id';

export class SqliteWebhookStore implements WebhookStore {
  constructor(
    private readonly db: Database.Database,
    private readonly outbox: SqliteOutbox,
  ) {
    // One process uses a SQLite database: claims left by a process that died are void.
    db.prepare("UPDATE webhook_deliveries SET locked_until = NULL, claim_token = NULL WHERE status = 'pending'").run();
  }

  async list(workspaceId: string): Promise<StoredWebhook[]> {
    const rows = this.db
      .prepare(`SELECT ${WEBHOOK_COLUMNS} FROM webhooks WHERE workspace_id = ? ORDER BY created_at, id`)
      .all(workspaceId) as WebhookRow[];
    return rows.map(toWebhook);
  }

  async get(workspaceId: string, id: string): Promise<StoredWebhook | null> {
    const row = this.db
      .prepare(`SELECT ${WEBHOOK_COLUMNS} FROM webhooks WHERE workspace_id = ? AND id = ?`)
      .get(workspaceId, id) as WebhookRow | undefined;
    return row ? toWebhook(row) : null;
  }

  async create(webhook: NewWebhook): Promise<StoredWebhook> {
    this.db
      .prepare(
        `INSERT INTO webhooks (id, workspace_id, url, events, model_ids, description, active, secret, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        webhook.id,
        webhook.workspaceId,
        webhook.url,
        JSON.stringify(webhook.events),
        webhook.modelIds === null ? null : JSON.stringify(webhook.modelIds),
        webhook.description,
        webhook.active ? 1 : 0,
        webhook.secret,
        webhook.createdAt,
        webhook.createdAt,
      );
    return (await this.get(webhook.workspaceId, webhook.id))!;
  }

  async update(workspaceId: string, id: string, changes: WebhookChanges, now: number): Promise<StoredWebhook | null> {
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
    if (changes.active !== undefined) set('active', changes.active ? 1 : 0);
    sets.push('updated_at = ?');
    values.push(now);
    const result = this.db
      .prepare(`UPDATE webhooks SET ${sets.join(', ')} WHERE workspace_id = ? AND id = ?`)
      .run(...values, workspaceId, id);
    return result.changes === 0 ? null : this.get(workspaceId, id);
  }

  async delete(workspaceId: string, id: string): Promise<boolean> {
    const run = this.db.transaction(() => {
      const deleted = this.db.prepare('DELETE FROM webhooks WHERE workspace_id = ? AND id = ?').run(workspaceId, id).changes > 0;
      if (deleted) {
        this.db
          .prepare('DELETE FROM webhook_attempts WHERE delivery_id IN (SELECT id FROM webhook_deliveries WHERE webhook_id = ?)')
          .run(id);
        this.db.prepare('DELETE FROM webhook_deliveries WHERE webhook_id = ?').run(id);
      }
      return deleted;
    });
    return run.immediate();
  }

  async rotateSecret(workspaceId: string, id: string, secret: string, previousUntil: number, now: number): Promise<boolean> {
    const result = this.db
      .prepare(
        `UPDATE webhooks SET previous_secret = secret, previous_secret_until = ?, secret = ?, updated_at = ?
         WHERE workspace_id = ? AND id = ?`,
      )
      .run(previousUntil, secret, now, workspaceId, id);
    return result.changes > 0;
  }

  async deliveries(
    workspaceId: string,
    webhookId: string,
    page: DeliveryPage,
  ): Promise<{ total: number; items: WebhookDelivery[] }> {
    const where = `d.webhook_id = ? AND e.workspace_id = ? AND (? IS NULL OR d.status = ?)`;
    const parameters = [webhookId, workspaceId, page.status, page.status];
    const { total } = this.db.prepare(`SELECT count(*) AS total FROM ${DELIVERY_FROM} WHERE ${where}`).get(...parameters) as {
      total: number;
    };
    const rows = this.db
      .prepare(
        `SELECT ${DELIVERY_COLUMNS} FROM ${DELIVERY_FROM} WHERE ${where} ORDER BY d.created_at DESC, d.id DESC LIMIT ? OFFSET ?`,
      )
      .all(...parameters, page.limit, page.offset) as DeliveryRow[];
    return { total, items: rows.map(toDelivery) };
  }

  private delivery(id: string): WebhookDelivery | null {
    const row = this.db.prepare(`SELECT ${DELIVERY_COLUMNS} FROM ${DELIVERY_FROM} WHERE d.id = ?`).get(id) as
      DeliveryRow | undefined;
    return row ? toDelivery(row) : null;
  }

  async redeliver(workspaceId: string, deliveryId: string, now: number): Promise<WebhookDelivery | null> {
    const newDeliveryId = newId();
    const result = this.db
      .prepare(
        `INSERT INTO webhook_deliveries (id, webhook_id, event_id, event_sequence, status, next_attempt_at, created_at, updated_at)
         SELECT ?, d.webhook_id, d.event_id, d.event_sequence, 'pending', ?, ?, ?
         FROM ${DELIVERY_FROM} JOIN webhooks w ON w.id = d.webhook_id WHERE d.id = ? AND w.workspace_id = ?`,
      )
      .run(newDeliveryId, now, now, now, deliveryId, workspaceId);
    if (result.changes === 0) return null;
    this.outbox.notify();
    return this.delivery(newDeliveryId);
  }

  async addEventFor(webhookId: string, event: NewWebhookEvent): Promise<WebhookDelivery | null> {
    const run = this.db.transaction(() => {
      const exists = this.db
        .prepare('SELECT 1 FROM webhooks WHERE workspace_id = ? AND id = ?')
        .get(event.workspaceId, webhookId);
      return exists === undefined ? null : this.outbox.store(event, [webhookId])[0]!;
    });
    const deliveryId = run.immediate();
    if (deliveryId === null) return null;
    this.outbox.committed();
    return this.delivery(deliveryId);
  }

  async claimDue(claim: DeliveryClaim): Promise<ClaimedDelivery[]> {
    const run = this.db.transaction(() => {
      const ids = this.db
        .prepare(
          `SELECT id FROM webhook_deliveries
           WHERE status = 'pending' AND next_attempt_at <= ? AND (locked_until IS NULL OR locked_until <= ?)
           ORDER BY next_attempt_at, event_sequence LIMIT ?`,
        )
        .all(claim.now, claim.now, claim.limit) as { id: string }[];
      if (ids.length === 0) return [];
      const list = JSON.stringify(ids.map((row) => row.id));
      this.db
        .prepare('UPDATE webhook_deliveries SET locked_until = ?, claim_token = ? WHERE id IN (SELECT value FROM json_each(?))')
        .run(claim.leaseUntil, claim.token, list);
      return this.db
        .prepare(
          `SELECT ${CLAIMED_COLUMNS} FROM webhook_deliveries d
           JOIN webhooks w ON w.id = d.webhook_id JOIN webhook_events e ON e.id = d.event_id
           WHERE d.id IN (SELECT value FROM json_each(?)) ORDER BY d.next_attempt_at, d.event_sequence`,
        )
        .all(list) as ClaimedRow[];
    });
    return run.immediate().map((row) => toClaimed(row, claim.token));
  }

  async recordAttempt(attempt: AttemptRecord): Promise<boolean> {
    const run = this.db.transaction(() => {
      const row = this.db
        .prepare(
          `UPDATE webhook_deliveries SET attempts = attempts + 1, status = ?, last_status_code = ?, last_error = ?,
             next_attempt_at = ?, locked_until = NULL, claim_token = NULL, updated_at = ?
           WHERE id = ? AND claim_token = ? RETURNING attempts`,
        )
        .get(
          attempt.status,
          attempt.statusCode,
          attempt.error?.slice(0, MAX_ERROR_CHARS) ?? null,
          attempt.nextAttemptAt,
          attempt.at,
          attempt.deliveryId,
          attempt.claimToken,
        ) as { attempts: number } | undefined;
      if (!row) return false;
      this.db
        .prepare(
          `INSERT OR REPLACE INTO webhook_attempts (delivery_id, attempt, status_code, error, duration_ms, created_at)
           VALUES (?, ?, ?, ?, ?, ?)`,
        )
        .run(
          attempt.deliveryId,
          row.attempts,
          attempt.statusCode,
          attempt.error?.slice(0, MAX_ERROR_CHARS) ?? null,
          Math.round(attempt.durationMs),
          attempt.at,
        );
      return true;
    });
    return run.immediate();
  }

  async defer(deliveryIds: readonly string[], claimToken: string, until: number): Promise<void> {
    this.db
      .prepare(
        `UPDATE webhook_deliveries SET next_attempt_at = ?, locked_until = NULL, claim_token = NULL
         WHERE id IN (SELECT value FROM json_each(?)) AND claim_token = ?`,
      )
      .run(until, JSON.stringify(deliveryIds), claimToken);
  }

  async expedite(webhookId: string, now: number): Promise<void> {
    this.db
      .prepare(
        "UPDATE webhook_deliveries SET next_attempt_at = ? WHERE webhook_id = ? AND status = 'pending' AND next_attempt_at > ?",
      )
      .run(now, webhookId, now);
  }

  async nextDueAfter(now: number): Promise<number | null> {
    const row = this.db
      .prepare("SELECT min(next_attempt_at) AS due FROM webhook_deliveries WHERE status = 'pending' AND next_attempt_at > ?")
      .get(now) as { due: number | null };
    return row.due;
  }

  async prune(before: number): Promise<number> {
    const run = this.db.transaction(() => {
      const settled = "status <> 'pending' AND updated_at < ?";
      this.db
        .prepare(`DELETE FROM webhook_attempts WHERE delivery_id IN (SELECT id FROM webhook_deliveries WHERE ${settled})`)
        .run(before);
      const { changes } = this.db.prepare(`DELETE FROM webhook_deliveries WHERE ${settled}`).run(before);
      this.db
        .prepare(
          `DELETE FROM webhook_events WHERE created_at < ?
           AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event_id = webhook_events.id)`,
        )
        .run(before);
      return changes;
    });
    return run.immediate();
  }

  onEventsWritten(listener: () => void): void {
    this.outbox.onEventsWritten(listener);
  }
}
