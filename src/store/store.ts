import type { RateLimiterAbstract } from 'rate-limiter-flexible';
import type { TenancyStore } from './contract/tenancy.js';
import type { ModelStore, PublishedReads, RecordStore } from './contract/records.js';
import type { WebhookStore } from './contract/webhooks.js';
import type { MemberStore } from './contract/members.js';
import type { HistoryStore } from './contract/history.js';
import type { PublishingStore } from './contract/publishing.js';
import type { ScheduleStore } from './contract/schedules.js';
import type { AssetStore } from './contract/assets.js';

export * from './contract/tenancy.js';
export * from './contract/records.js';
export * from './contract/webhooks.js';
export * from './contract/members.js';
export * from './contract/history.js';
export * from './contract/publishing.js';
export * from './contract/schedules.js';
export * from './contract/assets.js';

/** The persistence boundary. Every implementation (sqlite/, postgres/) has this shape; nothing outside store/ knows which runs. */
export interface Store {
  readonly tenancy: TenancyStore;
  readonly models: ModelStore;
  readonly records: RecordStore;
  /** The published copies of drafts models' records (what the delivery route serves of such a model). */
  readonly published: PublishedReads;
  /** Publishing and unpublishing drafts models' records. */
  readonly publishing: PublishingStore;
  /** Publishes and unpublishes at set times. */
  readonly schedules: ScheduleStore;
  /** The rows of uploaded files (their bytes are in media storage, src/media); media fields link records to them. */
  readonly assets: AssetStore;
  /** Webhooks, their delivery log, and the deliveries the worker sends (the events are written by the record and model writes). */
  readonly webhooks: WebhookStore;
  /** The members of a workspace, as the admin API manages them, and the one-time sign-in links of new users. */
  readonly members: MemberStore;
  /** Records' revisions: what their changes replaced, deleted records' last data. */
  readonly history: HistoryStore;
  /**
   * Limiters kept in the database, so that every server process on it shares one write budget;
   * null when the database serves a single process and the budget can be counted in memory.
   */
  readonly sharedLimiters: LimiterFactory | null;
  /** Is the database answering? For /healthz. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

/** What the write budget and the sign-in limits use of a limiter: charge points, give them back, read what is used. */
export type Limiter = Pick<RateLimiterAbstract, 'consume' | 'reward' | 'get'>;

/**
 * Makes the limiter that counts one budget size (src/budget: the write budget; src/auth: the sign-in limits): in
 * memory, or in a database or Redis every server process shares. `keyPrefix` keeps the counters of different limits
 * apart in a shared store (the write budget uses the default, `workspace`). Declared here, below the budget, because
 * a store is one of the places that makes them (`Store.sharedLimiters`). The limiters keep their own time (the
 * window starts at a key's first charge), so they take no clock.
 */
export type LimiterFactory = (points: number, durationSeconds: number, keyPrefix?: string) => Limiter;
