import type { Pool, PoolClient } from 'pg';
import {
  isSubscribed,
  type NewWebhookEvent,
  type WebhookEventType,
  type WebhookSubscription,
} from '../../domain/webhook-events.js';
import { newId } from '../../ids.js';
import { PausedWebhooks } from '../query/paused-webhooks.js';
import { toNumber, type Queryable } from './sql.js';
import { EVENT_INSERT_COLUMNS, eventValues } from '../rows/webhook-rows.js';

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
  /** null: an event of no one model (a schedule's). */
  modelId: string | null;
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
  INSERT INTO webhook_events (${EVENT_INSERT_COLUMNS})
  SELECT $1, $2, $3, $4, coalesce($5, (SELECT slug FROM models WHERE id = $4)), $6, $7 FROM writer RETURNING sequence`;

/** A ping: its event and its one delivery (no cursor takes a ping). */
const INSERT_PING = `WITH writer AS MATERIALIZED (SELECT pg_advisory_xact_lock_shared(${OUTBOX_LOCK_KEY}) AS locked),
  event AS (
    INSERT INTO webhook_events (${EVENT_INSERT_COLUMNS})
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
    const subscribers = subscriptions.filter((subscription) => isSubscribed(subscription, event.type, event.modelId ?? ''));
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
export async function storePing(
  client: Queryable,
  event: NewWebhookEvent,
  webhookId: string,
  due: number | null,
): Promise<string> {
  const deliveryId = newId();
  await client.query(INSERT_PING, [...eventValues(event), deliveryId, webhookId, due]);
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
export async function readBound(pool: Pool, waitMs: number): Promise<number | null> {
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
