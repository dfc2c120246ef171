// The webhook half of the store contract: webhooks, their delivery log, and the deliveries the worker sends.
import type { NewWebhookEvent, WebhookEvent } from '../../domain/webhook-events.js';
import type { DeliveryStatus, Webhook, WebhookDelivery as DeliveryOfWebhook, WebhookSettings } from '../../shared/webhooks.js';

export { DELIVERY_STATUSES, type DeliveryStatus } from '../../shared/webhooks.js';

/** A webhook as kept: as the API shows it, in its workspace. */
export interface StoredWebhook extends Webhook {
  workspaceId: string;
}

export interface NewWebhook extends WebhookSettings {
  id: string;
  workspaceId: string;
  secret: string;
  /** Epoch milliseconds. */
  createdAt: number;
}

/** The settings to change; those left out keep their values. */
export type WebhookChanges = Partial<WebhookSettings>;

/** A delivery as kept: as the API shows it, with the webhook it goes to. */
export interface WebhookDelivery extends DeliveryOfWebhook {
  webhookId: string;
}

export interface DeliveryPage {
  limit: number;
  offset: number;
  status: DeliveryStatus | null;
}

/** A webhook's signing secrets: the current one, and the one it replaced while that is still valid (rotation). */
export interface SigningSecrets {
  secret: string;
  previousSecret: string | null;
  /** Epoch milliseconds. */
  previousSecretUntil: number | null;
}

/** A delivery the worker holds until `leaseUntil`: no other worker takes it before then. */
export interface ClaimedDelivery extends SigningSecrets {
  id: string;
  webhookId: string;
  url: string;
  /** Attempts made before this one. */
  attempts: number;
  /** The claim's token: recordAttempt needs it. */
  claimToken: string;
  event: WebhookEvent;
}

export interface DeliveryClaim {
  /** Names this claim: only its holder records the attempt. */
  token: string;
  /**
   * The worker that claims (one per process). Where processes share the store, a worker claims only deliveries of
   * webhooks it holds until `leaseUntil`: one process at a time sends to a webhook, so their attempts start in event
   * order and at most one worker's in-flight limit is open to it.
   */
  holder: string;
  /** Webhooks whose deliveries the worker still has in hand: it keeps holding them even when none is due. */
  inHand: readonly string[];
  now: number;
  leaseUntil: number;
  limit: number;
}

/** A claimed delivery given back unattempted (a worker that stops). */
export interface HeldDelivery {
  id: string;
  claimToken: string;
}

export interface AttemptRecord {
  deliveryId: string;
  claimToken: string;
  statusCode: number | null;
  error: string | null;
  durationMs: number;
  /** Epoch milliseconds. */
  at: number;
  status: DeliveryStatus;
  /** When `status` is pending: the time of the next attempt. */
  nextAttemptAt: number | null;
}

export interface WebhookStore {
  /** Oldest first. */
  list(workspaceId: string): Promise<StoredWebhook[]>;
  get(workspaceId: string, id: string): Promise<StoredWebhook | null>;
  create(webhook: NewWebhook): Promise<StoredWebhook>;
  update(workspaceId: string, id: string, changes: WebhookChanges, now: number): Promise<StoredWebhook | null>;
  /** Deletes the webhook with its deliveries and their attempts. */
  delete(workspaceId: string, id: string): Promise<boolean>;
  /** The new secret signs from now on; the old one too until `previousUntil`. False: no such webhook. */
  rotateSecret(workspaceId: string, id: string, secret: string, previousUntil: number, now: number): Promise<boolean>;
  /** The webhook's deliveries, newest first, with how many there are in all (of that status, when given). */
  deliveries(workspaceId: string, webhookId: string, page: DeliveryPage): Promise<{ total: number; items: WebhookDelivery[] }>;
  /** A new pending delivery of the same event to the same webhook; null when the delivery is not of this workspace. */
  redeliver(workspaceId: string, deliveryId: string, now: number): Promise<WebhookDelivery | null>;
  /** Stores the event (a ping) and its one pending delivery to the webhook; null when there is no such webhook. */
  addEventFor(webhookId: string, event: NewWebhookEvent): Promise<WebhookDelivery | null>;
  /**
   * Called when a delivery worker starts: voids the claims of workers that are gone where that can be known (SQLite,
   * served by one process); on PostgreSQL claims run out with their lease.
   */
  releaseClaims(): Promise<void>;
  /**
   * Whether other processes may write events or hold claims (PostgreSQL): then the worker reads the outbox now and
   * then even when nothing wakes it. SQLite is served by one process, which hears of every event it writes.
   */
  readonly sharedByProcesses: boolean;
  /**
   * Takes up to `limit` pending deliveries that are due and not held, by due time then `sequence` (first attempts are
   * due when the materialiser makes them, a webhook's later ones never before its earlier ones, so they come in event
   * order).
   */
  claimDue(claim: DeliveryClaim): Promise<ClaimedDelivery[]>;
  /** A worker that stops: its unattempted claims are free again, and so are the webhooks it holds (DeliveryClaim.holder). */
  releaseHold(holder: string, unattempted: readonly HeldDelivery[]): Promise<void>;
  /**
   * The webhook is paused until `until` (its receiver keeps failing): in one statement, every pending delivery of it
   * due before then is due at `until` instead (attempts unchanged: none is made meanwhile), except those another claim
   * holds; the claim `claimToken` gives back `released` (its deliveries of the webhook that it does not attempt). The
   * deliveries this process writes for the webhook until then are stored due at `until`.
   */
  putOff(webhookId: string, until: number, released: readonly string[], claimToken: string, now: number): Promise<void>;
  /** Makes the webhook's pending deliveries that wait (a retry, a pause) due now, and ends its pause (it answers again). */
  expedite(webhookId: string, now: number): Promise<void>;
  /**
   * Logs the attempts and moves their deliveries on, in one transaction; for each, false (nothing written) when its
   * claim is no longer held. The claims end with it: a claim whose attempt could not be recorded is retried.
   */
  recordAttempts(attempts: readonly AttemptRecord[]): Promise<boolean[]>;
  /** When the next pending delivery that is not due at `now` becomes due (epoch milliseconds); null when none. */
  nextDueAfter(now: number): Promise<number | null>;
  /** Removes settled deliveries, attempts and events older than `before`; returns how many deliveries went. */
  prune(before: number): Promise<number>;
  /** Calls `listener` after each commit of this process that wrote events (the worker wakes up). */
  onEventsWritten(listener: () => void): void;
}
