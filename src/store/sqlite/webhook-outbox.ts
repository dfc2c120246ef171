import type Database from 'better-sqlite3';
import {
  isSubscribed,
  type NewWebhookEvent,
  type WebhookEventType,
  type WebhookSubscription,
} from '../../domain/webhook-events.js';
import { newId } from '../../ids.js';
import { PausedWebhooks } from '../query/paused-webhooks.js';
import { sharedJson } from '../rows/json.js';
import { EVENT_INSERT_COLUMNS, eventValues } from '../rows/webhook-rows.js';

/** What a write tells the outbox about its event; `details` runs only when some webhook wants the event. */
export interface WrittenEvent {
  workspaceId: string;
  type: WebhookEventType;
  /** null: an event of no one model (a schedule's). */
  modelId: string | null;
  at: number;
  details: () => { modelSlug: string | null; payload: string };
}

/** Workspaces whose webhooks the outbox keeps in memory; beyond it, it starts again (a bound, not a working set). */
const MAX_CACHED_WORKSPACES = 10_000;

export interface SubscriptionRow {
  id: string;
  events: string;
  model_ids: string | null;
}

export function toSubscription(row: SubscriptionRow): WebhookSubscription {
  return {
    id: row.id,
    events: sharedJson<string[]>(row.events),
    modelIds: row.model_ids === null ? null : sharedJson<string[]>(row.model_ids),
  };
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
    this.insertEvent = db.prepare(`INSERT INTO webhook_events (${EVENT_INSERT_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?)`);
    this.insertDelivery = db.prepare(
      `INSERT INTO webhook_deliveries (id, webhook_id, event_id, event_sequence, status, next_attempt_at, created_at, updated_at)
       VALUES (?, ?, ?, ?, 'pending', ?, ?, ?)`,
    );
  }

  /** Inside the write's transaction: stores the event when an active webhook wants it (its deliveries come later). */
  add(event: WrittenEvent): void {
    const subscriptions = this.subscriptionsOf(event.workspaceId);
    if (subscriptions.length === 0) return;
    const subscribers = subscriptions.filter((subscription) => isSubscribed(subscription, event.type, event.modelId ?? ''));
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
    const { lastInsertRowid } = this.insertEvent.run(...eventValues(event));
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
