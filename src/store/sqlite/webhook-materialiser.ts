import type Database from 'better-sqlite3';
import type { WebhookEvent } from '../../domain/webhook-events.js';
import { newId } from '../../ids.js';
import { madeAt, MATERIALISE_BATCH, planDeliveries, type WebhookCursor } from '../query/delivery-plan.js';
import { toSubscription, type SqliteOutbox, type SubscriptionRow } from './webhook-outbox.js';

/** Events a pass of probes only reads at most (the probes' events are the first past their cursors, filters aside). */
const PROBE_READ = 16;

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

/** A delivery as the materialiser made it (pending, due at once, no attempt yet). */
export interface FreshDelivery {
  id: string;
  webhookId: string;
  event: WebhookEvent;
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

/**
 * Until `at` no delivery in the database is due but those the outbox hands over as their writes commit (and those
 * held): claims take those from memory, without reading. 0: the next claim reads the database.
 */
export class DatabaseDue {
  at = 0;

  /** A pending delivery in the database is due at `at` (a retry, a put-off delivery, an attempt not recorded). */
  add(at: number): void {
    this.at = Math.min(this.at, at);
  }

  forget(): void {
    this.at = 0;
  }
}

/**
 * Makes the delivery rows of the events past the active webhooks' cursors, in event order. One writer: sequence order
 * is commit order, so every event up to the last one is committed (the bound is exact).
 */
export class SqliteMaterialiser {
  /** Webhook id → when a materialiser pass last made its deliveries (madeAt). */
  private readonly lastMade = new Map<string, number>();
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
    private readonly due: DatabaseDue,
  ) {
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

  /** A new webhook, or one made active again: it gets the events written from now on. */
  start(webhookId: string): void {
    this.startCursor.run(webhookId);
  }

  /** A deleted webhook. */
  forget(webhookId: string): void {
    this.lastMade.delete(webhookId);
  }

  /** Before a read of the webhook's log: the deliveries of the events still past its cursor (a paused webhook's too). */
  catchUp(webhookId: string): void {
    if (this.selectCursor.all(this.selectBound.get(), webhookId).length === 0) return;
    this.db.transaction(() => this.materialiseAll(Date.now(), webhookId)).immediate();
  }

  /** Whether an active webhook that is not paused has events past its cursor. */
  behind(now: number): boolean {
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
  materialiseNow(now: number, maxEvents: number, only: string | null): { fresh: FreshDelivery[]; complete: boolean } {
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
      else this.due.add(due);
    }
    for (const [webhookId, last] of plan.moved) this.updateCursor.run(last, webhookId);
    return { fresh, complete };
  }

  /** In a transaction: the webhook's cursor up to the last event (before its filter changes, before a read of its log). */
  materialiseAll(now: number, webhookId: string): void {
    let made = false;
    for (;;) {
      const { fresh, complete } = this.materialiseNow(now, MATERIALISE_BATCH, webhookId);
      if (fresh.length > 0) made = true;
      if (complete) break;
    }
    // Its new rows are in the database: the next claim reads them there.
    if (made) {
      this.due.forget();
      this.outbox.notify();
    }
  }
}
