import { PausedWebhooks } from '../query/paused-webhooks.js';
import type { Pool, PoolClient } from 'pg';
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
import { inTransaction, toNumber, type Queryable } from './sql.js';

/**
 * A column (`webhook_subscriptions`) that a write's statement returns alongside what it returns already: the
 * workspace's active webhooks (null when there are none), so that a workspace without webhooks costs no round
 * trip more. `workspace` is the SQL of the workspace id.
 */
export function subscriptionsColumn(workspace: string): string {
  return `(SELECT json_agg(json_build_object('id', w.id, 'events', w.events, 'modelIds', w.model_ids))
    FROM webhooks w WHERE w.workspace_id = ${workspace} AND w.active) AS webhook_subscriptions`;
}

export interface WithSubscriptions {
  webhook_subscriptions: WebhookSubscription[] | null;
}

/** What a write tells the outbox about its event; `payload` is made only when some webhook wants the event. */
export interface WrittenEvent {
  workspaceId: string;
  type: WebhookEventType;
  modelId: string;
  /** null: the model's slug as it is in the transaction. */
  modelSlug: string | null;
  at: number;
  payload: () => string;
}

const INSERT_EVENT = `WITH event AS (
    INSERT INTO webhook_events (id, workspace_id, type, model_id, model_slug, payload, created_at)
    VALUES ($1, $2, $3, $4, coalesce($5, (SELECT slug FROM models WHERE id = $4)), $6, $7) RETURNING sequence
  )
  INSERT INTO webhook_deliveries (id, webhook_id, event_id, event_sequence, status, next_attempt_at, created_at, updated_at)
  SELECT d.id, d.webhook_id, $1, event.sequence, 'pending', coalesce(d.due, $7), $7, $7
  FROM event, unnest($8::text[], $9::text[], $10::bigint[]) AS d (id, webhook_id, due)`;

/**
 * The transactional outbox: record and model writes call `add` with their transaction's client, so an event is
 * committed with its write or not at all; after the commit they call `committed` to wake this process's worker
 * (other processes' workers find the events when they poll).
 */
export class PostgresOutbox {
  private readonly listeners: (() => void)[] = [];
  /** Webhooks this process paused: their new deliveries are stored due when the pause ends. */
  private readonly paused = new PausedWebhooks();

  pause(webhookId: string, until: number): void {
    this.paused.pause(webhookId, until);
  }

  resume(webhookId: string): void {
    this.paused.resume(webhookId);
  }

  /** For each webhook, when its new delivery is due: null (at once) or its pause's end. */
  dueTimes(webhookIds: readonly string[], createdAt: number): (number | null)[] {
    return webhookIds.map((webhookId) => this.paused.dueAt(webhookId, createdAt));
  }

  /** In the write's transaction; true when an event was stored. */
  async add(client: PoolClient, event: WrittenEvent, subscriptions: readonly WebhookSubscription[] | null): Promise<boolean> {
    if (subscriptions === null || subscriptions.length === 0) return false;
    const webhookIds = subscribersOf(subscriptions, event.type, event.modelId);
    if (webhookIds.length === 0) return false;
    const { workspaceId, type, modelId, modelSlug, at } = event;
    await storeEvent(
      client,
      { id: newId(), workspaceId, type, modelId, modelSlug, payload: event.payload(), createdAt: at },
      webhookIds,
      this.dueTimes(webhookIds, at),
    );
    return true;
  }

  /** The workspace's active webhooks, for writes whose statements do not return them (model writes). */
  async subscriptions(client: PoolClient, workspaceId: string): Promise<WebhookSubscription[] | null> {
    const { rows } = await client.query<WithSubscriptions>(`SELECT ${subscriptionsColumn('$1')}`, [workspaceId]);
    return rows[0]!.webhook_subscriptions;
  }

  /** After the commit of a write: wakes the listeners when it stored an event. */
  committed(wrote: boolean): void {
    if (wrote) this.notify();
  }

  notify(): void {
    for (const listener of this.listeners) listener();
  }

  onEventsWritten(listener: () => void): void {
    this.listeners.push(listener);
  }
}

/**
 * Stores the event with a pending delivery to each webhook, due at once or at the time given for it (a paused
 * webhook's); returns the delivery ids in the webhooks' order.
 */
async function storeEvent(
  client: Queryable,
  event: NewWebhookEvent,
  webhookIds: readonly string[],
  dueTimes: readonly (number | null)[] = webhookIds.map(() => null),
): Promise<string[]> {
  const deliveryIds = webhookIds.map(() => newId());
  await client.query(INSERT_EVENT, [
    event.id,
    event.workspaceId,
    event.type,
    event.modelId,
    event.modelSlug,
    event.payload,
    event.createdAt,
    deliveryIds,
    webhookIds,
    dueTimes,
  ]);
  return deliveryIds;
}

const DELIVERY_FROM = 'webhook_deliveries d JOIN webhook_events e ON e.id = d.event_id';

export class PostgresWebhookStore implements WebhookStore {
  readonly sharedByProcesses = true;

  constructor(
    private readonly pool: Pool,
    private readonly outbox: PostgresOutbox,
  ) {}

  /** Several processes may share the database: a claim is only released by its lease running out. */
  async releaseClaims(): Promise<void> {}

  async list(workspaceId: string): Promise<StoredWebhook[]> {
    const { rows } = await this.pool.query<WebhookRow>(
      `SELECT ${WEBHOOK_COLUMNS} FROM webhooks WHERE workspace_id = $1 ORDER BY created_at, id`,
      [workspaceId],
    );
    return rows.map(toWebhook);
  }

  async get(workspaceId: string, id: string): Promise<StoredWebhook | null> {
    const { rows } = await this.pool.query<WebhookRow>(
      `SELECT ${WEBHOOK_COLUMNS} FROM webhooks WHERE workspace_id = $1 AND id = $2`,
      [workspaceId, id],
    );
    return rows[0] ? toWebhook(rows[0]) : null;
  }

  async create(webhook: NewWebhook): Promise<StoredWebhook> {
    const { rows } = await this.pool.query<WebhookRow>(
      `INSERT INTO webhooks (id, workspace_id, url, events, model_ids, description, active, secret, created_at, updated_at)
       VALUES ($1, $2, $3, $4::jsonb, $5::jsonb, $6, $7, $8, $9, $9) RETURNING ${WEBHOOK_COLUMNS}`,
      [
        webhook.id,
        webhook.workspaceId,
        webhook.url,
        JSON.stringify(webhook.events),
        webhook.modelIds === null ? null : JSON.stringify(webhook.modelIds),
        webhook.description,
        webhook.active,
        webhook.secret,
        webhook.createdAt,
      ],
    );
    return toWebhook(rows[0]!);
  }

  async update(workspaceId: string, id: string, changes: WebhookChanges, now: number): Promise<StoredWebhook | null> {
    const sets: string[] = [];
    const values: unknown[] = [];
    const set = (column: string, value: unknown, cast = '') => sets.push(`${column} = $${values.push(value)}${cast}`);
    if (changes.url !== undefined) set('url', changes.url);
    if (changes.events !== undefined) set('events', JSON.stringify(changes.events), '::jsonb');
    if (changes.modelIds !== undefined)
      set('model_ids', changes.modelIds === null ? null : JSON.stringify(changes.modelIds), '::jsonb');
    if (changes.description !== undefined) set('description', changes.description);
    if (changes.active !== undefined) set('active', changes.active);
    set('updated_at', now);
    const { rows } = await this.pool.query<WebhookRow>(
      `UPDATE webhooks SET ${sets.join(', ')} WHERE workspace_id = $${values.push(workspaceId)} AND id = $${values.push(id)}
       RETURNING ${WEBHOOK_COLUMNS}`,
      values,
    );
    return rows[0] ? toWebhook(rows[0]) : null;
  }

  async delete(workspaceId: string, id: string): Promise<boolean> {
    return inTransaction(this.pool, async (client) => {
      const result = await client.query('DELETE FROM webhooks WHERE workspace_id = $1 AND id = $2', [workspaceId, id]);
      if ((result.rowCount ?? 0) === 0) return false;
      await client.query(
        'DELETE FROM webhook_attempts WHERE delivery_id IN (SELECT id FROM webhook_deliveries WHERE webhook_id = $1)',
        [id],
      );
      await client.query('DELETE FROM webhook_deliveries WHERE webhook_id = $1', [id]);
      return true;
    });
  }

  async rotateSecret(workspaceId: string, id: string, secret: string, previousUntil: number, now: number): Promise<boolean> {
    const result = await this.pool.query(
      `UPDATE webhooks SET previous_secret = secret, previous_secret_until = $1, secret = $2, updated_at = $3
       WHERE workspace_id = $4 AND id = $5`,
      [previousUntil, secret, now, workspaceId, id],
    );
    return (result.rowCount ?? 0) > 0;
  }

  async deliveries(
    workspaceId: string,
    webhookId: string,
    page: DeliveryPage,
  ): Promise<{ total: number; items: WebhookDelivery[] }> {
    const where = 'd.webhook_id = $1 AND e.workspace_id = $2 AND ($3::text IS NULL OR d.status = $3)';
    const parameters = [webhookId, workspaceId, page.status];
    const [counted, listed] = await Promise.all([
      this.pool.query<{ total: string }>(`SELECT count(*) AS total FROM ${DELIVERY_FROM} WHERE ${where}`, parameters),
      this.pool.query<DeliveryRow>(
        `SELECT ${DELIVERY_COLUMNS} FROM ${DELIVERY_FROM} WHERE ${where} ORDER BY d.created_at DESC, d.id DESC LIMIT $4 OFFSET $5`,
        [...parameters, page.limit, page.offset],
      ),
    ]);
    return { total: toNumber(counted.rows[0]!.total), items: listed.rows.map(toDelivery) };
  }

  private async delivery(id: string): Promise<WebhookDelivery | null> {
    const { rows } = await this.pool.query<DeliveryRow>(`SELECT ${DELIVERY_COLUMNS} FROM ${DELIVERY_FROM} WHERE d.id = $1`, [id]);
    return rows[0] ? toDelivery(rows[0]) : null;
  }

  async redeliver(workspaceId: string, deliveryId: string, now: number): Promise<WebhookDelivery | null> {
    const newDeliveryId = newId();
    const result = await this.pool.query(
      `INSERT INTO webhook_deliveries (id, webhook_id, event_id, event_sequence, status, next_attempt_at, created_at, updated_at)
       SELECT $1, d.webhook_id, d.event_id, d.event_sequence, 'pending', $2, $2, $2
       FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id WHERE d.id = $3 AND w.workspace_id = $4`,
      [newDeliveryId, now, deliveryId, workspaceId],
    );
    if ((result.rowCount ?? 0) === 0) return null;
    this.outbox.notify();
    return this.delivery(newDeliveryId);
  }

  async addEventFor(webhookId: string, event: NewWebhookEvent): Promise<WebhookDelivery | null> {
    const deliveryId = await inTransaction(this.pool, async (client) => {
      const { rows } = await client.query('SELECT 1 FROM webhooks WHERE workspace_id = $1 AND id = $2', [
        event.workspaceId,
        webhookId,
      ]);
      return rows.length === 0
        ? null
        : (await storeEvent(client, event, [webhookId], this.outbox.dueTimes([webhookId], event.createdAt)))[0]!;
    });
    if (deliveryId === null) return null;
    this.outbox.notify();
    return this.delivery(deliveryId);
  }

  /**
   * One statement: the due deliveries, row-locked with SKIP LOCKED so that processes claiming at once take
   * different ones, leased until `leaseUntil` (a process that dies leaves its lease to run out, then another
   * takes them), and returned with their webhook and event.
   */
  async claimDue(claim: DeliveryClaim): Promise<ClaimedDelivery[]> {
    const { rows } = await this.pool.query<ClaimedRow>(
      `WITH due AS (
         SELECT id FROM webhook_deliveries
         WHERE status = 'pending' AND next_attempt_at <= $1 AND (locked_until IS NULL OR locked_until <= $1)
         ORDER BY next_attempt_at, event_sequence LIMIT $2 FOR UPDATE SKIP LOCKED
       ), claimed AS (
         UPDATE webhook_deliveries d SET locked_until = $3, claim_token = $4 FROM due WHERE d.id = due.id
         RETURNING d.id, d.webhook_id, d.event_id, d.attempts, d.event_sequence, d.next_attempt_at
       )
       SELECT ${CLAIMED_COLUMNS} FROM claimed d
       JOIN webhooks w ON w.id = d.webhook_id JOIN webhook_events e ON e.id = d.event_id
       ORDER BY d.next_attempt_at, d.event_sequence`,
      [claim.now, claim.limit, claim.leaseUntil, claim.token],
    );
    return rows.map((row) => toClaimed(row, claim.token));
  }

  /** One statement for the batch: each delivery moves on only while its claim is held (`claim_token`). */
  async recordAttempts(attempts: readonly AttemptRecord[]): Promise<boolean[]> {
    if (attempts.length === 0) return [];
    const column = <T>(value: (attempt: AttemptRecord) => T): T[] => attempts.map(value);
    const parameters = [
      column((attempt) => attempt.deliveryId),
      column((attempt) => attempt.claimToken),
      column((attempt) => attempt.status),
      column((attempt) => attempt.statusCode),
      column((attempt) => attempt.error?.slice(0, MAX_ERROR_CHARS) ?? null),
      column((attempt) => attempt.nextAttemptAt),
      column((attempt) => attempt.at),
      column((attempt) => Math.round(attempt.durationMs)),
    ];
    const sql = `WITH attempt AS (
         SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::int[], $5::text[], $6::bigint[], $7::bigint[], $8::int[])
           AS a (delivery_id, claim_token, status, status_code, error, next_attempt_at, at, duration_ms)
       ), moved AS (
         UPDATE webhook_deliveries d SET attempts = d.attempts + 1, status = a.status, last_status_code = a.status_code,
           last_error = a.error, next_attempt_at = a.next_attempt_at, locked_until = NULL, claim_token = NULL, updated_at = a.at
         FROM attempt a WHERE d.id = a.delivery_id AND d.claim_token = a.claim_token
         RETURNING d.id, d.attempts, a.status_code, a.error, a.duration_ms, a.at
       ), logged AS (
         INSERT INTO webhook_attempts (delivery_id, attempt, status_code, error, duration_ms, created_at)
         SELECT id, attempts, status_code, error, duration_ms, at FROM moved
         ON CONFLICT (delivery_id, attempt) DO NOTHING
       )
       SELECT id FROM moved`;
    let result;
    try {
      result = await this.pool.query<{ id: string }>(sql, parameters);
    } catch (error) {
      // Two statements that lock several deliveries (another process's expedite) can deadlock; one try more.
      if ((error as { code?: string }).code !== '40P01') throw error;
      result = await this.pool.query<{ id: string }>(sql, parameters);
    }
    const recorded = new Set(result.rows.map((row) => row.id));
    return attempts.map((attempt) => recorded.has(attempt.deliveryId));
  }

  /**
   * One UPDATE: the webhook's pending deliveries due before `until` that no live claim holds, and those `released` by
   * this claim, are due at `until` and free. A delivery another process holds keeps its claim (its attempt's record
   * sets its next attempt). The released ones that were not moved (due later already) are freed too.
   */
  async putOff(webhookId: string, until: number, released: readonly string[], claimToken: string, now: number): Promise<void> {
    const sql = `UPDATE webhook_deliveries SET next_attempt_at = greatest(next_attempt_at, $2), locked_until = NULL, claim_token = NULL
       WHERE webhook_id = $1 AND status = 'pending'
         AND ((next_attempt_at < $2 AND (locked_until IS NULL OR locked_until <= $3)) OR (id = ANY($4::text[]) AND claim_token = $5))`;
    const parameters = [webhookId, until, now, released, claimToken];
    try {
      await this.pool.query(sql, parameters);
    } catch (error) {
      // Another process's statement over the same deliveries (an expedite, a record) can deadlock with it; one try more.
      if ((error as { code?: string }).code !== '40P01') throw error;
      await this.pool.query(sql, parameters);
    }
    this.outbox.pause(webhookId, until);
  }

  async expedite(webhookId: string, now: number): Promise<void> {
    this.outbox.resume(webhookId);
    await this.pool.query(
      "UPDATE webhook_deliveries SET next_attempt_at = $1 WHERE webhook_id = $2 AND status = 'pending' AND next_attempt_at > $1",
      [now, webhookId],
    );
  }

  async nextDueAfter(now: number): Promise<number | null> {
    const { rows } = await this.pool.query<{ due: string | null }>(
      "SELECT min(next_attempt_at) AS due FROM webhook_deliveries WHERE status = 'pending' AND next_attempt_at > $1",
      [now],
    );
    return rows[0]!.due === null ? null : toNumber(rows[0]!.due);
  }

  async prune(before: number): Promise<number> {
    return inTransaction(this.pool, async (client) => {
      const settled = "status <> 'pending' AND updated_at < $1";
      await client.query(
        `DELETE FROM webhook_attempts WHERE delivery_id IN (SELECT id FROM webhook_deliveries WHERE ${settled})`,
        [before],
      );
      const result = await client.query(`DELETE FROM webhook_deliveries WHERE ${settled}`, [before]);
      await client.query(
        `DELETE FROM webhook_events e WHERE e.created_at < $1
         AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event_id = e.id)`,
        [before],
      );
      return result.rowCount ?? 0;
    });
  }

  onEventsWritten(listener: () => void): void {
    this.outbox.onEventsWritten(listener);
  }
}
