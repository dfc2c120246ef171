import type { Pool, PoolClient } from 'pg';
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
import { CLAIMED_COLUMNS, MAX_ERROR_CHARS, toClaimed, type ClaimedRow } from '../rows/webhook-rows.js';
import { inTransaction, toNumber } from './sql.js';
import { ADMIN_BOUND_WAIT_MS, BOUND_WAIT_MS, PostgresMaterialiser } from './webhook-materialiser.js';
import { storePing, type PostgresOutbox } from './webhook-outbox.js';
import { PostgresStepRunner } from './step-runner.js';
import { CoreWebhookCrud, CoreWebhookMethods, filterChanges, webhookExists } from '../core/webhooks.js';
import { native, type Steps } from '../core/steps.js';

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

const DELIVERY_FROM = 'webhook_deliveries d JOIN webhook_events e ON e.id = d.event_id';

export class PostgresWebhookStore extends CoreWebhookMethods implements WebhookStore {
  readonly sharedByProcesses = true;

  private readonly steps: PostgresStepRunner;
  protected readonly crud: CoreWebhookCrud;
  private readonly materialiser: PostgresMaterialiser;

  constructor(
    private readonly pool: Pool,
    private readonly outbox: PostgresOutbox,
  ) {
    super();
    this.steps = new PostgresStepRunner(pool);
    this.crud = new CoreWebhookCrud(this.steps, DELIVERY_FROM);
    this.materialiser = new PostgresMaterialiser(pool, outbox);
  }

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

  async create(webhook: NewWebhook): Promise<StoredWebhook> {
    // It gets the events written from now on (those of writes that saw it): its cursor starts at the bound.
    const bound = await this.materialiser.adminBound(ADMIN_BOUND_WAIT_MS);
    return this.crud.create(webhook, startCursor(webhook.id, bound));
  }

  async update(workspaceId: string, id: string, changes: WebhookChanges, now: number): Promise<StoredWebhook | null> {
    const bound = filterChanges(changes) ? await this.materialiser.adminBound(ADMIN_BOUND_WAIT_MS) : 0;
    const updated = await this.crud.update(workspaceId, id, changes, now, {
      materialise: () => native((client: PoolClient) => this.materialiser.materialiseAll(client, now, bound, id)),
      restartCursor: () => startCursor(id, bound),
    });
    if (updated && updated.made > 0) this.outbox.notify();
    return updated?.webhook ?? null;
  }

  async delete(workspaceId: string, id: string): Promise<boolean> {
    const deleted = await this.crud.delete(workspaceId, id);
    if (deleted) this.outbox.paused.forget(id);
    return deleted;
  }

  protected async catchUp(webhookId: string): Promise<void> {
    const { rows: behind } = await this.pool.query(
      `SELECT 1 FROM webhook_cursors c JOIN webhooks w ON w.id = c.webhook_id
       WHERE c.webhook_id = $1 AND w.active AND c.last_sequence < (SELECT coalesce(max(sequence), 0) FROM webhook_events)`,
      [webhookId],
    );
    if (behind.length === 0) return;
    const bound = await this.materialiser.adminBound(BOUND_WAIT_MS);
    const made = await inTransaction(this.pool, (client) =>
      this.materialiser.materialiseAll(client, Date.now(), bound, webhookId),
    );
    if (made > 0) this.outbox.notify();
  }

  protected redelivered(): void {
    this.outbox.notify();
  }

  async addEventFor(webhookId: string, event: NewWebhookEvent): Promise<WebhookDelivery | null> {
    const due = this.outbox.paused.dueAt(webhookId, event.createdAt);
    const deliveryId = await this.steps.transaction(pingSteps(webhookId, event, due));
    if (deliveryId === null) return null;
    this.outbox.notify();
    return this.crud.delivery(deliveryId);
  }

  /**
   * One statement: the due deliveries, row-locked with SKIP LOCKED so that processes claiming at once take
   * different ones, leased until `leaseUntil` (a process that dies leaves its lease to run out, then another
   * takes them), and returned with their webhook and event. Each held webhook's first due deliveries are read in
   * claim order from its index (webhook_deliveries_webhook_due), so a claim costs the same before a backlog of 100,000
   * as before one of 10.
   *
   * Claims only deliveries of the webhooks this worker holds (holdWebhooks, a statement of its own before the claim):
   * with FOR UPDATE SKIP LOCKED alone, two processes' claims of one webhook would interleave, each skipping rows the
   * other has locked for a moment, and start its deliveries out of event order and beyond its in-flight limit.
   */
  async claimDue(claim: DeliveryClaim): Promise<ClaimedDelivery[]> {
    await this.materialiser.materialise(claim.now);
    const held = await this.holdWebhooks(claim);
    if (held.length === 0) return [];
    const { rows } = await this.pool.query<ClaimedRow>(
      `WITH due AS (
         SELECT first.id FROM unnest($5::text[]) AS held (webhook_id) CROSS JOIN LATERAL (
           SELECT id, next_attempt_at, event_sequence FROM webhook_deliveries d
           WHERE d.webhook_id = held.webhook_id AND status = 'pending' AND next_attempt_at <= $1
             AND (locked_until IS NULL OR locked_until <= $1)
           ORDER BY next_attempt_at, event_sequence LIMIT $2 FOR UPDATE SKIP LOCKED
         ) first
         ORDER BY first.next_attempt_at, first.event_sequence LIMIT $2
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

/** A new webhook, or one made active again: its cursor starts at `bound`, or after the last event when that is later. */
function startCursor(webhookId: string, bound: number): Steps<void> {
  return native(async (client: PoolClient) => {
    await client.query(
      `INSERT INTO webhook_cursors (webhook_id, last_sequence)
       VALUES ($1, greatest($2::bigint, (SELECT coalesce(max(sequence), 0) FROM webhook_events)))
       ON CONFLICT (webhook_id) DO UPDATE SET last_sequence = excluded.last_sequence`,
      [webhookId, bound],
    );
  });
}

/** A ping's event and delivery, when the workspace has the webhook; its delivery's id. */
function* pingSteps(webhookId: string, event: NewWebhookEvent, due: number | null): Steps<string | null> {
  if (!(yield* webhookExists(event.workspaceId, webhookId))) return null;
  return yield* native((client: PoolClient) => storePing(client, event, webhookId, due));
}
