// The tenancy half of the store contract: organisations, workspaces, users, tokens, sessions.
import type { Role } from '../../domain/roles.js';
import type { ApiTokenInfo, Workspace } from '../../domain/workspace.js';

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
