import { PausedWebhooks } from '../query/paused-webhooks.js';
import type { Pool, PoolClient } from 'pg';
import {
  isSubscribed,
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
  HeldDelivery,
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
import { madeAt, MATERIALISE_BATCH, planDeliveries, type WebhookCursor } from '../query/delivery-plan.js';

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

/**
 * The first key of the outbox's advisory lock (the second is the schema's hash, so that schemas of one database do not
 * share it). Writers hold it shared from before their event takes its sequence until they commit; the materialiser
 * takes it exclusively for a moment to learn the bound below which no event can still commit (OutboxBound).
 */
export const OUTBOX_LOCK = 0x43530002;
export const OUTBOX_LOCK_KEY = `${OUTBOX_LOCK}, hashtext(current_schema())`;

/**
 * One statement: the shared outbox lock (in a materialised CTE, so it is held before the INSERT takes the identity's
 * next value for the row) and the event. No delivery rows: the worker makes them from the webhooks' cursors.
 */
const INSERT_EVENT = `WITH writer AS MATERIALIZED (SELECT pg_advisory_xact_lock_shared(${OUTBOX_LOCK_KEY}) AS locked)
  INSERT INTO webhook_events (id, workspace_id, type, model_id, model_slug, payload, created_at)
  SELECT $1, $2, $3, $4, coalesce($5, (SELECT slug FROM models WHERE id = $4)), $6, $7 FROM writer RETURNING sequence`;

/** A ping: its event and its one delivery (no cursor takes a ping). */
const INSERT_PING = `WITH writer AS MATERIALIZED (SELECT pg_advisory_xact_lock_shared(${OUTBOX_LOCK_KEY}) AS locked),
  event AS (
    INSERT INTO webhook_events (id, workspace_id, type, model_id, model_slug, payload, created_at)
    SELECT $1, $2, $3, $4, $5, $6, $7 FROM writer RETURNING sequence
  )
  INSERT INTO webhook_deliveries (id, webhook_id, event_id, event_sequence, status, next_attempt_at, created_at, updated_at)
  SELECT $8, $9, $1, event.sequence, 'pending', coalesce($10, $7), $7, $7 FROM event`;

/**
 * The transactional outbox: record and model writes call `add` with their transaction's client, so an event is
 * committed with its write or not at all; after the commit they call `committed` to wake this process's worker
 * (other processes' workers find the events when they poll).
 */
export class PostgresOutbox {
  private readonly listeners: (() => void)[] = [];
  /** Webhooks this process paused: their cursors stay where they are while the pause lasts. */
  readonly paused = new PausedWebhooks();

  /**
   * In the write's transaction: stores the event when some active webhook wants it. True when the worker is to be
   * woken after the commit: some webhook that wants it is not paused by this process (a receiver that is down costs a
   * write no claim; the worker wakes at the pause's end).
   */
  async add(client: PoolClient, event: WrittenEvent, subscriptions: readonly WebhookSubscription[] | null): Promise<boolean> {
    if (subscriptions === null || subscriptions.length === 0) return false;
    const subscribers = subscriptions.filter((subscription) => isSubscribed(subscription, event.type, event.modelId));
    if (subscribers.length === 0) return false;
    const { workspaceId, type, modelId, modelSlug, at } = event;
    await client.query(INSERT_EVENT, [newId(), workspaceId, type, modelId, modelSlug, event.payload(), at]);
    return this.wakesFor(subscribers);
  }

  /** Whether an event stored for these webhooks wakes the worker: one of them is not paused by this process. */
  wakesFor(subscribers: readonly { id: string }[]): boolean {
    return this.paused.anyRunning(subscribers, Date.now());
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

/** Stores a ping's event with its pending delivery to the webhook; returns the delivery's id. */
async function storePing(client: Queryable, event: NewWebhookEvent, webhookId: string, due: number | null): Promise<string> {
  const deliveryId = newId();
  await client.query(INSERT_PING, [
    event.id,
    event.workspaceId,
    event.type,
    event.modelId,
    event.modelSlug,
    event.payload,
    event.createdAt,
    deliveryId,
    webhookId,
    due,
  ]);
  return deliveryId;
}

/**
 * The bound below which every event is committed or rolled back: identity values are taken before commit, so a
 * transaction holding sequence 7 may commit after one holding 8 was seen. Writers take the outbox lock shared before
 * their sequence (INSERT_EVENT); whoever holds it exclusively knows that every sequence taken so far belongs to a
 * transaction that has ended, so max(sequence) read then is a bound, and every later sequence is above it. One round
 * trip; the lock is held only until max is read, and at most `waitMs` is waited for it (writers queue behind a waiting
 * exclusive request): a long transaction (an import) delays materialisation, never a write for long. null: not now.
 */
async function readBound(pool: Pool, waitMs: number): Promise<number | null> {
  const client = await pool.connect();
  try {
    const results = (await client.query(
      `BEGIN; SET LOCAL lock_timeout = ${Math.max(1, Math.round(waitMs))};
       SELECT pg_advisory_xact_lock(${OUTBOX_LOCK_KEY});
       SELECT coalesce(max(sequence), 0) AS bound FROM webhook_events; COMMIT`,
    )) as unknown as { rows: { bound?: string }[] }[];
    return toNumber(results[3]!.rows[0]!.bound!);
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    if ((error as { code?: string }).code === '55P03') return null;
    throw error;
  } finally {
    client.release();
  }
}

interface CursorRow {
  id: string;
  last_sequence: string;
  last_made: string;
  workspace_id: string;
  events: string[];
  model_ids: string[] | null;
}

interface EventRow {
  sequence: string;
  id: string;
  workspace_id: string;
  type: string;
  model_id: string | null;
  created_at: string;
}

const DEADLOCK = '40P01';
const FOREIGN_KEY_VIOLATION = '23503';

/** `run`, run again while it fails with one of `codes` (PostgreSQL error codes), at most `tries` times in all. */
async function retrying<T>(run: () => Promise<T>, options: { codes: readonly string[]; tries: number }): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await run();
    } catch (error) {
      if (!options.codes.includes((error as { code?: string }).code ?? '') || attempt >= options.tries) throw error;
    }
  }
}

/** How long a materialiser pass waits for the outbox lock (OutboxBound), and an admin change of a webhook. */
const BOUND_WAIT_MS = 50;
/** A materialiser pass reads the bound again at most this often (readBound). */
const BOUND_EVERY_MS = 25;
const ADMIN_BOUND_WAIT_MS = 5_000;

const DELIVERY_FROM = 'webhook_deliveries d JOIN webhook_events e ON e.id = d.event_id';
/** As on SQLite (sqlite/webhooks.ts DELIVERY_ORDER): newest first, in one millisecond by event, then by id. */
const DELIVERY_ORDER = 'd.created_at DESC, d.event_sequence DESC, d.id DESC';

export class PostgresWebhookStore implements WebhookStore {
  readonly sharedByProcesses = true;
  /** The last bound read (readBound) and when: materialiser passes closer together than BOUND_EVERY_MS share one. */
  private bound = 0;
  private boundAt = -Infinity;
  private boundTimer: NodeJS.Timeout | null = null;

  constructor(
    private readonly pool: Pool,
    private readonly outbox: PostgresOutbox,
  ) {}

  /**
   * Several processes may share the database: a claim is only released by its lease running out. Webhooks without a
   * cursor (copied from another database, which copies no events, so every event here came after them) start after
   * their last delivery, or at the beginning.
   */
  async releaseClaims(): Promise<void> {
    await this.pool.query(
      `INSERT INTO webhook_cursors (webhook_id, last_sequence)
       SELECT w.id, coalesce((SELECT max(d.event_sequence) FROM webhook_deliveries d WHERE d.webhook_id = w.id), 0) FROM webhooks w ON CONFLICT (webhook_id) DO NOTHING`,
    );
  }

  /**
   * The bound for a materialiser pass: read again at most every BOUND_EVERY_MS (each read holds the writers back for
   * as long as the writes in flight take); a pass that used an older one comes back when a new one can be read.
   */
  private async currentBound(): Promise<number> {
    // Real time, not the claim's (a test's clock may jump).
    const now = performance.now();
    if (now - this.boundAt >= BOUND_EVERY_MS) {
      const bound = await readBound(this.pool, BOUND_WAIT_MS);
      if (bound !== null) {
        this.bound = Math.max(this.bound, bound);
        this.boundAt = now;
        return this.bound;
      }
    }
    if (!this.boundTimer) {
      this.boundTimer = setTimeout(() => {
        this.boundTimer = null;
        this.outbox.notify();
      }, BOUND_EVERY_MS);
      this.boundTimer.unref();
    }
    return this.bound;
  }

  /** A bound for an admin change or a read of the log: waited for longer; the last one read when even that fails. */
  private async adminBound(waitMs: number): Promise<number> {
    const bound = await readBound(this.pool, waitMs);
    if (bound !== null) this.bound = Math.max(this.bound, bound);
    return this.bound;
  }

  /**
   * In the client's transaction: makes the delivery rows of at most `maxEvents` events up to `bound` past the cursors
   * of the active webhooks (`only`: of that one, paused or not, waiting for its cursor's lock), and moves the cursors.
   * Each cursor row is locked (SKIP LOCKED): one process at a time materialises a webhook. A webhook paused by this
   * process is left where it is; once its pause is over, one event at a time until it answers (the probe).
   * Returns the rows made and whether every event up to `bound` was read.
   */
  private async materialiseOn(
    client: PoolClient,
    now: number,
    bound: number,
    maxEvents: number,
    only: string | null,
  ): Promise<{ made: number; complete: boolean }> {
    const paused = only === null ? this.outbox.paused.pausedNow(now) : [];
    const { rows } = await client.query<{ cursors: CursorRow[] | null; events: EventRow[] | null }>(
      `WITH c AS (
         SELECT c.webhook_id AS id, c.last_sequence, c.last_made, w.workspace_id, w.events, w.model_ids
         FROM webhook_cursors c JOIN webhooks w ON w.id = c.webhook_id
         WHERE w.active AND c.last_sequence < $1 AND NOT (c.webhook_id = ANY($2::text[])) AND ($4::text IS NULL OR c.webhook_id = $4)
         FOR UPDATE OF c ${only === null ? 'SKIP LOCKED' : ''}
       ), e AS (
         SELECT sequence, id, workspace_id, type, model_id, created_at FROM webhook_events
         WHERE sequence > (SELECT min(last_sequence) FROM c) AND sequence <= $1 ORDER BY sequence LIMIT $3
       )
       SELECT (SELECT json_agg(c) FROM c) AS cursors, (SELECT json_agg(e ORDER BY e.sequence) FROM e) AS events`,
      [bound, paused, maxEvents, only],
    );
    const cursorRows = rows[0]!.cursors ?? [];
    const events = (rows[0]!.events ?? []).map((row) => ({
      sequence: Number(row.sequence),
      workspaceId: row.workspace_id,
      type: row.type,
      modelId: row.model_id,
      row,
    }));
    if (cursorRows.length === 0) return { made: 0, complete: true };
    const cursors: WebhookCursor[] = cursorRows.map((row) => ({
      subscription: { id: row.id, events: row.events, modelIds: row.model_ids },
      workspaceId: row.workspace_id,
      lastSequence: Number(row.last_sequence),
      // (The webhooks paused now were left out above: `$2`.)
      limit: only === null ? this.outbox.paused.cursorLimit(row.id, now) : Infinity,
    }));
    const complete = events.length < maxEvents;
    const plan = planDeliveries(cursors, events, complete ? bound : events[events.length - 1]!.sequence);
    if (plan.moved.size === 0) return { made: 0, complete };
    const deliveries = plan.deliveries;
    // Another process's pass that read its clock after this one's may have taken the cursor's lock first.
    const made = new Map(cursorRows.map((row) => [row.id, madeAt(now, Number(row.last_made))]));
    await client.query(
      `WITH made AS (
         INSERT INTO webhook_deliveries (id, webhook_id, event_id, event_sequence, status, next_attempt_at, created_at, updated_at)
         SELECT d.id, d.webhook_id, d.event_id, d.event_sequence, 'pending', d.due, d.created_at, d.created_at
         FROM unnest($1::text[], $2::text[], $3::text[], $4::bigint[], $5::bigint[], $6::bigint[])
           AS d (id, webhook_id, event_id, event_sequence, due, created_at)
       )
       UPDATE webhook_cursors c SET last_sequence = m.last_sequence, last_made = m.last_made
       FROM unnest($7::text[], $8::bigint[], $9::bigint[]) AS m (webhook_id, last_sequence, last_made) WHERE c.webhook_id = m.webhook_id`,
      [
        deliveries.map(() => newId()),
        deliveries.map((delivery) => delivery.webhookId),
        deliveries.map((delivery) => delivery.event.row.id),
        deliveries.map((delivery) => delivery.event.sequence),
        deliveries.map((delivery) => this.outbox.paused.dueOf(delivery.webhookId, made.get(delivery.webhookId)!)),
        deliveries.map((delivery) => delivery.event.row.created_at),
        [...plan.moved.keys()],
        [...plan.moved.values()],
        [...plan.moved.keys()].map((webhookId) => made.get(webhookId)!),
      ],
    );
    return { made: deliveries.length, complete };
  }

  /** One materialiser pass (one transaction) before a claim; when it left events past the cursors, the worker comes back. */
  private async materialise(now: number): Promise<void> {
    // One read first: when no running webhook is behind the last event (a receiver that is down, its webhook paused),
    // no bound and no transaction.
    const { rows } = await this.pool.query<{ id: string }>(
      `SELECT c.webhook_id AS id FROM webhook_cursors c JOIN webhooks w ON w.id = c.webhook_id
       WHERE w.active AND c.last_sequence < (SELECT coalesce(max(sequence), 0) FROM webhook_events)`,
    );
    if (!this.outbox.paused.anyRunning(rows, now)) return;
    const bound = await this.currentBound();
    const { complete } = await inTransaction(this.pool, (client) =>
      this.materialiseOn(client, now, bound, MATERIALISE_BATCH, null),
    );
    if (!complete) setImmediate(() => this.outbox.notify());
  }

  /** In the client's transaction: the webhook's cursor up to `bound` (before its filter changes, before a read of its log). */
  private async materialiseAll(client: PoolClient, now: number, bound: number, webhookId: string): Promise<number> {
    let made = 0;
    for (;;) {
      const pass = await this.materialiseOn(client, now, bound, MATERIALISE_BATCH, webhookId);
      made += pass.made;
      if (pass.complete) return made;
    }
  }

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
    // It gets the events written from now on (those of writes that saw it): its cursor starts at the bound.
    const bound = await this.adminBound(ADMIN_BOUND_WAIT_MS);
    return inTransaction(this.pool, async (client) => {
      const stored = await this.insertWebhook(client, webhook);
      await client.query(
        `INSERT INTO webhook_cursors (webhook_id, last_sequence)
         VALUES ($1, greatest($2::bigint, (SELECT coalesce(max(sequence), 0) FROM webhook_events)))`,
        [webhook.id, bound],
      );
      return stored;
    });
  }

  private async insertWebhook(client: PoolClient, webhook: NewWebhook): Promise<StoredWebhook> {
    const { rows } = await client.query<WebhookRow>(
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
    const filterChanges = changes.events !== undefined || changes.modelIds !== undefined || changes.active !== undefined;
    const bound = filterChanges ? await this.adminBound(ADMIN_BOUND_WAIT_MS) : 0;
    let made = 0;
    const updated = await inTransaction(this.pool, async (client) => {
      const current = await client.query<{ active: boolean }>(
        'SELECT active FROM webhooks WHERE workspace_id = $1 AND id = $2 FOR UPDATE',
        [workspaceId, id],
      );
      if (current.rows.length === 0) return null;
      const wasActive = current.rows[0]!.active;
      // The events written so far go out under the filter they were written with: materialised before it changes.
      if (filterChanges && wasActive) made = await this.materialiseAll(client, now, bound, id);
      const { rows } = await client.query<WebhookRow>(
        `UPDATE webhooks SET ${sets.join(', ')} WHERE workspace_id = $${values.push(workspaceId)} AND id = $${values.push(id)}
         RETURNING ${WEBHOOK_COLUMNS}`,
        values,
      );
      if (changes.active === false && wasActive)
        await client.query("UPDATE webhook_deliveries SET next_attempt_at = NULL WHERE webhook_id = $1 AND status = 'pending'", [
          id,
        ]);
      // Made active again: the events written while it was not are not its own; those it held go out now.
      if (changes.active === true && !wasActive) {
        await client.query(
          `INSERT INTO webhook_cursors (webhook_id, last_sequence)
           VALUES ($1, greatest($2::bigint, (SELECT coalesce(max(sequence), 0) FROM webhook_events)))
           ON CONFLICT (webhook_id) DO UPDATE SET last_sequence = excluded.last_sequence`,
          [id, bound],
        );
        const released = await client.query(
          `UPDATE webhook_deliveries SET next_attempt_at = $1
           WHERE webhook_id = $2 AND status = 'pending' AND next_attempt_at IS NULL`,
          [now, id],
        );
        made += released.rowCount ?? 0;
      }
      return rows[0] ? toWebhook(rows[0]) : null;
    });
    if (made > 0) this.outbox.notify();
    return updated;
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
      await client.query('DELETE FROM webhook_cursors WHERE webhook_id = $1', [id]);
      this.outbox.paused.forget(id);
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
    // The log shows every event the webhook gets, those still past its cursor (a paused webhook's) too: made now.
    const { rows: behind } = await this.pool.query(
      `SELECT 1 FROM webhook_cursors c JOIN webhooks w ON w.id = c.webhook_id
       WHERE c.webhook_id = $1 AND w.active AND c.last_sequence < (SELECT coalesce(max(sequence), 0) FROM webhook_events)`,
      [webhookId],
    );
    if (behind.length > 0) {
      const bound = await this.adminBound(BOUND_WAIT_MS);
      const made = await inTransaction(this.pool, (client) => this.materialiseAll(client, Date.now(), bound, webhookId));
      if (made > 0) this.outbox.notify();
    }
    const where = 'd.webhook_id = $1 AND e.workspace_id = $2 AND ($3::text IS NULL OR d.status = $3)';
    const parameters = [webhookId, workspaceId, page.status];
    const [counted, listed] = await Promise.all([
      this.pool.query<{ total: string }>(`SELECT count(*) AS total FROM ${DELIVERY_FROM} WHERE ${where}`, parameters),
      this.pool.query<DeliveryRow>(
        `SELECT ${DELIVERY_COLUMNS} FROM ${DELIVERY_FROM} WHERE ${where} ORDER BY ${DELIVERY_ORDER} LIMIT $4 OFFSET $5`,
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
      return rows.length === 0 ? null : storePing(client, event, webhookId, this.outbox.paused.dueAt(webhookId, event.createdAt));
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
  /**
   * Claims only deliveries of the webhooks this worker holds (holdWebhooks, a statement of its own before the claim):
   * with FOR UPDATE SKIP LOCKED alone, two processes' claims of one webhook would interleave, each skipping rows the
   * other has locked for a moment, and start its deliveries out of event order and beyond its in-flight limit.
   */
  async claimDue(claim: DeliveryClaim): Promise<ClaimedDelivery[]> {
    await this.materialise(claim.now);
    const held = await this.holdWebhooks(claim);
    if (held.length === 0) return [];
    const { rows } = await this.pool.query<ClaimedRow>(
      `WITH due AS (
         SELECT id FROM webhook_deliveries
         WHERE status = 'pending' AND next_attempt_at <= $1 AND (locked_until IS NULL OR locked_until <= $1)
           AND webhook_id = ANY($5::text[])
         ORDER BY next_attempt_at, event_sequence LIMIT $2 FOR UPDATE SKIP LOCKED
       ), claimed AS (
         UPDATE webhook_deliveries d SET locked_until = $3, claim_token = $4 FROM due WHERE d.id = due.id
         RETURNING d.id, d.webhook_id, d.event_id, d.attempts, d.event_sequence, d.next_attempt_at
       )
       SELECT ${CLAIMED_COLUMNS} FROM claimed d
       JOIN webhooks w ON w.id = d.webhook_id JOIN webhook_events e ON e.id = d.event_id
       ORDER BY d.next_attempt_at, d.event_sequence`,
      [claim.now, claim.limit, claim.leaseUntil, claim.token, held],
    );
    return rows.map((row) => toClaimed(row, claim.token));
  }

  /**
   * One statement: the holder takes, or keeps until `leaseUntil`, the webhooks that have deliveries due and free (and
   * keeps those it has in hand), and lets go of its others. A lease is taken only when nobody holds it or the holder's
   * lease has run out (a process that died: its claims ran out no later than its lease). An INSERT ... ON CONFLICT
   * waits for a holder changing the lease at that moment and checks the lease as that holder left it, so two
   * processes never both hold one webhook. Returns the webhooks held.
   */
  private async holdWebhooks(claim: DeliveryClaim): Promise<string[]> {
    const sql = `WITH wanted AS (
         SELECT w.id FROM webhooks w
         WHERE w.id = ANY($4::text[]) OR EXISTS (
           SELECT 1 FROM webhook_deliveries d WHERE d.webhook_id = w.id AND d.status = 'pending'
             AND d.next_attempt_at <= $3 AND (d.locked_until IS NULL OR d.locked_until <= $3))
       ), let_go AS (
         DELETE FROM webhook_leases l WHERE l.holder = $1 AND NOT EXISTS (SELECT 1 FROM wanted WHERE wanted.id = l.webhook_id)
       )
       INSERT INTO webhook_leases AS l (webhook_id, holder, held_until) SELECT id, $1, $2 FROM wanted ORDER BY id
       ON CONFLICT (webhook_id) DO UPDATE SET holder = excluded.holder, held_until = excluded.held_until
         WHERE l.holder = excluded.holder OR l.held_until <= $3
       RETURNING l.webhook_id`;
    const parameters = [claim.holder, claim.leaseUntil, claim.now, claim.inHand];
    // Two processes taking several leases in one statement can deadlock, and a webhook deleted since the statement
    // began fails the lease's foreign key: try again (it is no longer wanted then).
    const { rows } = await retrying(() => this.pool.query<{ webhook_id: string }>(sql, parameters), {
      codes: [DEADLOCK, FOREIGN_KEY_VIOLATION],
      tries: 3,
    });
    return rows.map((row) => row.webhook_id);
  }

  async releaseHold(holder: string, unattempted: readonly HeldDelivery[]): Promise<void> {
    await inTransaction(this.pool, async (client) => {
      await client.query(
        `UPDATE webhook_deliveries d SET locked_until = NULL, claim_token = NULL
         FROM unnest($1::text[], $2::text[]) AS u (id, claim_token) WHERE d.id = u.id AND d.claim_token = u.claim_token`,
        [unattempted.map((delivery) => delivery.id), unattempted.map((delivery) => delivery.claimToken)],
      );
      await client.query('DELETE FROM webhook_leases WHERE holder = $1', [holder]);
    });
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
           -- A paused webhook's retry waits for it to be made active again (update).
           next_attempt_at = CASE WHEN (SELECT w.active FROM webhooks w WHERE w.id = d.webhook_id) THEN a.next_attempt_at END,
           last_error = a.error, locked_until = NULL, claim_token = NULL, updated_at = a.at
         FROM attempt a WHERE d.id = a.delivery_id AND d.claim_token = a.claim_token
         RETURNING d.id, d.attempts, a.status_code, a.error, a.duration_ms, a.at
       ), logged AS (
         INSERT INTO webhook_attempts (delivery_id, attempt, status_code, error, duration_ms, created_at)
         SELECT id, attempts, status_code, error, duration_ms, at FROM moved
         ON CONFLICT (delivery_id, attempt) DO NOTHING
       )
       SELECT id FROM moved`;
    // Two statements that lock several deliveries (another process's expedite) can deadlock; one try more.
    const result = await retrying(() => this.pool.query<{ id: string }>(sql, parameters), { codes: [DEADLOCK], tries: 2 });
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
    // Another process's statement over the same deliveries (an expedite, a record) can deadlock with it; one try more.
    await retrying(() => this.pool.query(sql, parameters), { codes: [DEADLOCK], tries: 2 });
    this.outbox.paused.pause(webhookId, until);
  }

  async expedite(webhookId: string, now: number): Promise<void> {
    this.outbox.paused.resume(webhookId, now);
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
    // Or the end of a pause: then the probe is materialised.
    return this.outbox.paused.nextWake(rows[0]!.due === null ? null : toNumber(rows[0]!.due), now);
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
         AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event_id = e.id)
         AND e.sequence <= coalesce((SELECT min(c.last_sequence) FROM webhook_cursors c JOIN webhooks w ON w.id = c.webhook_id
                                     WHERE w.active), (SELECT max(sequence) FROM webhook_events))`,
        [before],
      );
      return result.rowCount ?? 0;
    });
  }

  onEventsWritten(listener: () => void): void {
    this.outbox.onEventsWritten(listener);
  }
}
