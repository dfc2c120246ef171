import type { Pool, PoolClient } from 'pg';
import { newId } from '../../ids.js';
import { madeAt, MATERIALISE_BATCH, planDeliveries, type WebhookCursor } from '../query/delivery-plan.js';
import { inTransaction } from './sql.js';
import { readBound, type PostgresOutbox } from './webhook-outbox.js';

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

/** How long a materialiser pass waits for the outbox lock (OutboxBound), and an admin change of a webhook. */
export const BOUND_WAIT_MS = 50;
/** A materialiser pass reads the bound again at most this often (readBound). */
const BOUND_EVERY_MS = 25;
export const ADMIN_BOUND_WAIT_MS = 5_000;

/**
 * Makes the delivery rows of the events past the active webhooks' cursors, in event order, below the bound that the
 * outbox lock proves (webhook-outbox.ts readBound); several processes share it, each cursor row locked by one at a time.
 */
export class PostgresMaterialiser {
  /** The last bound read (readBound) and when: materialiser passes closer together than BOUND_EVERY_MS share one. */
  private bound = 0;
  private boundAt = -Infinity;
  private boundTimer: NodeJS.Timeout | null = null;

  constructor(
    private readonly pool: Pool,
    private readonly outbox: PostgresOutbox,
  ) {}

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
  async adminBound(waitMs: number): Promise<number> {
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
  async materialise(now: number): Promise<void> {
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
  async materialiseAll(client: PoolClient, now: number, bound: number, webhookId: string): Promise<number> {
    let made = 0;
    for (;;) {
      const pass = await this.materialiseOn(client, now, bound, MATERIALISE_BATCH, webhookId);
      made += pass.made;
      if (pass.complete) return made;
    }
  }
}
