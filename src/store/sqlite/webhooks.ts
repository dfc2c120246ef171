import { PausedWebhooks } from '../query/paused-webhooks.js';
import type Database from 'better-sqlite3';
import {
  subscribersOf,
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
  NewWebhook,
  StoredWebhook,
  WebhookChanges,
  WebhookDelivery,
  WebhookStore,
} from '../store.js';
import { sharedJson } from '../rows/json.js';
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
 * committed with its write or not at all. Each workspace's active webhooks are kept here once read, so a write of a
 * workspace without webhooks costs no query but `PRAGMA data_version` (which tells whether another connection
 * committed since; this process's own webhook changes call forgetSubscriptions).
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
  /** Whether committed deliveries are kept for the worker (it has started claiming; see FreshDeliveries). */
  private keepFresh = false;
  /** The deliveries written by the open transaction, and those committed and not yet claimed, in event order. */
  private written: FreshDelivery[] = [];
  private fresh: FreshDelivery[] = [];
  /** Set when a delivery may be in the database and not in `fresh` (a rollback, an overflow): the next claim reads. */
  private missedFresh = false;
  /** Paused webhooks: their new deliveries are stored due when the pause ends, not handed over. */
  private readonly paused = new PausedWebhooks();

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

  /** Inside the write's transaction: stores the event and its deliveries when an active webhook wants it. */
  add(event: WrittenEvent): void {
    const subscriptions = this.subscriptionsOf(event.workspaceId);
    if (subscriptions.length === 0) return;
    const webhookIds = subscribersOf(subscriptions, event.type, event.modelId);
    if (webhookIds.length === 0) return;
    const { modelSlug, payload } = event.details();
    const { workspaceId, type, modelId, at } = event;
    this.store({ id: newId(), workspaceId, type, modelId, modelSlug, payload, createdAt: at }, webhookIds);
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
    const stored: WebhookEvent | null = this.keepFresh ? { ...event, sequence: Number(lastInsertRowid) } : null;
    const deliveryIds = webhookIds.map((webhookId) => {
      const id = newId();
      const due = this.paused.dueAt(webhookId, event.createdAt) ?? event.createdAt;
      this.insertDelivery.run(id, webhookId, event.id, lastInsertRowid, due, event.createdAt, event.createdAt);
      if (due !== event.createdAt) return id;
      if (stored) this.written.push({ id, webhookId, event: stored });
      this.wrote = true;
      return id;
    });
    return deliveryIds;
  }

  /**
   * The webhook is paused until `until`: its new deliveries are stored due then (the worker would only put them off),
   * and those kept for the worker are forgotten (the store has put them off in the database).
   */
  pause(webhookId: string, until: number): void {
    this.paused.pause(webhookId, until);
    if (this.fresh.some((delivery) => delivery.webhookId === webhookId)) {
      this.fresh = this.fresh.filter((delivery) => delivery.webhookId !== webhookId);
    }
  }

  /** The webhook answers again: its new deliveries are due at once. */
  resume(webhookId: string): void {
    this.paused.resume(webhookId);
  }

  /** After a commit: hands the transaction's deliveries to the worker and wakes it when the transaction wrote events. */
  committed(): void {
    if (!this.wrote) return;
    this.wrote = false;
    if (this.written.length > 0) {
      if (this.fresh.length + this.written.length > MAX_FRESH) this.dropFresh();
      else for (const delivery of this.written) this.fresh.push(delivery);
      this.written = [];
    }
    this.notify();
  }

  /**
   * After a rollback (of a transaction or of one write's savepoint in a group): the deliveries noted since the last
   * commit are forgotten, and the next claim reads the database (where those that were committed after all are).
   */
  rolledBack(): void {
    if (this.written.length > 0) this.missedFresh = true;
    this.written = [];
  }

  /** Runs a transaction that may write events: hands them over when it commits, forgets them when it fails. */
  transaction<T>(run: () => T): T {
    let result: T;
    try {
      result = run();
    } catch (error) {
      this.rolledBack();
      throw error;
    }
    this.committed();
    return result;
  }

  /** The worker claims from memory from now on: committed deliveries are kept for it. */
  keepFreshDeliveries(): void {
    this.keepFresh = true;
  }

  /**
   * The deliveries committed since the last claim, at most `limit`, in event order (the rest stay for the next), or
   * null when the next claim must read the database (a rollback or an overflow lost track of some). A database read
   * covers them all: `dropFresh` forgets them then.
   */
  takeFresh(limit: number): FreshDelivery[] | null {
    if (this.missedFresh) return null;
    if (this.fresh.length <= limit) {
      const taken = this.fresh;
      this.fresh = [];
      return taken;
    }
    return this.fresh.splice(0, limit);
  }

  /** Forgets the committed deliveries kept for the worker (they are pending in the database). */
  dropFresh(): void {
    this.fresh = [];
    this.missedFresh = true;
  }

  /** After a database read that saw every committed delivery. */
  caughtUp(): void {
    this.fresh = [];
    this.missedFresh = false;
  }

  /** Wakes the listeners (the worker): deliveries are due. */
  notify(): void {
    for (const listener of this.listeners) listener();
  }

  onEventsWritten(listener: () => void): void {
    this.listeners.push(listener);
  }
}

/** Workspaces whose webhooks the outbox keeps in memory; beyond it, it starts again (a bound, not a working set). */
const MAX_CACHED_WORKSPACES = 10_000;
/** Committed deliveries kept for the worker at most; beyond it they are read back from the database. */
const MAX_FRESH = 10_000;

/** A delivery as its write stored it (pending, due at once, no attempt yet). */
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

const DELIVERY_FROM = 'webhook_deliveries d JOIN webhook_events e ON e.id = d.event_id';

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
       ) d JOIN webhooks w ON w.id = d.webhook_id JOIN webhook_events e ON e.id = d.event_id
       ORDER BY d.next_attempt_at, d.event_sequence`,
    );
    this.selectEndpoint = db.prepare('SELECT url, secret, previous_secret, previous_secret_until FROM webhooks WHERE id = ?');
    this.selectNextDue = db
      .prepare("SELECT min(next_attempt_at) FROM webhook_deliveries WHERE status = 'pending' AND next_attempt_at > ?")
      .pluck();
    this.settleDelivery = db
      .prepare(
        `UPDATE webhook_deliveries SET attempts = attempts + 1, status = ?, last_status_code = ?, last_error = ?,
         next_attempt_at = ?, updated_at = ? WHERE id = ? AND status = 'pending' RETURNING attempts`,
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
  }

  /** Claims written by an earlier version (which kept them in the database) are void: nothing holds them now. */
  async releaseClaims(): Promise<void> {
    this.claims.clear();
    this.databaseDueAt = 0;
    this.outbox.keepFreshDeliveries();
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
    this.outbox.forgetSubscriptions();
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
    this.outbox.forgetSubscriptions();
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
    const deleted = run.immediate();
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
    this.databaseDueAt = 0;
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
    const deliveryId = this.outbox.transaction(() => run.immediate());
    if (deliveryId === null) return null;
    return this.delivery(deliveryId);
  }

  /**
   * The deliveries written since the last claim come from the outbox's memory, as their writes committed, when
   * nothing in the database is due before them (retries, put-off deliveries, a backlog beyond the last claim's
   * limit, a redelivery): a create's delivery costs no read. Otherwise the database is read, in due order.
   */
  async claimDue(claim: DeliveryClaim): Promise<ClaimedDelivery[]> {
    if (this.databaseDueAt > claim.now) {
      const fresh = this.outbox.takeFresh(claim.limit);
      if (fresh !== null) return this.claimFresh(fresh, claim.token);
    }
    const held = JSON.stringify([...this.claims.keys()]);
    // Every delivery committed so far is in the database: the read below sees those the outbox kept.
    this.outbox.caughtUp();
    const rows = this.selectDue.all(claim.now, held, claim.limit) as ClaimedRow[];
    for (const row of rows) this.claims.set(row.id, claim.token);
    // All that is due is held now, unless the limit cut the read short: until the next due time, claims need no read.
    this.databaseDueAt = rows.length < claim.limit ? ((this.selectNextDue.get(claim.now) as number | null) ?? Infinity) : 0;
    return rows.map((row) => toClaimed(row, claim.token));
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
    this.outbox.pause(webhookId, until);
    this.dueInDatabase(until);
  }

  async expedite(webhookId: string, now: number): Promise<void> {
    this.outbox.resume(webhookId);
    this.db
      .prepare(
        "UPDATE webhook_deliveries SET next_attempt_at = ? WHERE webhook_id = ? AND status = 'pending' AND next_attempt_at > ?",
      )
      .run(now, webhookId, now);
    this.dueInDatabase(now);
  }

  async nextDueAfter(now: number): Promise<number | null> {
    return this.selectNextDue.get(now) as number | null;
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
