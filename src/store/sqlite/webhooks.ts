import type Database from 'better-sqlite3';
import type { NewWebhookEvent } from '../../domain/webhook-events.js';
import type {
  AttemptRecord,
  ClaimedDelivery,
  DeliveryClaim,
  HeldDelivery,
  NewWebhook,
  StoredWebhook,
  WebhookChanges,
  WebhookDelivery,
  WebhookStore,
} from '../store.js';
import { MATERIALISE_BATCH } from '../query/delivery-plan.js';
import type { WriteGroup } from './write-group.js';
import { SqliteStepRunner } from './step-runner.js';
import type { SqliteOutbox } from './webhook-outbox.js';
import { CoreWebhookCrud, CoreWebhookMethods } from '../core/webhooks.js';
import { native, type Steps } from '../core/steps.js';
import { DatabaseDue, SqliteMaterialiser, type FreshDelivery } from './webhook-materialiser.js';
import {
  CLAIMED_COLUMNS,
  MAX_ERROR_CHARS,
  claimedDelivery,
  toClaimed,
  type ClaimedRow,
  type EndpointRow,
} from '../rows/webhook-rows.js';

/** A retry recorded while its webhook is paused waits with no next attempt, as the paused webhook's others do (core/webhooks.ts). */
const HELD_WHILE_PAUSED = 'CASE WHEN (SELECT w.active FROM webhooks w WHERE w.id = webhook_deliveries.webhook_id) = 1 THEN ? END';

/** Materialiser passes of one claim at most (each reads at most the claim's limit of events). */
const MAX_PASSES = 8;

/** A delivery's event by its sequence (the rowid: events have no index on their id). */
const DELIVERY_FROM = 'webhook_deliveries d JOIN webhook_events e ON e.sequence = d.event_sequence';
/**
 * On SQLite the worker's claims are held in this process's memory, not written: one server process serves a SQLite
 * database (docs/decisions.md), so no other worker can take a delivery, and a claim costs the single writer nothing.
 * A process that dies takes its claims with it; the next one finds the deliveries pending and due, and sends them
 * (at least once). Attempts are recorded in the record writes' group commits (WriteGroup), a batch at a time.
 */
export class SqliteWebhookStore extends CoreWebhookMethods implements WebhookStore {
  readonly sharedByProcesses = false;
  /** Delivery id → the token of the claim that holds it. */
  private readonly claims = new Map<string, string>();
  private readonly due = new DatabaseDue();
  private readonly materialiser: SqliteMaterialiser;
  private readonly selectDue: Database.Statement;
  private readonly selectEndpoint: Database.Statement;
  private readonly selectNextDue: Database.Statement;
  private readonly settleDelivery: Database.Statement;
  private readonly insertAttempt: Database.Statement;
  private readonly putOffStatement: Database.Statement;
  protected readonly crud: CoreWebhookCrud;

  constructor(
    private readonly db: Database.Database,
    private readonly outbox: SqliteOutbox,
    /** The record writes' group commit: attempts are recorded in its transactions. */
    private readonly writes: WriteGroup,
  ) {
    super();
    this.crud = new CoreWebhookCrud(new SqliteStepRunner(db), DELIVERY_FROM);
    this.materialiser = new SqliteMaterialiser(db, outbox, this.due);
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
  }

  /** Claims written by an earlier version (which kept them in the database) are void: nothing holds them now. */
  async releaseClaims(): Promise<void> {
    this.claims.clear();
    this.due.forget();
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

  async create(webhook: NewWebhook): Promise<StoredWebhook> {
    const stored = await this.crud.create(webhook, this.startCursorOf(webhook.id));
    this.outbox.forgetSubscriptions();
    return stored;
  }

  async update(workspaceId: string, id: string, changes: WebhookChanges, now: number): Promise<StoredWebhook | null> {
    const updated = await this.crud.update(workspaceId, id, changes, now, {
      materialise: () => native(() => (this.materialiser.materialiseAll(now, id), 0)),
      restartCursor: () => this.startCursorOf(id),
    });
    this.outbox.forgetSubscriptions();
    if (!updated) return null;
    if (updated.made > 0) {
      this.due.add(now);
      this.outbox.notify();
    }
    return updated.webhook;
  }

  /** A new webhook, or one made active again: it gets the events written from now on. */
  private startCursorOf(id: string): Steps<void> {
    return native(() => this.materialiser.start(id));
  }

  async delete(workspaceId: string, id: string): Promise<boolean> {
    const deleted = await this.crud.delete(workspaceId, id);
    if (deleted) this.materialiser.forget(id);
    this.outbox.paused.forget(id);
    this.outbox.forgetSubscriptions();
    return deleted;
  }

  protected async catchUp(webhookId: string): Promise<void> {
    this.materialiser.catchUp(webhookId);
  }

  protected redelivered(): void {
    this.due.forget();
    this.outbox.notify();
  }

  async addEventFor(webhookId: string, event: NewWebhookEvent): Promise<WebhookDelivery | null> {
    const run = this.db.transaction(() =>
      this.db.prepare('SELECT 1 FROM webhooks WHERE workspace_id = ? AND id = ?').get(event.workspaceId, webhookId) === undefined
        ? null
        : this.outbox.storeFor(event, webhookId),
    );
    // Before the commit wakes the worker: its claim reads the database for this delivery (no cursor makes it).
    this.due.forget();
    const deliveryId = this.outbox.transaction(() => run.immediate());
    if (deliveryId === null) return null;
    return this.crud.delivery(deliveryId);
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
    const fromMemory = this.due.at > claim.now;
    // Two reads, without a transaction, when no running webhook is behind (a receiver that is down: its paused
    // webhook's cursor stays put).
    const made = !this.materialiser.behind(claim.now)
      ? { fresh: [], complete: true }
      : await this.writes.run(() => {
          // A backlog (the database is read anyway): its rows made a thousand events at a time, in one transaction.
          if (!fromMemory) return this.materialiser.materialiseNow(claim.now, MATERIALISE_BATCH, null);
          const fresh: FreshDelivery[] = [];
          let complete = false;
          for (let pass = 0; pass < MAX_PASSES && !complete && fresh.length < limit; pass++) {
            const result = this.materialiser.materialiseNow(claim.now, limit - fresh.length, null);
            for (const delivery of result.fresh) fresh.push(delivery);
            complete = result.complete;
          }
          return { fresh, complete };
        });
    // More events wait past the cursors: the next claim reads the database and makes their rows in bulk.
    if (!made.complete && made.fresh.length < claim.limit) setImmediate(() => this.outbox.notify());
    if (fromMemory && made.fresh.length <= claim.limit) {
      const claimed = this.claimFresh(made.fresh, claim.token);
      if (!made.complete) this.due.forget();
      return claimed;
    }
    const held = JSON.stringify([...this.claims.keys()]);
    const rows = this.selectDue.all(claim.now, held, claim.limit) as ClaimedRow[];
    for (const row of rows) this.claims.set(row.id, claim.token);
    // All that is due is held now, unless the limit cut the read short: until the next due time, claims need no read.
    this.due.at = rows.length < claim.limit ? ((this.selectNextDue.get(claim.now) as number | null) ?? Infinity) : 0;
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

  async recordAttempts(attempts: readonly AttemptRecord[]): Promise<boolean[]> {
    const held = attempts.filter((attempt) => this.claims.get(attempt.deliveryId) === attempt.claimToken);
    try {
      const recorded = await this.writes.run(() => new Set(held.filter((attempt) => this.record(attempt))));
      for (const attempt of recorded) {
        if (attempt.status === 'pending' && attempt.nextAttemptAt !== null) this.due.add(attempt.nextAttemptAt);
      }
      return attempts.map((attempt) => recorded.has(attempt));
    } catch (error) {
      this.due.add(0);
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
    this.due.add(until);
  }

  /** One process serves the database, so there is no webhook to let go of: only the claims. */
  async releaseHold(_holder: string, unattempted: readonly HeldDelivery[]): Promise<void> {
    for (const { id, claimToken } of unattempted) if (this.claims.get(id) === claimToken) this.claims.delete(id);
    // They are due: the next claim reads them.
    if (unattempted.length > 0) this.due.forget();
  }

  async expedite(webhookId: string, now: number): Promise<void> {
    this.outbox.paused.resume(webhookId, now);
    this.db
      .prepare(
        "UPDATE webhook_deliveries SET next_attempt_at = ? WHERE webhook_id = ? AND status = 'pending' AND next_attempt_at > ?",
      )
      .run(now, webhookId, now);
    this.due.add(now);
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
