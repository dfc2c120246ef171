import type Database from 'better-sqlite3';
import { newId } from '../../ids.js';
import type { Role } from '../../domain/roles.js';
import type { BootstrapInput, Membership, NewToken, TenancyStore, TokenRecord, Workspace } from '../store.js';
import { TOKEN_SELECT, toTokenRecord, toWorkspace, WORKSPACE_SELECT, type TokenRow, type WorkspaceRow } from '../rows.js';

export class SqliteTenancyStore implements TenancyStore {
  constructor(private readonly db: Database.Database) {}

  async hasAnyOrganisation(): Promise<boolean> {
    return this.db.prepare('SELECT 1 FROM organisations LIMIT 1').get() !== undefined;
  }

  async ensureMembership(input: BootstrapInput): Promise<{ workspace: Workspace; membership: Membership }> {
    const run = this.db.transaction(() => {
      const now = Date.now();
      let org = this.db.prepare('SELECT id FROM organisations WHERE slug = ?').get(input.orgSlug) as
        | { id: string }
        | undefined;
      if (!org) {
        org = { id: newId() };
        this.db.prepare('INSERT INTO organisations (id, slug, created_at) VALUES (?, ?, ?)').run(org.id, input.orgSlug, now);
      }
      let row = this.db.prepare(`${WORKSPACE_SELECT} WHERE w.org_id = ? AND w.slug = ?`).get(org.id, input.workspaceSlug) as
        | WorkspaceRow
        | undefined;
      if (!row) {
        const id = newId();
        this.db
          .prepare('INSERT INTO workspaces (id, org_id, slug, created_at) VALUES (?, ?, ?, ?)')
          .run(id, org.id, input.workspaceSlug, now);
        row = { id, slug: input.workspaceSlug, org_id: org.id, org_slug: input.orgSlug, write_budget: null };
      }
      const membership = this.upsertMembership(row.id, input.email, input.role, input.defaultRole);
      return { workspace: toWorkspace(row), membership };
    });
    return run.immediate();
  }

  async ensureMemberOf(workspaceId: string, email: string, role: Role | null, defaultRole: Role): Promise<Membership | null> {
    const run = this.db.transaction(() => {
      const exists = this.db.prepare('SELECT 1 FROM workspaces WHERE id = ?').get(workspaceId);
      return exists ? this.upsertMembership(workspaceId, email, role, defaultRole) : null;
    });
    return run.immediate();
  }

  private upsertMembership(workspaceId: string, email: string, role: Role | null, defaultRole: Role): Membership {
    let user = this.db.prepare('SELECT id FROM users WHERE email = ?').get(email) as { id: string } | undefined;
    if (!user) {
      user = { id: newId() };
      this.db.prepare('INSERT INTO users (id, email, created_at) VALUES (?, ?, ?)').run(user.id, email, Date.now());
    }
    const current = this.db
      .prepare('SELECT role FROM memberships WHERE workspace_id = ? AND user_id = ?')
      .get(workspaceId, user.id) as { role: Role } | undefined;
    const finalRole = role ?? current?.role ?? defaultRole;
    if (!current) {
      this.db
        .prepare('INSERT INTO memberships (workspace_id, user_id, role) VALUES (?, ?, ?)')
        .run(workspaceId, user.id, finalRole);
    } else if (current.role !== finalRole) {
      this.db
        .prepare('UPDATE memberships SET role = ? WHERE workspace_id = ? AND user_id = ?')
        .run(finalRole, workspaceId, user.id);
    }
    return { userId: user.id, email, role: finalRole };
  }

  async findWorkspace(id: string): Promise<Workspace | null> {
    const row = this.db.prepare(`${WORKSPACE_SELECT} WHERE w.id = ?`).get(id) as WorkspaceRow | undefined;
    return row ? toWorkspace(row) : null;
  }

  async findWorkspaceBySlugs(orgSlug: string, workspaceSlug: string): Promise<Workspace | null> {
    const row = this.db.prepare(`${WORKSPACE_SELECT} WHERE o.slug = ? AND w.slug = ?`).get(orgSlug, workspaceSlug) as
      | WorkspaceRow
      | undefined;
    return row ? toWorkspace(row) : null;
  }

  async setWriteBudget(workspaceId: string, budget: number | null): Promise<boolean> {
    return this.db.prepare('UPDATE workspaces SET write_budget = ? WHERE id = ?').run(budget, workspaceId).changes > 0;
  }

  async createToken(token: NewToken): Promise<void> {
    this.db
      .prepare(
        `INSERT INTO api_tokens (id, token_hash, workspace_id, user_id, name, created_at, expires_at)
         VALUES (?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
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
    const row = this.db.prepare(`${TOKEN_SELECT} WHERE t.token_hash = ?`).get(hash) as TokenRow | undefined;
    return row ? toTokenRecord(row) : null;
  }


  async revokeToken(id: string): Promise<boolean> {
    return (
      this.db.prepare('UPDATE api_tokens SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL').run(Date.now(), id)
        .changes > 0
    );
  }
}
