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
import type { StepRunner } from './runner.js';
import { all, allNamed, one, run, type Steps } from './steps.js';

/**
 * What each database reads its own way: the content version behind every delivery ETag (each keeps it between
 * writes by its own means) and, on PostgreSQL, tokens kept while its server is the only process on the schema.
 */
export interface TenancyReads {
  findWorkspaceWithContentVersion(orgSlug: string, workspaceSlug: string): Promise<VersionedWorkspace | null>;
  findWorkspaceWithContentVersionSync?(orgSlug: string, workspaceSlug: string): VersionedWorkspace | null | undefined;
  /** `read` itself, or a copy of what it answered while nothing can have changed it. */
  keptToken?(hash: string, read: () => Promise<TokenRecord | null>): Promise<TokenRecord | null>;
}

/**
 * Every "create when missing" is `INSERT … ON CONFLICT DO NOTHING` and then a read: when two processes bootstrap
 * the same names at once, the second insert waits for the first transaction and then finds its row.
 */
export class CoreTenancyStore implements TenancyStore {
  readonly findWorkspaceWithContentVersionSync?: TenancyStore['findWorkspaceWithContentVersionSync'];

  constructor(
    private readonly db: StepRunner,
    private readonly reads: TenancyReads,
  ) {
    if (reads.findWorkspaceWithContentVersionSync) {
      this.findWorkspaceWithContentVersionSync = reads.findWorkspaceWithContentVersionSync.bind(reads);
    }
  }

  async hasAnyOrganisation(): Promise<boolean> {
    return (await this.db.read(one('SELECT 1 FROM organisations LIMIT 1'))) !== undefined;
  }

  listWorkspaceSlugs(limit: number): Promise<{ org: string; workspace: string }[]> {
    return this.db.read(
      all<{ org: string; workspace: string }>(
        `SELECT o.slug AS org, w.slug AS workspace FROM workspaces w JOIN organisations o ON o.id = w.org_id
         ORDER BY w.created_at, w.id LIMIT ?`,
        limit,
      ),
    );
  }

  ensureMembership(input: BootstrapInput): Promise<{ workspace: Workspace; membership: Membership }> {
    return this.db.transaction(ensureMembership(input));
  }

  ensureMemberOf(workspaceId: string, email: string, role: Role | null, defaultRole: Role): Promise<Membership | null> {
    return this.db.transaction(ensureMemberOf(workspaceId, email, role, defaultRole));
  }

  async findWorkspace(id: string): Promise<Workspace | null> {
    const row = await this.db.read(one<WorkspaceRow>(`${WORKSPACE_SELECT} WHERE w.id = ?`, id));
    return row ? toWorkspace(row) : null;
  }

  async findWorkspaceBySlugs(orgSlug: string, workspaceSlug: string): Promise<Workspace | null> {
    const [row] = await this.db.read(
      allNamed<WorkspaceRow>('workspace_by_slugs', `${WORKSPACE_SELECT} WHERE o.slug = ? AND w.slug = ?`, orgSlug, workspaceSlug),
    );
    return row ? toWorkspace(row) : null;
  }

  findWorkspaceWithContentVersion(orgSlug: string, workspaceSlug: string): Promise<VersionedWorkspace | null> {
    return this.reads.findWorkspaceWithContentVersion(orgSlug, workspaceSlug);
  }

  async setWriteBudget(workspaceId: string, budget: number | null): Promise<boolean> {
    return (await this.db.read(run('UPDATE workspaces SET write_budget = ? WHERE id = ?', budget, workspaceId))) > 0;
  }

  async setDefaultLocale(workspaceId: string, locale: string): Promise<boolean> {
    return (await this.db.read(run('UPDATE workspaces SET default_locale = ? WHERE id = ?', locale, workspaceId))) > 0;
  }

  async createToken(token: NewToken): Promise<void> {
    await this.db.read(
      run(
        `INSERT INTO api_tokens (id, token_hash, workspace_id, user_id, name, created_at, expires_at)
         VALUES (?, ?, ?, ?, ?, ?, ?)`,
        token.id,
        token.hash,
        token.workspaceId,
        token.userId,
        token.name,
        Date.now(),
        token.expiresAt === null ? null : Date.parse(token.expiresAt),
      ),
    );
  }

  findTokenByHash(hash: string): Promise<TokenRecord | null> {
    const read = async () => {
      const [row] = await this.db.read(allNamed<TokenRow>('token_by_hash', `${TOKEN_SELECT} WHERE t.token_hash = ?`, hash));
      return row ? toTokenRecord(row) : null;
    };
    return this.reads.keptToken ? this.reads.keptToken(hash, read) : read();
  }

  async markTokenUsed(id: string, at: number, minIntervalMs: number): Promise<void> {
    await this.db.read(
      run(
        'UPDATE api_tokens SET last_used_at = ? WHERE id = ? AND (last_used_at IS NULL OR last_used_at <= ?)',
        at,
        id,
        at - minIntervalMs,
      ),
    );
  }

  async revokeToken(id: string): Promise<boolean> {
    return (
      (await this.db.read(run('UPDATE api_tokens SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL', Date.now(), id))) > 0
    );
  }

  async listTokens(workspaceId: string): Promise<ApiTokenInfo[]> {
    const rows = await this.db.read(
      all<TokenInfoRow>(`${TOKEN_INFO_SELECT} WHERE t.workspace_id = ? ORDER BY t.created_at DESC, t.id DESC`, workspaceId),
    );
    return rows.map(toApiTokenInfo);
  }

  async findWorkspaceToken(workspaceId: string, id: string): Promise<ApiTokenInfo | null> {
    const row = await this.db.read(
      one<TokenInfoRow>(`${TOKEN_INFO_SELECT} WHERE t.workspace_id = ? AND t.id = ?`, workspaceId, id),
    );
    return row ? toApiTokenInfo(row) : null;
  }

  async revokeWorkspaceToken(workspaceId: string, id: string): Promise<boolean> {
    const changed = await this.db.read(
      run(
        'UPDATE api_tokens SET revoked_at = COALESCE(revoked_at, ?) WHERE id = ? AND workspace_id = ?',
        Date.now(),
        id,
        workspaceId,
      ),
    );
    return changed > 0;
  }

  async findUserByEmail(email: string): Promise<UserRecord | null> {
    const row = await this.db.read(
      one<{ id: string; email: string; password_hash: string | null }>(
        'SELECT id, email, password_hash FROM users WHERE email = ?',
        email,
      ),
    );
    return row ? { id: row.id, email: row.email, passwordHash: row.password_hash } : null;
  }

  setPasswordHash(email: string, passwordHash: string): Promise<boolean> {
    return this.db.transaction(setPasswordHash(email, passwordHash));
  }

  async workspacesOf(userId: string): Promise<UserWorkspace[]> {
    const order = this.db.sql.byteOrder;
    const rows = await this.db.read(
      all<{ id: string; org_slug: string; slug: string; role: Role }>(
        `${USER_WORKSPACES_SELECT} WHERE m.user_id = ? ORDER BY o.slug${order}, w.slug${order}, w.id`,
        userId,
      ),
    );
    return rows.map(toUserWorkspace);
  }

  async findMember(workspaceId: string, userId: string): Promise<MemberAccess | null> {
    const row = await this.db.read(
      one<{ role: Role; write_budget: number | null }>(
        `SELECT m.role, w.write_budget FROM memberships m JOIN workspaces w ON w.id = m.workspace_id
         WHERE m.workspace_id = ? AND m.user_id = ?`,
        workspaceId,
        userId,
      ),
    );
    return row ? { role: row.role, writeBudget: row.write_budget } : null;
  }

  async createSession(session: NewSession): Promise<void> {
    await this.db.read(
      run(
        `INSERT INTO sessions (id_hash, user_id, csrf_token, created_at, expires_at, last_seen)
         VALUES (?, ?, ?, ?, ?, ?)`,
        session.idHash,
        session.userId,
        session.csrfToken,
        session.createdAt,
        session.expiresAt,
        session.createdAt,
      ),
    );
  }

  async findSession(idHash: string): Promise<SessionRecord | null> {
    const row = await this.db.read(one<SessionRow>(`${SESSION_SELECT} WHERE s.id_hash = ?`, idHash));
    return row ? toSession(row) : null;
  }

  async touchSession(idHash: string, lastSeen: number, expiresAt: number): Promise<void> {
    await this.db.read(run('UPDATE sessions SET last_seen = ?, expires_at = ? WHERE id_hash = ?', lastSeen, expiresAt, idHash));
  }

  async deleteSession(idHash: string): Promise<boolean> {
    return (await this.db.read(run('DELETE FROM sessions WHERE id_hash = ?', idHash))) > 0;
  }

  deleteExpiredSessions(now: number): Promise<number> {
    return this.db.read(run('DELETE FROM sessions WHERE expires_at <= ?', now));
  }
}

function* ensureMembership(input: BootstrapInput): Steps<{ workspace: Workspace; membership: Membership }> {
  const now = Date.now();
  yield* run(
    'INSERT INTO organisations (id, slug, created_at) VALUES (?, ?, ?) ON CONFLICT (slug) DO NOTHING',
    newId(),
    input.orgSlug,
    now,
  );
  const org = (yield* one<{ id: string }>('SELECT id FROM organisations WHERE slug = ?', input.orgSlug))!;
  yield* run(
    'INSERT INTO workspaces (id, org_id, slug, created_at) VALUES (?, ?, ?, ?) ON CONFLICT (org_id, slug) DO NOTHING',
    newId(),
    org.id,
    input.workspaceSlug,
    now,
  );
  const row = (yield* one<WorkspaceRow>(`${WORKSPACE_SELECT} WHERE w.org_id = ? AND w.slug = ?`, org.id, input.workspaceSlug))!;
  const membership = yield* upsertMembership(row.id, input.email, input.role, input.defaultRole);
  return { workspace: toWorkspace(row), membership };
}

function* ensureMemberOf(workspaceId: string, email: string, role: Role | null, defaultRole: Role): Steps<Membership | null> {
  const exists = yield* one('SELECT 1 FROM workspaces WHERE id = ?', workspaceId);
  return exists ? yield* upsertMembership(workspaceId, email, role, defaultRole) : null;
}

/**
 * The user (created when missing) with a role in the workspace, by membershipRole: a new member gets it here, and an
 * existing one keeps the current role unless one is asked for (`COALESCE(role, memberships.role)`, the same rule in
 * the upsert, so that two concurrent additions cannot both read "no member yet").
 */
function* upsertMembership(workspaceId: string, email: string, role: Role | null, defaultRole: Role): Steps<Membership> {
  yield* run(
    'INSERT INTO users (id, email, created_at) VALUES (?, ?, ?) ON CONFLICT (email) DO NOTHING',
    newId(),
    email,
    Date.now(),
  );
  const user = (yield* one<{ id: string }>('SELECT id FROM users WHERE email = ?', email))!;
  const upserted = (yield* one<{ role: Role }>(
    `INSERT INTO memberships (workspace_id, user_id, role, created_at) VALUES (?, ?, ?, ?)
     ON CONFLICT (workspace_id, user_id) DO UPDATE SET role = COALESCE(?, memberships.role)
     RETURNING role`,
    workspaceId,
    user.id,
    membershipRole(role, undefined, defaultRole),
    Date.now(),
    role,
  ))!;
  return { userId: user.id, email, role: upserted.role };
}

function* setPasswordHash(email: string, passwordHash: string): Steps<boolean> {
  const user = yield* one<{ id: string }>('UPDATE users SET password_hash = ? WHERE email = ? RETURNING id', passwordHash, email);
  if (!user) return false;
  yield* run('DELETE FROM sessions WHERE user_id = ?', user.id);
  return true;
}
