import type { Pool, PoolClient } from 'pg';
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
import { inTransaction } from './sql.js';
import type { KeptReads } from './kept-reads.js';
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

/**
 * The workspace (the columns of WORKSPACE_SELECT) with its counter, the sum of its models' and the sum of its
 * content counters (see VersionedWorkspace); the workspace's counter is read from the row the join found (a
 * subquery that read it again by id cost ~40 µs of the ~250 µs this round trip took, measured on a loaded machine).
 */
const VERSIONED_WORKSPACE_SELECT = `SELECT w.id, w.slug, w.org_id, o.slug AS org_slug, w.write_budget, w.default_locale,
    w.content_version || '|' ||
      (SELECT coalesce(sum(content_version), 0) FROM models WHERE workspace_id = w.id) || '|' ||
      (SELECT coalesce(sum(changes), 0) FROM content_counters WHERE workspace_id = w.id) AS content_version
  FROM workspaces w JOIN organisations o ON o.id = w.org_id
  WHERE o.slug = $1 AND w.slug = $2`;

function slugsKey(orgSlug: string, workspaceSlug: string): string {
  return `${orgSlug}\u0000${workspaceSlug}`;
}

type VersionedWorkspaceRow = WorkspaceRow & { content_version: string };

/** What a sole server keeps of its reads (kept-reads.ts): content versions by slugs, tokens by hash. */
export interface KeptTenancyReads {
  versions: KeptReads<VersionedWorkspace>;
  tokens: KeptReads<TokenRecord>;
}

/**
 * Every "create when missing" is `INSERT … ON CONFLICT DO NOTHING` and then a read: when two processes bootstrap
 * the same names at once, the second insert waits for the first transaction and then finds its row.
 */
export class PostgresTenancyStore implements TenancyStore {
  constructor(
    private readonly pool: Pool,
    private readonly kept: KeptTenancyReads | null = null,
  ) {}

  async hasAnyOrganisation(): Promise<boolean> {
    return (await this.pool.query('SELECT 1 FROM organisations LIMIT 1')).rows.length > 0;
  }

  async listWorkspaceSlugs(limit: number): Promise<{ org: string; workspace: string }[]> {
    const result = await this.pool.query<{ org: string; workspace: string }>(
      `SELECT o.slug AS org, w.slug AS workspace FROM workspaces w JOIN organisations o ON o.id = w.org_id
       ORDER BY w.created_at, w.id LIMIT $1`,
      [limit],
    );
    return result.rows;
  }

  async ensureMembership(input: BootstrapInput): Promise<{ workspace: Workspace; membership: Membership }> {
    return inTransaction(this.pool, async (client) => {
      const now = Date.now();
      await client.query('INSERT INTO organisations (id, slug, created_at) VALUES ($1, $2, $3) ON CONFLICT (slug) DO NOTHING', [
        newId(),
        input.orgSlug,
        now,
      ]);
      const org = await client.query<{ id: string }>('SELECT id FROM organisations WHERE slug = $1', [input.orgSlug]);
      const orgId = org.rows[0]!.id;
      await client.query(
        'INSERT INTO workspaces (id, org_id, slug, created_at) VALUES ($1, $2, $3, $4) ON CONFLICT (org_id, slug) DO NOTHING',
        [newId(), orgId, input.workspaceSlug, now],
      );
      const workspace = await client.query<WorkspaceRow>(`${WORKSPACE_SELECT} WHERE w.org_id = $1 AND w.slug = $2`, [
        orgId,
        input.workspaceSlug,
      ]);
      const row = workspace.rows[0]!;
      const membership = await upsertMembership(client, row.id, input.email, input.role, input.defaultRole);
      return { workspace: toWorkspace(row), membership };
    });
  }

  async ensureMemberOf(workspaceId: string, email: string, role: Role | null, defaultRole: Role): Promise<Membership | null> {
    return inTransaction(this.pool, async (client) => {
      const exists = await client.query('SELECT 1 FROM workspaces WHERE id = $1', [workspaceId]);
      return exists.rows.length > 0 ? upsertMembership(client, workspaceId, email, role, defaultRole) : null;
    });
  }

  async findWorkspace(id: string): Promise<Workspace | null> {
    const { rows } = await this.pool.query<WorkspaceRow>(`${WORKSPACE_SELECT} WHERE w.id = $1`, [id]);
    return rows[0] ? toWorkspace(rows[0]) : null;
  }

  async findWorkspaceBySlugs(orgSlug: string, workspaceSlug: string): Promise<Workspace | null> {
    // Named (as the token lookup): read on every delivery request, parsed and planned once per connection.
    const { rows } = await this.pool.query<WorkspaceRow>({
      name: 'workspace_by_slugs',
      text: `${WORKSPACE_SELECT} WHERE o.slug = $1 AND w.slug = $2`,
      values: [orgSlug, workspaceSlug],
    });
    return rows[0] ? toWorkspace(rows[0]) : null;
  }

  async findWorkspaceWithContentVersion(orgSlug: string, workspaceSlug: string): Promise<VersionedWorkspace | null> {
    const moment = this.kept?.versions.moment() ?? null;
    // Prepared once per connection (a named statement): planning this query costs several times its execution, and
    // it runs before every delivery answer, alone when it finds the client's copy current.
    const { rows } = await this.pool.query<VersionedWorkspaceRow>({
      name: 'versioned-workspace',
      text: VERSIONED_WORKSPACE_SELECT,
      values: [orgSlug, workspaceSlug],
    });
    if (!rows[0]) return null;
    const versioned = { workspace: toWorkspace(rows[0]), contentVersion: rows[0].content_version };
    this.kept?.versions.remember(slugsKey(orgSlug, workspaceSlug), versioned, moment);
    return versioned;
  }

  /** The version kept while this server is the only process on the schema (kept-reads.ts); else undefined. */
  findWorkspaceWithContentVersionSync(orgSlug: string, workspaceSlug: string): VersionedWorkspace | undefined {
    return this.kept?.versions.current(slugsKey(orgSlug, workspaceSlug));
  }

  async setWriteBudget(workspaceId: string, budget: number | null): Promise<boolean> {
    const result = await this.pool.query('UPDATE workspaces SET write_budget = $1 WHERE id = $2', [budget, workspaceId]);
    return (result.rowCount ?? 0) > 0;
  }

  async setDefaultLocale(workspaceId: string, locale: string): Promise<boolean> {
    const result = await this.pool.query('UPDATE workspaces SET default_locale = $1 WHERE id = $2', [locale, workspaceId]);
    return (result.rowCount ?? 0) > 0;
  }

  async createToken(token: NewToken): Promise<void> {
    await this.pool.query(
      `INSERT INTO api_tokens (id, token_hash, workspace_id, user_id, name, created_at, expires_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7)`,
      [
        token.id,
        token.hash,
        token.workspaceId,
        token.userId,
        token.name,
        Date.now(),
        token.expiresAt === null ? null : Date.parse(token.expiresAt),
      ],
    );
  }

  async findTokenByHash(hash: string): Promise<TokenRecord | null> {
    const read = async () => {
      // A named statement: read on every request with a token, parsed and planned once per connection.
      const { rows } = await this.pool.query<TokenRow>({
        name: 'token_by_hash',
        text: `${TOKEN_SELECT} WHERE t.token_hash = $1`,
        values: [hash],
      });
      return rows[0] ? toTokenRecord(rows[0]) : null;
    };
    return this.kept ? this.kept.tokens.copied(hash, read) : read();
  }

  async markTokenUsed(id: string, at: number, minIntervalMs: number): Promise<void> {
    await this.pool.query(
      'UPDATE api_tokens SET last_used_at = $1 WHERE id = $2 AND (last_used_at IS NULL OR last_used_at <= $3)',
      [at, id, at - minIntervalMs],
    );
  }

  async revokeToken(id: string): Promise<boolean> {
    const result = await this.pool.query('UPDATE api_tokens SET revoked_at = $1 WHERE id = $2 AND revoked_at IS NULL', [
      Date.now(),
      id,
    ]);
    return (result.rowCount ?? 0) > 0;
  }

  async listTokens(workspaceId: string): Promise<ApiTokenInfo[]> {
    const { rows } = await this.pool.query<TokenInfoRow>(
      `${TOKEN_INFO_SELECT} WHERE t.workspace_id = $1 ORDER BY t.created_at DESC, t.id DESC`,
      [workspaceId],
    );
    return rows.map(toApiTokenInfo);
  }

  async findWorkspaceToken(workspaceId: string, id: string): Promise<ApiTokenInfo | null> {
    const { rows } = await this.pool.query<TokenInfoRow>(`${TOKEN_INFO_SELECT} WHERE t.workspace_id = $1 AND t.id = $2`, [
      workspaceId,
      id,
    ]);
    return rows[0] ? toApiTokenInfo(rows[0]) : null;
  }

  async revokeWorkspaceToken(workspaceId: string, id: string): Promise<boolean> {
    const result = await this.pool.query(
      'UPDATE api_tokens SET revoked_at = COALESCE(revoked_at, $1) WHERE id = $2 AND workspace_id = $3',
      [Date.now(), id, workspaceId],
    );
    return (result.rowCount ?? 0) > 0;
  }

  async findUserByEmail(email: string): Promise<UserRecord | null> {
    const { rows } = await this.pool.query<{ id: string; email: string; password_hash: string | null }>(
      'SELECT id, email, password_hash FROM users WHERE email = $1',
      [email],
    );
    const row = rows[0];
    return row ? { id: row.id, email: row.email, passwordHash: row.password_hash } : null;
  }

  async setPasswordHash(email: string, passwordHash: string): Promise<boolean> {
    return inTransaction(this.pool, async (client) => {
      const { rows } = await client.query<{ id: string }>('UPDATE users SET password_hash = $1 WHERE email = $2 RETURNING id', [
        passwordHash,
        email,
      ]);
      if (!rows[0]) return false;
      await client.query('DELETE FROM sessions WHERE user_id = $1', [rows[0].id]);
      return true;
    });
  }

  async workspacesOf(userId: string): Promise<UserWorkspace[]> {
    const { rows } = await this.pool.query<{ id: string; org_slug: string; slug: string; role: Role }>(
      `${USER_WORKSPACES_SELECT} WHERE m.user_id = $1 ORDER BY o.slug COLLATE "C", w.slug COLLATE "C", w.id`,
      [userId],
    );
    return rows.map(toUserWorkspace);
  }

  async findMember(workspaceId: string, userId: string): Promise<MemberAccess | null> {
    const { rows } = await this.pool.query<{ role: Role; write_budget: number | null }>(
      `SELECT m.role, w.write_budget FROM memberships m JOIN workspaces w ON w.id = m.workspace_id
       WHERE m.workspace_id = $1 AND m.user_id = $2`,
      [workspaceId, userId],
    );
    return rows[0] ? { role: rows[0].role, writeBudget: rows[0].write_budget } : null;
  }

  async createSession(session: NewSession): Promise<void> {
    await this.pool.query(
      `INSERT INTO sessions (id_hash, user_id, csrf_token, created_at, expires_at, last_seen)
       VALUES ($1, $2, $3, $4, $5, $4)`,
      [session.idHash, session.userId, session.csrfToken, session.createdAt, session.expiresAt],
    );
  }

  async findSession(idHash: string): Promise<SessionRecord | null> {
    const { rows } = await this.pool.query<SessionRow>(`${SESSION_SELECT} WHERE s.id_hash = $1`, [idHash]);
    return rows[0] ? toSession(rows[0]) : null;
  }

  async touchSession(idHash: string, lastSeen: number, expiresAt: number): Promise<void> {
    await this.pool.query('UPDATE sessions SET last_seen = $1, expires_at = $2 WHERE id_hash = $3', [
      lastSeen,
      expiresAt,
      idHash,
    ]);
  }

  async deleteSession(idHash: string): Promise<boolean> {
    const result = await this.pool.query('DELETE FROM sessions WHERE id_hash = $1', [idHash]);
    return (result.rowCount ?? 0) > 0;
  }

  async deleteExpiredSessions(now: number): Promise<number> {
    const result = await this.pool.query('DELETE FROM sessions WHERE expires_at <= $1', [now]);
    return result.rowCount ?? 0;
  }
}

/**
 * The user (created when missing) with a role in the workspace, by membershipRole: a new member gets it here, and an
 * existing one keeps the current role unless one is asked for (`COALESCE($4, memberships.role)`, the same rule in the
 * upsert, so that two concurrent additions cannot both read "no member yet").
 */
async function upsertMembership(
  client: PoolClient,
  workspaceId: string,
  email: string,
  role: Role | null,
  defaultRole: Role,
): Promise<Membership> {
  await client.query('INSERT INTO users (id, email, created_at) VALUES ($1, $2, $3) ON CONFLICT (email) DO NOTHING', [
    newId(),
    email,
    Date.now(),
  ]);
  const user = await client.query<{ id: string }>('SELECT id FROM users WHERE email = $1', [email]);
  const userId = user.rows[0]!.id;
  const { rows } = await client.query<{ role: Role }>(
    `INSERT INTO memberships (workspace_id, user_id, role, created_at) VALUES ($1, $2, $3, $5)
     ON CONFLICT (workspace_id, user_id) DO UPDATE SET role = COALESCE($4, memberships.role)
     RETURNING role`,
    [workspaceId, userId, membershipRole(role, undefined, defaultRole), role, Date.now()],
  );
  return { userId, email, role: rows[0]!.role };
}
