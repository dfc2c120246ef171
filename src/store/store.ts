import type { RateLimiterAbstract } from 'rate-limiter-flexible';
import type { ModelShape } from '../domain/model-definition.js';
import type { ModelDefinition, RecordData } from '../domain/fields.js';
import type { FilterNode } from '../domain/filter.js';
import type { ListWindow, RecordQuery } from '../domain/listing.js';
import type { Role } from '../domain/roles.js';
import type { StoredRecord } from '../domain/stored-record.js';
import type { ApiTokenInfo, Workspace } from '../domain/workspace.js';
import type { NewWebhookEvent, WebhookEvent } from '../domain/webhook-events.js';
import type { MemberChange } from '../domain/members.js';

/** The persistence boundary. Every implementation (sqlite/, postgres/) has this shape; nothing outside store/ knows which runs. */
export interface Store {
  readonly tenancy: TenancyStore;
  readonly models: ModelStore;
  readonly records: RecordStore;
  /** Webhooks, their delivery log, and the deliveries the worker sends (the events are written by the record and model writes). */
  readonly webhooks: WebhookStore;
  /** The members of a workspace, as the admin API manages them, and the one-time sign-in links of new users. */
  readonly members: MemberStore;
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

export interface Membership {
  userId: string;
  email: string;
  role: Role;
}

export interface TokenRecord {
  id: string;
  workspaceId: string;
  userId: string;
  role: Role | null;
  expiresAt: string | null;
  revokedAt: string | null;
  /** When a request last authenticated with it, in epoch milliseconds (null: never). */
  lastUsedAt: number | null;
  /** The token's workspace's own write budget (null: the server's default), read in the same query. */
  writeBudget: number | null;
}

export interface BootstrapInput {
  orgSlug: string;
  workspaceSlug: string;
  email: string;
  /** Set on the membership; when null an existing membership keeps its role and a new one is `owner`. */
  role: Role | null;
  defaultRole: Role;
}

export interface NewToken {
  id: string;
  hash: string;
  workspaceId: string;
  userId: string;
  name: string | null;
  expiresAt: string | null;
}

export interface UserRecord {
  id: string;
  email: string;
  /** The scrypt hash (PHC string) of the user's admin password; null: the user cannot sign in. */
  passwordHash: string | null;
}

/** A workspace a user is a member of, with the user's role in it. */
export interface UserWorkspace {
  id: string;
  orgSlug: string;
  slug: string;
  role: Role;
}

/** A user's access to one workspace: the role, and the workspace's own write budget (null: the server default). */
export interface MemberAccess {
  role: Role;
  writeBudget: number | null;
}

/** Times are epoch milliseconds. */
export interface NewSession {
  /** SHA-256 (hex) of the session id; the id itself is only in the browser's cookie. */
  idHash: string;
  userId: string;
  csrfToken: string;
  createdAt: number;
  expiresAt: number;
}

export interface SessionRecord extends NewSession {
  email: string;
  lastSeen: number;
}

/**
 * A workspace and the version of everything its delivery route answers from. `contentVersion` is opaque text that
 * changes with every committed write that can change a delivery answer: a record created, imported, patched,
 * updated or deleted (a forced delete also changes the records that referred to it, all in the same workspace),
 * a model created, changed or deleted. It is made of counters that such writes add to in their own transaction and
 * that never go down: each model's `content_version` (record inserts and deletes, in the statement that keeps the
 * record count; `model.create` starts it at 1, `model.update` adds 1; patches and updates add to it on SQLite, to
 * the workspace's `content_counters` on PostgreSQL), summed, and the workspace's own `content_version`, which a
 * model's deletion adds 1 to as its counter leaves the sum. So it depends on no clock and never comes back to an
 * earlier value. Workspace settings are in `workspace` itself.
 */
export interface VersionedWorkspace {
  workspace: Workspace;
  contentVersion: string;
}

export interface TenancyStore {
  hasAnyOrganisation(): Promise<boolean>;
  /** The first `limit` workspaces by creation, with their organisation's slug (what `serve` prints URLs of). */
  listWorkspaceSlugs(limit: number): Promise<{ org: string; workspace: string }[]>;
  /** Creates the organisation, workspace, user and membership that are missing, in one transaction. */
  ensureMembership(input: BootstrapInput): Promise<{ workspace: Workspace; membership: Membership }>;
  /** Like ensureMembership, for an existing workspace by id; null when the workspace does not exist. */
  ensureMemberOf(workspaceId: string, email: string, role: Role | null, defaultRole: Role): Promise<Membership | null>;
  findWorkspace(id: string): Promise<Workspace | null>;
  findWorkspaceBySlugs(orgSlug: string, workspaceSlug: string): Promise<Workspace | null>;
  /**
   * The workspace by its slugs with its content version, in one query: what the delivery route's ETag is made of
   * (src/server/delivery-cache.ts). Null when there is no such workspace.
   */
  findWorkspaceWithContentVersion(orgSlug: string, workspaceSlug: string): Promise<VersionedWorkspace | null>;
  /**
   * The same, without a promise, where the store knows it without waiting: SQLite reads it synchronously;
   * PostgreSQL returns the version it keeps while its server is the only process on the database, and undefined
   * when only a read can tell. The delivery route's revalidation fast path then answers a 304 with no promise.
   */
  findWorkspaceWithContentVersionSync?(orgSlug: string, workspaceSlug: string): VersionedWorkspace | null | undefined;
  setWriteBudget(workspaceId: string, budget: number | null): Promise<boolean>;
  setDefaultLocale(workspaceId: string, locale: string): Promise<boolean>;
  createToken(token: NewToken): Promise<void>;
  /** The token with its user's current role in the token's workspace. */
  findTokenByHash(hash: string): Promise<TokenRecord | null>;
  revokeToken(id: string): Promise<boolean>;
  /** Records that the token was used at `at` (epoch ms), unless it was already recorded less than `minIntervalMs` before. */
  markTokenUsed(id: string, at: number, minIntervalMs: number): Promise<void>;
  /** Every token of the workspace (any user, revoked and expired ones too), newest first. */
  listTokens(workspaceId: string): Promise<ApiTokenInfo[]>;
  findWorkspaceToken(workspaceId: string, id: string): Promise<ApiTokenInfo | null>;
  /** Revokes a token of that workspace (a revoked one keeps its first revocation time); false when there is no such token there. */
  revokeWorkspaceToken(workspaceId: string, id: string): Promise<boolean>;

  findUserByEmail(email: string): Promise<UserRecord | null>;
  /** Sets the user's password hash and ends all the user's sessions; false when there is no such user. */
  setPasswordHash(email: string, passwordHash: string): Promise<boolean>;
  /** The workspaces the user is a member of, by organisation slug then workspace slug. */
  workspacesOf(userId: string): Promise<UserWorkspace[]>;
  findMember(workspaceId: string, userId: string): Promise<MemberAccess | null>;

  createSession(session: NewSession): Promise<void>;
  /** The session with its user's email, expired or not (the caller checks `expiresAt`). */
  findSession(idHash: string): Promise<SessionRecord | null>;
  /** Records use of the session and moves its expiry (a sliding session). */
  touchSession(idHash: string, lastSeen: number, expiresAt: number): Promise<void>;
  deleteSession(idHash: string): Promise<boolean>;
  /** Removes the sessions that expired before `now`; returns how many. */
  deleteExpiredSessions(now: number): Promise<number>;
}

export interface ModelChange {
  shape: ModelShape;
  removedFieldKeys: string[];
  /** The SKU field after the change, when it differs from before (null: no longer a product). */
  skuFieldChanged: { skuField: string | null } | null;
  /** What the stored records must allow, in order (absent: nothing); the first that fails refuses the change. */
  storedValueChecks?: StoredValueCheck[];
}

/** A condition on a model's stored records that a change of its definition needs. */
export interface StoredValueCheck {
  fieldKey: string;
  /** 'no-values': no record holds a value under the key (its type or settings change); 'all-values': every record does (it becomes required). */
  expect: 'no-values' | 'all-values';
}

export interface ModelStore {
  list(workspaceId: string): Promise<ModelDefinition[]>;
  get(workspaceId: string, id: string): Promise<ModelDefinition | null>;
  getBySlug(workspaceId: string, slug: string): Promise<ModelDefinition | null>;
  /** Throws CONFLICT on a slug used in the workspace. */
  create(workspaceId: string, id: string, shape: ModelShape): Promise<ModelDefinition>;
  /**
   * Applies a change planned against `model`, in one transaction that first waits for the record writes of the model
   * under way and makes later ones wait, then checks the stored records (`storedValueChecks`). Throws
   * ChecksOutdated when the model's definition is no longer the version `model` has (or the model is gone), the
   * refusal of the first check that fails, or CONFLICT when the new SKU field has duplicates.
   */
  update(model: ModelDefinition, change: ModelChange): Promise<ModelDefinition>;
  delete(workspaceId: string, id: string): Promise<boolean>;
  /** How many records of the model have a non-null value under `key`. */
  countRecordsWithValue(modelId: string, key: string): Promise<number>;
}

/** Where a page ended: the sort key (epoch milliseconds) and id of its last record. */
export interface PageCursor {
  time: number;
  id: string;
}

export interface RecordLink {
  fieldKey: string;
  targetId: string;
}

export interface NewRecord extends ReplacementData {
  id: string;
}

export interface WriteContext {
  model: ModelDefinition;
  userId: string | null;
}

export interface ReplacementData {
  data: RecordData;
  /** `data` as the JSON text to store (made once, when its size was checked). */
  dataText: string;
  sku: string | null;
  links: RecordLink[];
}

export interface Reference {
  sourceId: string;
  modelSlug: string;
  fieldKey: string;
}

export interface RecordStore {
  /**
   * Throws CONFLICT naming the SKU field when the SKU is taken. The record is stored only while the model's definition
   * is the version of `context.model` and every link's target exists, checked in the write itself, which a model
   * update or record delete under way is waited for by (or waits for): otherwise nothing is written and it throws
   * ChecksOutdated (the caller checks the data again).
   */
  insert(context: WriteContext, record: NewRecord): Promise<StoredRecord>;
  /**
   * Inserts in one transaction; rows whose SKU is taken (stored or earlier in the batch) are skipped and their indexes
   * returned. Stored only under the same conditions as `insert` (ChecksOutdated otherwise: nothing written).
   */
  insertMany(context: WriteContext, records: NewRecord[]): Promise<{ skippedForSku: number[] }>;
  get(workspaceId: string, id: string): Promise<StoredRecord | null>;
  /**
   * The records of the workspace among `ids` (of `reading.modelId` only, when given), in one query, in no
   * particular order; missing ids are left out. With `reading.maxDataBytes`, the database measures their data
   * first: over the bound, no data is read and the answer is 'too-large'.
   */
  getMany(workspaceId: string, ids: readonly string[], reading?: ManyReading): Promise<StoredRecord[] | 'too-large'>;
  /**
   * Reads the record and writes `change(current, version)` atomically: no other write of the same record can come
   * between the read and the write, and no change of its model's definition, whose version (definitionVersion) is
   * `version`. The links written must have their targets (ChecksOutdated otherwise: nothing written). Returns null
   * when the record does not exist.
   */
  modify(
    workspaceId: string,
    id: string,
    userId: string | null,
    change: (current: StoredRecord, definitionVersion: number) => ReplacementData,
  ): Promise<StoredRecord | null>;
  /** Records (other than `id` itself) whose relation fields point at `id`. */
  referencesTo(id: string): Promise<Reference[]>;
  /**
   * Deletes the record and, with `force`, removes the references to it in one transaction, which also checks for
   * references (a write linking to the record waits for it, or it for that write).
   */
  delete(workspaceId: string, id: string, force: boolean): Promise<'deleted' | 'not-found' | Reference[]>;
  /** Which of `ids` are records of the model. */
  existingIds(modelId: string, ids: string[]): Promise<Set<string>>;
  /**
   * A page in the window's order. With `after`, the page starts right after that record instead of skipping
   * `window.offset` rows: the same page when nothing was inserted or deleted in between, without the scan.
   */
  list(modelId: string, window: ListWindow, after?: PageCursor, reading?: PageReading): Promise<StoredRecord[]>;
  /**
   * A page of the model's records that match the query's filter, in its order (a field sort puts the records
   * missing the field last). For plain pages (no filter, a timestamp order) `list` is the faster path.
   */
  find(modelId: string, query: RecordQuery, reading?: PageReading): Promise<StoredRecord[]>;
  /** How many of the model's records match the filter. */
  count(modelId: string, filter: FilterNode): Promise<number>;
  /**
   * The model that `key` names in the workspace, and the page of its records at the window (skipping
   * `window.offset` rows), read together: on PostgreSQL in one statement, so one round trip to the database
   * instead of two, and the page and the model's record count from one snapshot. Null when the workspace has no
   * such model. `reading.maxDataBytes` bounds the page only when the model holds large records, as `list` does
   * when given the bound for such a model.
   */
  listWithModel(workspaceId: string, key: ModelKey, window: ListWindow, reading: PageReading): Promise<ModelPage | null>;
}

/** A model named by its id or by its slug, within a workspace. */
export type ModelKey = { id: string } | { slug: string };

export interface ModelPage {
  model: ModelDefinition;
  items: StoredRecord[];
}

/** How getMany reads (default: records of any model, no size bound). */
export interface ManyReading {
  modelId?: string | null;
  maxDataBytes?: number | null;
  /**
   * The caller never changes the records it gets (nor settles their lazy `data`), so a store may give records it
   * keeps between reads, when it can tell they have not changed since (SQLite: by their model's content version).
   */
  shared?: boolean;
}

/** How a page's records are read (default: with their data, no size bound). */
export interface PageReading {
  /** Read `data`; false for an answer that does not select it (records then come with an empty `data`). */
  data: boolean;
  /**
   * When set, the database measures the page's data first and a page over this many bytes is refused with
   * pageTooLargeError before more than that is read; null when the model's records are all small.
   */
  maxDataBytes: number | null;
}

export const FULL_PAGE: PageReading = { data: true, maxDataBytes: null };

export interface StoredWebhook {
  id: string;
  workspaceId: string;
  url: string;
  events: string[];
  /** null: every model. */
  modelIds: string[] | null;
  description: string | null;
  active: boolean;
  createdAt: string;
  updatedAt: string;
}

export interface NewWebhook {
  id: string;
  workspaceId: string;
  url: string;
  events: string[];
  modelIds: string[] | null;
  description: string | null;
  active: boolean;
  secret: string;
  /** Epoch milliseconds. */
  createdAt: number;
}

/** The settings to change; those left out keep their values. */
export interface WebhookChanges {
  url?: string;
  events?: string[];
  modelIds?: string[] | null;
  description?: string | null;
  active?: boolean;
}

export type DeliveryStatus = 'pending' | 'succeeded' | 'failed';
export const DELIVERY_STATUSES: readonly DeliveryStatus[] = ['pending', 'succeeded', 'failed'];

export interface WebhookDelivery {
  id: string;
  webhookId: string;
  eventId: string;
  eventType: string;
  status: DeliveryStatus;
  attempts: number;
  lastStatusCode: number | null;
  lastError: string | null;
  /** How long the last attempt took, milliseconds; null before the first. */
  duration: number | null;
  nextAttemptAt: string | null;
  createdAt: string;
  updatedAt: string;
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

export interface MemberInfo {
  userId: string;
  email: string;
  role: Role;
  /** The user can sign in to the admin application with a password. */
  hasPassword: boolean;
  /** When the user became a member (ISO 8601); null for members added before this was recorded. */
  addedAt: string | null;
}

/** A member just added, with what decides whether the admin gets a sign-in link for the user. */
export interface AddedMember {
  member: MemberInfo;
  /** Workspaces other than this one the user is a member of. */
  otherWorkspaces: number;
}

export interface NewSignInLink {
  /** SHA-256 (hex) of the link's token; the token itself is only in the link. */
  tokenHash: string;
  workspaceId: string;
  userId: string;
  createdBy: string;
  /** Epoch milliseconds. */
  createdAt: number;
  expiresAt: number;
}

export interface MemberStore {
  /** The workspace's members, by email. */
  list(workspaceId: string): Promise<MemberInfo[]>;
  /** Adds the user (created without a password when there is none with that email); 'already-member' changes nothing. */
  add(workspaceId: string, email: string, role: Role, now: number): Promise<AddedMember | 'already-member'>;
  /**
   * Changes a member in one transaction that no other change of the workspace's members comes between: `check`
   * gets the member's role and the workspace's number of owners and throws to refuse (nothing changes). Removing
   * a member also revokes the user's API tokens of the workspace and voids the user's sign-in links there.
   * Null: no such member; 'removed' after a removal.
   */
  change(
    workspaceId: string,
    userId: string,
    change: MemberChange,
    check: (current: Role, owners: number) => void,
    now: number,
  ): Promise<MemberInfo | 'removed' | null>;
  /** Stores a sign-in link; the user's earlier links to the workspace stop working. */
  createSignInLink(link: NewSignInLink): Promise<void>;
  /**
   * Uses the link: when it is unused, unexpired, its user still a member of its workspace only and without a
   * password, sets the password hash and marks the link used, in one transaction; otherwise null and no change.
   */
  useSignInLink(tokenHash: string, passwordHash: string, now: number): Promise<{ userId: string; email: string } | null>;
  /** The email of the link's user, while the link could be used (see useSignInLink); null otherwise. */
  findSignInLink(tokenHash: string, now: number): Promise<{ email: string } | null>;
}
