import { PausedWebhooks } from '../query/paused-webhooks.js';
import type Database from 'better-sqlite3';
import {
  isSubscribed,
  type NewWebhookEvent,
  type WebhookEvent,
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
import { sharedJson } from '../rows/json.js';
import { madeAt, MATERIALISE_BATCH, planDeliveries, type WebhookCursor } from '../query/delivery-plan.js';
import type { WriteGroup } from './write-group.js';
import {
  CLAIMED_COLUMNS,
  DELIVERY_COLUMNS,
  MAX_ERROR_CHARS,
  claimedDelivery,
  toClaimed,
  toDelivery,
  toWebhook,
  WEBHOOK_COLUMNS,
  type ClaimedRow,
  type EndpointRow,
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
 * committed with its write or not at all. A write stores its event only (one row); the worker makes the delivery rows
 * from the webhooks' cursors (SqliteWebhookStore.materialise). Each workspace's active webhooks are kept here once
 * read, so a write of a workspace without webhooks costs no query but `PRAGMA data_version` (which tells whether
 * another connection committed since; this process's own webhook changes call forgetSubscriptions).
 */
export class SqliteOutbox {
  private readonly selectSubscriptions: Database.Statement;
  private readonly selectDataVersion: Database.Statement;
  private readonly insertEvent: Database.Statement;
  private readonly insertDelivery: Database.Statement;
  private readonly listeners: (() => void)[] = [];
  private readonly subscriptions = new Map<string, WebhookSubscription[]>();
  private dataVersion = -1;
  private wrote = false;
  /** Paused webhooks: their cursors stay where they are while the pause lasts (query/paused-webhooks.ts). */
  readonly paused = new PausedWebhooks();

  constructor(db: Database.Database) {
    this.selectSubscriptions = db.prepare('SELECT id, events, model_ids FROM webhooks WHERE workspace_id = ? AND active = 1');
    this.selectDataVersion = db.prepare('PRAGMA data_version').pluck();
    this.insertEvent = db.prepare(
      `INSERT INTO webhook_events (id, workspace_id, type, model_id, model_slug, payload, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?)`,
    );
    this.insertDelivery = db.prepare(
      `INSERT INTO webhook_deliveries (id, webhook_id, event_id, event_sequence, status, next_attempt_at, created_at, updated_at)
       VALUES (?, ?, ?, ?, 'pending', ?, ?, ?)`,
    );
  }

  /** Inside the write's transaction: stores the event when an active webhook wants it (its deliveries come later). */
  add(event: WrittenEvent): void {
    const subscriptions = this.subscriptionsOf(event.workspaceId);
    if (subscriptions.length === 0) return;
    const subscribers = subscriptions.filter((subscription) => isSubscribed(subscription, event.type, event.modelId));
    if (subscribers.length === 0) return;
    const { modelSlug, payload } = event.details();
    const { workspaceId, type, modelId, at } = event;
    this.insert({ id: newId(), workspaceId, type, modelId, modelSlug, payload, createdAt: at });
    // The worker is woken only for a webhook that is running: a receiver that is down costs a write no claim, while
    // paused or once the pause is over (the worker wakes at its end for the probe, whose answer resumes or pauses
    // the webhook; a probe not yet made, for want of an event, is made by the worker's look every second).
    if (this.paused.anyAnswering(subscribers, Date.now())) this.wrote = true;
  }

  /** The workspace's active webhooks: read once, then kept until a webhook changes (here or in another process). */
  private subscriptionsOf(workspaceId: string): WebhookSubscription[] {
    const version = this.selectDataVersion.get() as number;
    if (version !== this.dataVersion || this.subscriptions.size >= MAX_CACHED_WORKSPACES) {
      this.subscriptions.clear();
      this.dataVersion = version;
    }
    let subscriptions = this.subscriptions.get(workspaceId);
    if (!subscriptions) {
      subscriptions = (this.selectSubscriptions.all(workspaceId) as SubscriptionRow[]).map(toSubscription);
      this.subscriptions.set(workspaceId, subscriptions);
    }
    return subscriptions;
  }

  /** After this process changed a webhook (its statement committed): the next write reads the webhooks again. */
  forgetSubscriptions(): void {
    this.subscriptions.clear();
  }

  /** Stores the event (the worker is woken when its transaction commits); returns its sequence. */
  store(event: NewWebhookEvent): number {
    this.wrote = true;
    return this.insert(event);
  }

  private insert(event: NewWebhookEvent): number {
    const { lastInsertRowid } = this.insertEvent.run(
      event.id,
      event.workspaceId,
      event.type,
      event.modelId,
      event.modelSlug,
      event.payload,
      event.createdAt,
    );
    return Number(lastInsertRowid);
  }

  /** Stores the event with a pending delivery to the one webhook (a ping, which no cursor takes); returns its id. */
  storeFor(event: NewWebhookEvent, webhookId: string): string {
    const sequence = this.store(event);
    const id = newId();
    const due = this.paused.dueAt(webhookId, event.createdAt) ?? event.createdAt;
    this.insertDelivery.run(id, webhookId, event.id, sequence, due, event.createdAt, event.createdAt);
    return id;
  }

  /** After a commit: wakes the worker when the transaction wrote events. */
  committed(): void {
    if (!this.wrote) return;
    this.wrote = false;
    this.notify();
  }

  /**
   * Runs a transaction that may write events: wakes the worker when it commits. (A rollback needs nothing: no
   * delivery is kept in memory, and a wake for an event that was rolled back finds nothing to do.)
   */
  transaction<T>(run: () => T): T {
    const result = run();
    this.committed();
    return result;
  }

  /** Wakes the listeners (the worker): events or deliveries are waiting. */
  notify(): void {
    for (const listener of this.listeners) listener();
  }

  onEventsWritten(listener: () => void): void {
    this.listeners.push(listener);
  }
}

/** Events a pass of probes only reads at most (the probes' events are the first past their cursors, filters aside). */
const PROBE_READ = 16;

/**
 * A paused webhook (active: false) sends nothing: its pending deliveries wait with no next attempt (HOLD_PENDING),
 * a retry recorded while it is paused waits the same way (HELD_WHILE_PAUSED, the time bound as the parameter), and
 * making it active again makes them due (RELEASE_HELD).
 */
const HOLD_PENDING = "UPDATE webhook_deliveries SET next_attempt_at = NULL WHERE webhook_id = ? AND status = 'pending'";
const HELD_WHILE_PAUSED = 'CASE WHEN (SELECT w.active FROM webhooks w WHERE w.id = webhook_deliveries.webhook_id) = 1 THEN ? END';
const RELEASE_HELD =
  "UPDATE webhook_deliveries SET next_attempt_at = ? WHERE webhook_id = ? AND status = 'pending' AND next_attempt_at IS NULL";

/** Materialiser passes of one claim at most (each reads at most the claim's limit of events). */
const MAX_PASSES = 8;

function toEvent(row: EventRow): WebhookEvent {
  return {
    id: row.id,
    sequence: row.sequence,
    workspaceId: row.workspace_id,
    type: row.type as WebhookEvent['type'],
    modelId: row.model_id,
    modelSlug: row.model_slug,
    payload: row.payload,
    createdAt: row.created_at,
  };
}

/** Workspaces whose webhooks the outbox keeps in memory; beyond it, it starts again (a bound, not a working set). */
const MAX_CACHED_WORKSPACES = 10_000;

/** A delivery as the materialiser made it (pending, due at once, no attempt yet). */
interface FreshDelivery {
  id: string;
  webhookId: string;
  event: WebhookEvent;
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

interface CursorRow extends SubscriptionRow {
  workspace_id: string;
  last_sequence: number;
}

interface EventRow {
  sequence: number;
  id: string;
  workspace_id: string;
  type: string;
  model_id: string | null;
  model_slug: string | null;
  payload: string;
  created_at: number;
}

/** A delivery's event by its sequence (the rowid: events have no index on their id). */
const DELIVERY_FROM = 'webhook_deliveries d JOIN webhook_events e ON e.sequence = d.event_sequence';
/**
 * Newest first; in one millisecond, by event: a materialised delivery's id is made when the worker makes its row,
 * after the ids of deliveries (pings, redeliveries) made since its write. The id last, so that pages never overlap.
 */
const DELIVERY_ORDER = 'd.created_at DESC, d.event_sequence DESC, d.id DESC';

/**
 * On SQLite the worker's claims are held in this process's memory, not written: one server process serves a SQLite
 * database (docs/decisions.md), so no other worker can take a delivery, and a claim costs the single writer nothing.
 * A process that dies takes its claims with it; the next one finds the deliveries pending and due, and sends them
 * (at least once). Attempts are recorded in the record writes' group commits (WriteGroup), a batch at a time.
 */
export class SqliteWebhookStore implements WebhookStore {
  readonly sharedByProcesses = false;
  /** Delivery id → the token of the claim that holds it. */
  private readonly claims = new Map<string, string>();
  /** Webhook id → when a materialiser pass last made its deliveries (madeAt). */
  private readonly lastMade = new Map<string, number>();
  /**
   * Until this time no delivery in the database is due but those the outbox hands over as their writes commit (and
   * those held): claims take those from memory, without reading. 0: the next claim reads the database.
   */
  private databaseDueAt = 0;
  private readonly selectDue: Database.Statement;
  private readonly selectEndpoint: Database.Statement;
  private readonly selectNextDue: Database.Statement;
  private readonly settleDelivery: Database.Statement;
  private readonly insertAttempt: Database.Statement;
  private readonly putOffStatement: Database.Statement;
  private readonly selectBound: Database.Statement;
  private readonly selectCursors: Database.Statement;
  private readonly selectCursor: Database.Statement;
  private readonly selectEvents: Database.Statement;
  private readonly insertDelivery: Database.Statement;
  private readonly updateCursor: Database.Statement;
  private readonly startCursor: Database.Statement;

  constructor(
    private readonly db: Database.Database,
    private readonly outbox: SqliteOutbox,
    /** The record writes' group commit: attempts are recorded in its transactions. */
    private readonly writes: WriteGroup,
  ) {
    // The partial index webhook_deliveries_due serves the order; the held ones (at most the worker's limit) are skipped.
    this.selectDue = db.prepare(
      `SELECT ${CLAIMED_COLUMNS} FROM (
         SELECT id, webhook_id, event_id, attempts, event_sequence, next_attempt_at FROM webhook_deliveries
         WHERE status = 'pending' AND next_attempt_at <= ? AND id NOT IN (SELECT value FROM json_each(?))
         ORDER BY next_attempt_at, event_sequence LIMIT ?
       ) d JOIN webhooks w ON w.id = d.webhook_id JOIN webhook_events e ON e.sequence = d.event_sequence
       ORDER BY d.next_attempt_at, d.event_sequence`,
    );
    this.selectEndpoint = db.prepare('SELECT url, secret, previous_secret, previous_secret_until FROM webhooks WHERE id = ?');
    this.selectNextDue = db
      .prepare("SELECT min(next_attempt_at) FROM webhook_deliveries WHERE status = 'pending' AND next_attempt_at > ?")
      .pluck();
    this.settleDelivery = db
      .prepare(
        `UPDATE webhook_deliveries SET attempts = attempts + 1, status = ?, last_status_code = ?, last_error = ?,
         next_attempt_at = ${HELD_WHILE_PAUSED}, updated_at = ? WHERE id = ? AND status = 'pending' RETURNING attempts`,
      )
      .pluck();
    this.putOffStatement = db.prepare(
      `UPDATE webhook_deliveries INDEXED BY webhook_deliveries_due SET next_attempt_at = ?
       WHERE webhook_id = ? AND status = 'pending' AND next_attempt_at < ?`,
    );
    this.insertAttempt = db.prepare(
      `INSERT OR REPLACE INTO webhook_attempts (delivery_id, attempt, status_code, error, duration_ms, created_at)
       VALUES (?, ?, ?, ?, ?, ?)`,
    );
    // One writer: sequence order is commit order, so every event up to the last one is committed (the bound is exact).
    this.selectBound = db.prepare('SELECT coalesce(max(sequence), 0) FROM webhook_events').pluck();
    const cursorColumns = `SELECT c.webhook_id AS id, c.last_sequence, w.workspace_id, w.events, w.model_ids
      FROM webhook_cursors c JOIN webhooks w ON w.id = c.webhook_id WHERE w.active = 1 AND c.last_sequence < ?`;
    this.selectCursors = db.prepare(cursorColumns);
    this.selectCursor = db.prepare(`${cursorColumns} AND c.webhook_id = ?`);
    this.selectEvents = db.prepare(
      `SELECT sequence, id, workspace_id, type, model_id, model_slug, payload, created_at FROM webhook_events
       WHERE sequence > ? AND sequence <= ? ORDER BY sequence LIMIT ?`,
    );
    this.insertDelivery = db.prepare(
      `INSERT INTO webhook_deliveries (id, webhook_id, event_id, event_sequence, status, next_attempt_at, created_at, updated_at)
       VALUES (?, ?, ?, ?, 'pending', ?, ?, ?)`,
    );
    this.updateCursor = db.prepare('UPDATE webhook_cursors SET last_sequence = ? WHERE webhook_id = ?');
    // A new webhook, or one made active again: it gets the events written from now on (as when writes made its deliveries).
    this.startCursor = db.prepare(
      `INSERT INTO webhook_cursors (webhook_id, last_sequence) VALUES (?, (SELECT coalesce(max(sequence), 0) FROM webhook_events))
       ON CONFLICT (webhook_id) DO UPDATE SET last_sequence = excluded.last_sequence`,
    );
  }

  /** Claims written by an earlier version (which kept them in the database) are void: nothing holds them now. */
  async releaseClaims(): Promise<void> {
    this.claims.clear();
    this.databaseDueAt = 0;
    // Webhooks without a cursor (copied from another database, which copies no events, so every event here came after
    // them) start after their last delivery, or at the beginning.
    this.db
      .prepare(
        `INSERT OR IGNORE INTO webhook_cursors (webhook_id, last_sequence)
         SELECT w.id, coalesce((SELECT max(d.event_sequence) FROM webhook_deliveries d WHERE d.webhook_id = w.id), 0) FROM webhooks w`,
      )
      .run();
    this.db
      .prepare(
        "UPDATE webhook_deliveries SET locked_until = NULL, claim_token = NULL WHERE status = 'pending' AND claim_token IS NOT NULL",
      )
      .run();
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
    const run = this.db.transaction(() => {
      this.insertWebhook(webhook);
      this.startCursor.run(webhook.id);
    });
    run.immediate();
    this.outbox.forgetSubscriptions();
    return (await this.get(webhook.workspaceId, webhook.id))!;
  }

  private insertWebhook(webhook: NewWebhook): void {
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
    let released = false;
    const run = this.db.transaction(() => {
      const current = this.db.prepare('SELECT active FROM webhooks WHERE workspace_id = ? AND id = ?').get(workspaceId, id) as
        { active: number } | undefined;
      if (!current) return false;
      // The events written so far go out under the filter they were written with: materialised before it changes.
      const filterChanges = changes.events !== undefined || changes.modelIds !== undefined || changes.active !== undefined;
      if (filterChanges && current.active === 1) this.materialiseAll(now, id);
      this.db.prepare(`UPDATE webhooks SET ${sets.join(', ')} WHERE workspace_id = ? AND id = ?`).run(...values, workspaceId, id);
      if (changes.active === false && current.active === 1) this.db.prepare(HOLD_PENDING).run(id);
      if (changes.active === true && current.active !== 1) {
        // Made active again: the events written while it was not are not its own; those it held go out now.
        this.startCursor.run(id);
        released = this.db.prepare(RELEASE_HELD).run(now, id).changes > 0;
        if (released) this.dueInDatabase(now);
      }
      return true;
    });
    const updated = run.immediate();
    this.outbox.forgetSubscriptions();
    if (released) this.outbox.notify();
    return updated ? this.get(workspaceId, id) : null;
  }

  async delete(workspaceId: string, id: string): Promise<boolean> {
    const run = this.db.transaction(() => {
      const deleted = this.db.prepare('DELETE FROM webhooks WHERE workspace_id = ? AND id = ?').run(workspaceId, id).changes > 0;
      if (deleted) {
        this.db
          .prepare('DELETE FROM webhook_attempts WHERE delivery_id IN (SELECT id FROM webhook_deliveries WHERE webhook_id = ?)')
          .run(id);
        this.db.prepare('DELETE FROM webhook_deliveries WHERE webhook_id = ?').run(id);
        this.db.prepare('DELETE FROM webhook_cursors WHERE webhook_id = ?').run(id);
        this.lastMade.delete(id);
      }
      return deleted;
    });
    const deleted = run.immediate();
    this.outbox.paused.forget(id);
    this.outbox.forgetSubscriptions();
    return deleted;
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
    // The log shows every event the webhook gets, those still past its cursor (a paused webhook's) too: made now.
    if ((this.selectCursor.all(this.selectBound.get(), webhookId) as CursorRow[]).length > 0) {
      this.db.transaction(() => this.materialiseAll(Date.now(), webhookId)).immediate();
    }
    const where = `d.webhook_id = ? AND e.workspace_id = ? AND (? IS NULL OR d.status = ?)`;
    const parameters = [webhookId, workspaceId, page.status, page.status];
    const { total } = this.db.prepare(`SELECT count(*) AS total FROM ${DELIVERY_FROM} WHERE ${where}`).get(...parameters) as {
      total: number;
    };
    const rows = this.db
      .prepare(`SELECT ${DELIVERY_COLUMNS} FROM ${DELIVERY_FROM} WHERE ${where} ORDER BY ${DELIVERY_ORDER} LIMIT ? OFFSET ?`)
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
    this.databaseDueAt = 0;
    this.outbox.notify();
    return this.delivery(newDeliveryId);
  }

  async addEventFor(webhookId: string, event: NewWebhookEvent): Promise<WebhookDelivery | null> {
    const run = this.db.transaction(() => {
      const exists = this.db
        .prepare('SELECT 1 FROM webhooks WHERE workspace_id = ? AND id = ?')
        .get(event.workspaceId, webhookId);
      return exists === undefined ? null : this.outbox.storeFor(event, webhookId);
    });
    // Before the commit wakes the worker: its claim reads the database for this delivery (no cursor makes it).
    this.databaseDueAt = 0;
    const deliveryId = this.outbox.transaction(() => run.immediate());
    if (deliveryId === null) return null;
    return this.delivery(deliveryId);
  }

  /**
   * First the materialiser makes the delivery rows of the events past the running webhooks' cursors (at most the
   * claim's limit of events, one transaction). When nothing in the database is due before them (retries, put-off
   * deliveries, a backlog beyond the last claim's limit, a redelivery, a ping), those it made are claimed from memory:
   * a create's delivery costs no read. Otherwise the database is read, in due order.
   */
  async claimDue(claim: DeliveryClaim): Promise<ClaimedDelivery[]> {
    const limit = Math.max(claim.limit, 1);
    // From memory only when nothing in the database is due before what the materialiser makes now.
    const fromMemory = this.databaseDueAt > claim.now;
    // Two reads, without a transaction, when no running webhook is behind (a receiver that is down: its paused
    // webhook's cursor stays put).
    const made = !this.behind(claim.now)
      ? { fresh: [], complete: true }
      : await this.writes.run(() => {
          // A backlog (the database is read anyway): its rows made a thousand events at a time, in one transaction.
          if (!fromMemory) return this.materialiseNow(claim.now, MATERIALISE_BATCH, null);
          const fresh: FreshDelivery[] = [];
          let complete = false;
          for (let pass = 0; pass < MAX_PASSES && !complete && fresh.length < limit; pass++) {
            const result = this.materialiseNow(claim.now, limit - fresh.length, null);
            for (const delivery of result.fresh) fresh.push(delivery);
            complete = result.complete;
          }
          return { fresh, complete };
        });
    // More events wait past the cursors: the next claim reads the database and makes their rows in bulk.
    if (!made.complete && made.fresh.length < claim.limit) setImmediate(() => this.outbox.notify());
    if (fromMemory && made.fresh.length <= claim.limit) {
      const claimed = this.claimFresh(made.fresh, claim.token);
      if (!made.complete) this.databaseDueAt = 0;
      return claimed;
    }
    const held = JSON.stringify([...this.claims.keys()]);
    const rows = this.selectDue.all(claim.now, held, claim.limit) as ClaimedRow[];
    for (const row of rows) this.claims.set(row.id, claim.token);
    // All that is due is held now, unless the limit cut the read short: until the next due time, claims need no read.
    this.databaseDueAt = rows.length < claim.limit ? ((this.selectNextDue.get(claim.now) as number | null) ?? Infinity) : 0;
    return rows.map((row) => toClaimed(row, claim.token));
  }

  /** Whether an active webhook that is not paused has events past its cursor. */
  private behind(now: number): boolean {
    const rows = this.selectCursors.all(this.selectBound.get()) as CursorRow[];
    return this.outbox.paused.anyRunning(rows, now);
  }

  /**
   * In a transaction: makes the delivery rows of at most `maxEvents` events past the cursors of the active webhooks
   * (`only`: of that one, paused or not), moves the cursors, and returns the deliveries due at once, in event order.
   * A paused webhook is left where it is (an outage adds no row per write); once its pause is over, one event at a
   * time until it answers (the probe). `complete`: every event up to the last one was read, or (probes only) every
   * probe was made.
   */
  private materialiseNow(now: number, maxEvents: number, only: string | null): { fresh: FreshDelivery[]; complete: boolean } {
    const bound = this.selectBound.get() as number;
    const rows = (only === null ? this.selectCursors.all(bound) : this.selectCursor.all(bound, only)) as CursorRow[];
    const cursors: WebhookCursor[] = [];
    for (const row of rows) {
      const limit = only === null ? this.outbox.paused.cursorLimit(row.id, now) : Infinity;
      if (limit === 0) continue;
      cursors.push({ subscription: toSubscription(row), workspaceId: row.workspace_id, lastSequence: row.last_sequence, limit });
    }
    if (cursors.length === 0) return { fresh: [], complete: true };
    let from = cursors[0]!.lastSequence;
    for (const cursor of cursors) from = Math.min(from, cursor.lastSequence);
    // Probes only: a few events, not a batch (an outage's backlog grows with every write, and a probe needs one).
    const probesOnly = cursors.every((cursor) => cursor.limit !== Infinity);
    const readLimit = probesOnly ? Math.min(maxEvents, PROBE_READ) : maxEvents;
    const events = this.selectEvents.all(from, bound, readLimit) as EventRow[];
    const plan = planDeliveries(
      cursors,
      events.map((row) => ({
        sequence: row.sequence,
        workspaceId: row.workspace_id,
        type: row.type,
        modelId: row.model_id,
        row,
      })),
      events.length < readLimit ? bound : events[events.length - 1]!.sequence,
    );
    // Every probe made: nothing more is wanted until the probes are answered (another pass would probe again).
    const complete = events.length < readLimit || (probesOnly && plan.deliveries.length === cursors.length);
    const fresh: FreshDelivery[] = [];
    for (const { webhookId, event } of plan.deliveries) {
      const { row } = event;
      const id = newId();
      // An admin change's pass may come with an older clock reading than the worker's last one.
      const made = madeAt(now, this.lastMade.get(webhookId) ?? 0);
      this.lastMade.set(webhookId, made);
      const due = this.outbox.paused.dueOf(webhookId, made);
      this.insertDelivery.run(id, webhookId, row.id, row.sequence, due, row.created_at, row.created_at);
      if (due <= now) fresh.push({ id, webhookId, event: toEvent(row) });
      else this.dueInDatabase(due);
    }
    for (const [webhookId, last] of plan.moved) this.updateCursor.run(last, webhookId);
    return { fresh, complete };
  }

  /** In a transaction: the webhook's cursor up to the last event (before its filter changes, before a read of its log). */
  private materialiseAll(now: number, webhookId: string): void {
    let made = false;
    for (;;) {
      const { fresh, complete } = this.materialiseNow(now, MATERIALISE_BATCH, webhookId);
      if (fresh.length > 0) made = true;
      if (complete) break;
    }
    // Its new rows are in the database: the next claim reads them there.
    if (made) {
      this.databaseDueAt = 0;
      this.outbox.notify();
    }
  }

  private claimFresh(fresh: readonly FreshDelivery[], token: string): ClaimedDelivery[] {
    const endpoints = new Map<string, EndpointRow | undefined>();
    const claimed: ClaimedDelivery[] = [];
    for (const { id, webhookId, event } of fresh) {
      if (!endpoints.has(webhookId)) endpoints.set(webhookId, this.selectEndpoint.get(webhookId) as EndpointRow | undefined);
      const endpoint = endpoints.get(webhookId);
      // A webhook deleted since: its deliveries went with it.
      if (!endpoint) continue;
      this.claims.set(id, token);
      claimed.push(claimedDelivery({ id, webhookId, attempts: 0 }, endpoint, event, token));
    }
    return claimed;
  }

  /** A pending delivery in the database is due at `at` (a retry, a put-off delivery, an attempt not recorded). */
  private dueInDatabase(at: number): void {
    this.databaseDueAt = Math.min(this.databaseDueAt, at);
  }

  async recordAttempts(attempts: readonly AttemptRecord[]): Promise<boolean[]> {
    const held = attempts.filter((attempt) => this.claims.get(attempt.deliveryId) === attempt.claimToken);
    try {
      const recorded = await this.writes.run(() => new Set(held.filter((attempt) => this.record(attempt))));
      for (const attempt of recorded) {
        if (attempt.status === 'pending' && attempt.nextAttemptAt !== null) this.dueInDatabase(attempt.nextAttemptAt);
      }
      return attempts.map((attempt) => recorded.has(attempt));
    } catch (error) {
      this.dueInDatabase(0);
      throw error;
    } finally {
      // Recorded, or not (then the delivery is still pending and due: it is sent again).
      for (const attempt of held) this.claims.delete(attempt.deliveryId);
    }
  }

  private record(attempt: AttemptRecord): boolean {
    const error = attempt.error?.slice(0, MAX_ERROR_CHARS) ?? null;
    const attempts = this.settleDelivery.get(
      attempt.status,
      attempt.statusCode,
      error,
      attempt.nextAttemptAt,
      attempt.at,
      attempt.deliveryId,
    ) as number | undefined;
    if (attempts === undefined) return false;
    this.insertAttempt.run(attempt.deliveryId, attempts, attempt.statusCode, error, Math.round(attempt.durationMs), attempt.at);
    return true;
  }

  /**
   * One UPDATE over the due index (the webhook's pending deliveries due before `until`; those this process holds are
   * moved too, harmlessly: an attempt's record sets its delivery's next attempt, and a held one is not claimed again).
   */
  async putOff(webhookId: string, until: number, released: readonly string[], claimToken: string): Promise<void> {
    this.putOffStatement.run(until, webhookId, until);
    for (const id of released) if (this.claims.get(id) === claimToken) this.claims.delete(id);
    this.outbox.paused.pause(webhookId, until);
    this.dueInDatabase(until);
  }

  /** One process serves the database, so there is no webhook to let go of: only the claims. */
  async releaseHold(_holder: string, unattempted: readonly HeldDelivery[]): Promise<void> {
    for (const { id, claimToken } of unattempted) if (this.claims.get(id) === claimToken) this.claims.delete(id);
    // They are due: the next claim reads them.
    if (unattempted.length > 0) this.databaseDueAt = 0;
  }

  async expedite(webhookId: string, now: number): Promise<void> {
    this.outbox.paused.resume(webhookId, now);
    this.db
      .prepare(
        "UPDATE webhook_deliveries SET next_attempt_at = ? WHERE webhook_id = ? AND status = 'pending' AND next_attempt_at > ?",
      )
      .run(now, webhookId, now);
    this.dueInDatabase(now);
  }

  /** The next due delivery, or the end of a pause (then the probe is materialised). */
  async nextDueAfter(now: number): Promise<number | null> {
    return this.outbox.paused.nextWake(this.selectNextDue.get(now) as number | null, now);
  }

  async prune(before: number): Promise<number> {
    const run = this.db.transaction(() => {
      const settled = "status <> 'pending' AND updated_at < ?";
      this.db
        .prepare(`DELETE FROM webhook_attempts WHERE delivery_id IN (SELECT id FROM webhook_deliveries WHERE ${settled})`)
        .run(before);
      const { changes } = this.db.prepare(`DELETE FROM webhook_deliveries WHERE ${settled}`).run(before);
      // The events before the first one written at `before` or later, in sequence order (an event has no index on its
      // time: sequence order is commit order). The newest is kept: without AUTOINCREMENT, its sequence is the one
      // the next event's follows.
      this.db
        .prepare(
          `DELETE FROM webhook_events
           WHERE sequence < coalesce((SELECT e.sequence FROM webhook_events e WHERE e.created_at >= ? ORDER BY e.sequence LIMIT 1),
                                     (SELECT max(sequence) FROM webhook_events))
           AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event_sequence = webhook_events.sequence)
           AND sequence <= coalesce((SELECT min(c.last_sequence) FROM webhook_cursors c JOIN webhooks w ON w.id = c.webhook_id
                                     WHERE w.active = 1), (SELECT max(sequence) FROM webhook_events))`,
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
