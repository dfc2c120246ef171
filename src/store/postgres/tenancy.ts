import type { Pool, PoolClient } from 'pg';
import { newId } from '../../ids.js';
import type { Role } from '../../domain/roles.js';
import type { BootstrapInput, Membership, NewToken, TenancyStore, TokenRecord, Workspace } from '../store.js';
import { inTransaction } from './sql.js';
import { TOKEN_SELECT, toTokenRecord, toWorkspace, WORKSPACE_SELECT, type TokenRow, type WorkspaceRow } from '../rows.js';


/**
 * Every "create when missing" is `INSERT … ON CONFLICT DO NOTHING` and then a read: when two processes bootstrap
 * the same names at once, the second insert waits for the first transaction and then finds its row.
 */
export class PostgresTenancyStore implements TenancyStore {
  constructor(private readonly pool: Pool) {}

  async hasAnyOrganisation(): Promise<boolean> {
    return (await this.pool.query('SELECT 1 FROM organisations LIMIT 1')).rows.length > 0;
  }

  async ensureMembership(input: BootstrapInput): Promise<{ workspace: Workspace; membership: Membership }> {
    return inTransaction(this.pool, async (client) => {
      const now = Date.now();
      await client.query(
        'INSERT INTO organisations (id, slug, created_at) VALUES ($1, $2, $3) ON CONFLICT (slug) DO NOTHING',
        [newId(), input.orgSlug, now],
      );
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
    const { rows } = await this.pool.query<WorkspaceRow>(`${WORKSPACE_SELECT} WHERE o.slug = $1 AND w.slug = $2`, [
      orgSlug,
      workspaceSlug,
    ]);
    return rows[0] ? toWorkspace(rows[0]) : null;
  }

  async setWriteBudget(workspaceId: string, budget: number | null): Promise<boolean> {
    const result = await this.pool.query('UPDATE workspaces SET write_budget = $1 WHERE id = $2', [budget, workspaceId]);
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
    const { rows } = await this.pool.query<TokenRow>(`${TOKEN_SELECT} WHERE t.token_hash = $1`, [hash]);
    return rows[0] ? toTokenRecord(rows[0]) : null;
  }


  async revokeToken(id: string): Promise<boolean> {
    const result = await this.pool.query('UPDATE api_tokens SET revoked_at = $1 WHERE id = $2 AND revoked_at IS NULL', [
      Date.now(),
      id,
    ]);
    return (result.rowCount ?? 0) > 0;
  }
}

/** The user (created when missing) with a role in the workspace: `role` when given, else the current one, else `defaultRole`. */
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
    `INSERT INTO memberships (workspace_id, user_id, role) VALUES ($1, $2, $3)
     ON CONFLICT (workspace_id, user_id) DO UPDATE SET role = COALESCE($4, memberships.role)
     RETURNING role`,
    [workspaceId, userId, role ?? defaultRole, role],
  );
  return { userId, email, role: rows[0]!.role };
}
