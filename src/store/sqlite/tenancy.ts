import type Database from 'better-sqlite3';
import { preparedOnce } from './sql.js';
import { newId } from '../../ids.js';
import { membershipRole, type Role } from '../../domain/roles.js';
import type { ApiTokenInfo, Workspace } from '../../domain/workspace.js';
import type {
  BootstrapInput,
  MemberAccess,
  Membership,
  NewSession,
  NewToken,
  SessionRecord,
  TenancyStore,
  TokenRecord,
  UserRecord,
  UserWorkspace,
  VersionedWorkspace,
} from '../store.js';
import { SESSION_SELECT, toSession, type SessionRow } from '../rows/session-rows.js';
import {
  TOKEN_INFO_SELECT,
  TOKEN_SELECT,
  toApiTokenInfo,
  toTokenRecord,
  type TokenInfoRow,
  type TokenRow,
} from '../rows/token-rows.js';
import {
  toUserWorkspace,
  toWorkspace,
  USER_WORKSPACES_SELECT,
  WORKSPACE_SELECT,
  type WorkspaceRow,
} from '../rows/workspace-rows.js';

/** The workspace's counter and the sum of its models' (see VersionedWorkspace). */
const VERSIONED_WORKSPACE_SELECT = `SELECT ws.*,
    (SELECT content_version FROM workspaces WHERE id = ws.id) || '|' ||
      (SELECT coalesce(sum(content_version), 0) FROM models WHERE workspace_id = ws.id) AS content_version
  FROM (${WORKSPACE_SELECT} WHERE o.slug = ? AND w.slug = ?) ws`;

type VersionedWorkspaceRow = WorkspaceRow & { content_version: string };

/** How many workspaces' versions are kept at most (all are forgotten at once when the bound is reached). */
const MAX_KEPT_VERSIONS = 1000;

export class SqliteTenancyStore implements TenancyStore {
  private readonly prepare: (sql: string) => Database.Statement;
  private readonly versionedWorkspace: Database.Statement;
  private readonly dataVersion: Database.Statement;
  private readonly totalChanges: Database.Statement;
  /** Versioned workspaces by `org slug / workspace slug` (null: none), read while the two counters below stood as they are. */
  private readonly keptVersions = new Map<string, VersionedWorkspace | null>();
  private keptDataVersion = -1;
  private keptTotalChanges = -1;

  constructor(private readonly db: Database.Database) {
    this.prepare = preparedOnce(db);
    this.versionedWorkspace = db.prepare(VERSIONED_WORKSPACE_SELECT);
    this.dataVersion = db.prepare('PRAGMA data_version').pluck();
    this.totalChanges = db.prepare('SELECT total_changes()').pluck();
  }

  async hasAnyOrganisation(): Promise<boolean> {
    return this.prepare('SELECT 1 FROM organisations LIMIT 1').get() !== undefined;
  }

  async listWorkspaceSlugs(limit: number): Promise<{ org: string; workspace: string }[]> {
    return this.prepare(
      `SELECT o.slug AS org, w.slug AS workspace FROM workspaces w JOIN organisations o ON o.id = w.org_id
       ORDER BY w.created_at, w.id LIMIT ?`,
    ).all(limit) as { org: string; workspace: string }[];
  }

  async ensureMembership(input: BootstrapInput): Promise<{ workspace: Workspace; membership: Membership }> {
    const run = this.db.transaction(() => {
      const now = Date.now();
      let org = this.prepare('SELECT id FROM organisations WHERE slug = ?').get(input.orgSlug) as { id: string } | undefined;
      if (!org) {
        org = { id: newId() };
        this.prepare('INSERT INTO organisations (id, slug, created_at) VALUES (?, ?, ?)').run(org.id, input.orgSlug, now);
      }
      let row = this.prepare(`${WORKSPACE_SELECT} WHERE w.org_id = ? AND w.slug = ?`).get(org.id, input.workspaceSlug) as
        WorkspaceRow | undefined;
      if (!row) {
        const id = newId();
        this.prepare('INSERT INTO workspaces (id, org_id, slug, created_at) VALUES (?, ?, ?, ?)').run(
          id,
          org.id,
          input.workspaceSlug,
          now,
        );
        row = {
          id,
          slug: input.workspaceSlug,
          org_id: org.id,
          org_slug: input.orgSlug,
          write_budget: null,
          default_locale: 'en',
        };
      }
      const membership = this.upsertMembership(row.id, input.email, input.role, input.defaultRole);
      return { workspace: toWorkspace(row), membership };
    });
    return run.immediate();
  }

  async ensureMemberOf(workspaceId: string, email: string, role: Role | null, defaultRole: Role): Promise<Membership | null> {
    const run = this.db.transaction(() => {
      const exists = this.prepare('SELECT 1 FROM workspaces WHERE id = ?').get(workspaceId);
      return exists ? this.upsertMembership(workspaceId, email, role, defaultRole) : null;
    });
    return run.immediate();
  }

  private upsertMembership(workspaceId: string, email: string, role: Role | null, defaultRole: Role): Membership {
    let user = this.prepare('SELECT id FROM users WHERE email = ?').get(email) as { id: string } | undefined;
    if (!user) {
      user = { id: newId() };
      this.prepare('INSERT INTO users (id, email, created_at) VALUES (?, ?, ?)').run(user.id, email, Date.now());
    }
    const current = this.prepare('SELECT role FROM memberships WHERE workspace_id = ? AND user_id = ?').get(
      workspaceId,
      user.id,
    ) as { role: Role } | undefined;
    const finalRole = membershipRole(role, current?.role, defaultRole);
    if (!current) {
      this.prepare('INSERT INTO memberships (workspace_id, user_id, role, created_at) VALUES (?, ?, ?, ?)').run(
        workspaceId,
        user.id,
        finalRole,
        Date.now(),
      );
    } else if (current.role !== finalRole) {
      this.prepare('UPDATE memberships SET role = ? WHERE workspace_id = ? AND user_id = ?').run(finalRole, workspaceId, user.id);
    }
    return { userId: user.id, email, role: finalRole };
  }

  async findWorkspace(id: string): Promise<Workspace | null> {
    const row = this.prepare(`${WORKSPACE_SELECT} WHERE w.id = ?`).get(id) as WorkspaceRow | undefined;
    return row ? toWorkspace(row) : null;
  }

  async findWorkspaceBySlugs(orgSlug: string, workspaceSlug: string): Promise<Workspace | null> {
    const row = this.prepare(`${WORKSPACE_SELECT} WHERE o.slug = ? AND w.slug = ?`).get(orgSlug, workspaceSlug) as
      WorkspaceRow | undefined;
    return row ? toWorkspace(row) : null;
  }

  /**
   * Read once, then kept while the database is unchanged: while no other connection has committed (`PRAGMA
   * data_version`, which moves when one has: another process on the same file, or the checkpointer) and this one
   * has changed no row (`total_changes()`, which counts every row an INSERT, UPDATE or DELETE of this connection
   * touched, committed or not). Every write that moves a content version or a workspace setting changes a row, so
   * a kept version is the one the query would read; the two checks cost one read lock (~4 µs) where the query
   * cost ~11 µs. Transactions here never span an await, so none is open when this runs (checked anyway).
   */
  async findWorkspaceWithContentVersion(orgSlug: string, workspaceSlug: string): Promise<VersionedWorkspace | null> {
    return this.findWorkspaceWithContentVersionSync(orgSlug, workspaceSlug);
  }

  findWorkspaceWithContentVersionSync(orgSlug: string, workspaceSlug: string): VersionedWorkspace | null {
    if (this.db.inTransaction) return this.readVersionedWorkspace(orgSlug, workspaceSlug);
    const dataVersion = this.dataVersion.get() as number;
    const totalChanges = this.totalChanges.get() as number;
    if (
      dataVersion !== this.keptDataVersion ||
      totalChanges !== this.keptTotalChanges ||
      this.keptVersions.size >= MAX_KEPT_VERSIONS
    ) {
      this.keptVersions.clear();
      this.keptDataVersion = dataVersion;
      this.keptTotalChanges = totalChanges;
    }
    // The org slug's length first: a slug may hold any character, the key is still unambiguous.
    const key = `${orgSlug.length}:${orgSlug}/${workspaceSlug}`;
    let versioned = this.keptVersions.get(key);
    if (versioned === undefined) {
      versioned = this.readVersionedWorkspace(orgSlug, workspaceSlug);
      this.keptVersions.set(key, versioned);
    }
    return versioned;
  }

  private readVersionedWorkspace(orgSlug: string, workspaceSlug: string): VersionedWorkspace | null {
    const row = this.versionedWorkspace.get(orgSlug, workspaceSlug) as VersionedWorkspaceRow | undefined;
    return row ? { workspace: toWorkspace(row), contentVersion: row.content_version } : null;
  }

  async setWriteBudget(workspaceId: string, budget: number | null): Promise<boolean> {
    return this.prepare('UPDATE workspaces SET write_budget = ? WHERE id = ?').run(budget, workspaceId).changes > 0;
  }

  async setDefaultLocale(workspaceId: string, locale: string): Promise<boolean> {
    return this.prepare('UPDATE workspaces SET default_locale = ? WHERE id = ?').run(locale, workspaceId).changes > 0;
  }

  async createToken(token: NewToken): Promise<void> {
    this.prepare(
      `INSERT INTO api_tokens (id, token_hash, workspace_id, user_id, name, created_at, expires_at)
         VALUES (?, ?, ?, ?, ?, ?, ?)`,
    ).run(
      token.id,
      token.hash,
      token.workspaceId,
      token.userId,
      token.name,
      Date.now(),
      token.expiresAt === null ? null : Date.parse(token.expiresAt),
    );
  }

  async findTokenByHash(hash: string): Promise<TokenRecord | null> {
    const row = this.prepare(`${TOKEN_SELECT} WHERE t.token_hash = ?`).get(hash) as TokenRow | undefined;
    return row ? toTokenRecord(row) : null;
  }

  async markTokenUsed(id: string, at: number, minIntervalMs: number): Promise<void> {
    this.db
      .prepare('UPDATE api_tokens SET last_used_at = ? WHERE id = ? AND (last_used_at IS NULL OR last_used_at <= ?)')
      .run(at, id, at - minIntervalMs);
  }

  async revokeToken(id: string): Promise<boolean> {
    return (
      this.prepare('UPDATE api_tokens SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL').run(Date.now(), id).changes > 0
    );
  }

  async listTokens(workspaceId: string): Promise<ApiTokenInfo[]> {
    const rows = this.prepare(`${TOKEN_INFO_SELECT} WHERE t.workspace_id = ? ORDER BY t.created_at DESC, t.id DESC`).all(
      workspaceId,
    ) as TokenInfoRow[];
    return rows.map(toApiTokenInfo);
  }

  async findWorkspaceToken(workspaceId: string, id: string): Promise<ApiTokenInfo | null> {
    const row = this.prepare(`${TOKEN_INFO_SELECT} WHERE t.workspace_id = ? AND t.id = ?`).get(workspaceId, id) as
      TokenInfoRow | undefined;
    return row ? toApiTokenInfo(row) : null;
  }

  async revokeWorkspaceToken(workspaceId: string, id: string): Promise<boolean> {
    const result = this.prepare(
      'UPDATE api_tokens SET revoked_at = COALESCE(revoked_at, ?) WHERE id = ? AND workspace_id = ?',
    ).run(Date.now(), id, workspaceId);
    return result.changes > 0;
  }

  async findUserByEmail(email: string): Promise<UserRecord | null> {
    const row = this.prepare('SELECT id, email, password_hash FROM users WHERE email = ?').get(email) as
      { id: string; email: string; password_hash: string | null } | undefined;
    return row ? { id: row.id, email: row.email, passwordHash: row.password_hash } : null;
  }

  async setPasswordHash(email: string, passwordHash: string): Promise<boolean> {
    const run = this.db.transaction(() => {
      const user = this.prepare('SELECT id FROM users WHERE email = ?').get(email) as { id: string } | undefined;
      if (!user) return false;
      this.prepare('UPDATE users SET password_hash = ? WHERE id = ?').run(passwordHash, user.id);
      this.prepare('DELETE FROM sessions WHERE user_id = ?').run(user.id);
      return true;
    });
    return run.immediate();
  }

  async workspacesOf(userId: string): Promise<UserWorkspace[]> {
    const rows = this.prepare(`${USER_WORKSPACES_SELECT} WHERE m.user_id = ? ORDER BY o.slug, w.slug, w.id`).all(userId) as {
      id: string;
      org_slug: string;
      slug: string;
      role: Role;
    }[];
    return rows.map(toUserWorkspace);
  }

  async findMember(workspaceId: string, userId: string): Promise<MemberAccess | null> {
    const row = this.prepare(
      `SELECT m.role, w.write_budget FROM memberships m JOIN workspaces w ON w.id = m.workspace_id
         WHERE m.workspace_id = ? AND m.user_id = ?`,
    ).get(workspaceId, userId) as { role: Role; write_budget: number | null } | undefined;
    return row ? { role: row.role, writeBudget: row.write_budget } : null;
  }

  async createSession(session: NewSession): Promise<void> {
    this.prepare(
      `INSERT INTO sessions (id_hash, user_id, csrf_token, created_at, expires_at, last_seen)
         VALUES (?, ?, ?, ?, ?, ?)`,
    ).run(session.idHash, session.userId, session.csrfToken, session.createdAt, session.expiresAt, session.createdAt);
  }

  async findSession(idHash: string): Promise<SessionRecord | null> {
    const row = this.prepare(`${SESSION_SELECT} WHERE s.id_hash = ?`).get(idHash) as SessionRow | undefined;
    return row ? toSession(row) : null;
  }

  async touchSession(idHash: string, lastSeen: number, expiresAt: number): Promise<void> {
    this.prepare('UPDATE sessions SET last_seen = ?, expires_at = ? WHERE id_hash = ?').run(lastSeen, expiresAt, idHash);
  }

  async deleteSession(idHash: string): Promise<boolean> {
    return this.prepare('DELETE FROM sessions WHERE id_hash = ?').run(idHash).changes > 0;
  }

  async deleteExpiredSessions(now: number): Promise<number> {
    return this.prepare('DELETE FROM sessions WHERE expires_at <= ?').run(now).changes;
  }
}
