import type Database from 'better-sqlite3';
import { newId } from '../../ids.js';
import type { MemberChange } from '../../domain/members.js';
import type { Role } from '../../domain/roles.js';
import type { AddedMember, MemberInfo, MemberStore, NewSignInLink } from '../store.js';
import { LINK_USER_FROM, MEMBER_SELECT, toMemberInfo, usableLinkCondition, type MemberRow } from '../rows/member-rows.js';

/** Every change runs in an immediate transaction: the one writer at a time that SQLite allows is the serialisation. */
export class SqliteMemberStore implements MemberStore {
  constructor(private readonly db: Database.Database) {}

  async list(workspaceId: string): Promise<MemberInfo[]> {
    const rows = this.db
      .prepare(`${MEMBER_SELECT} WHERE m.workspace_id = ? ORDER BY u.email, m.user_id`)
      .all(workspaceId) as MemberRow[];
    return rows.map(toMemberInfo);
  }

  async add(workspaceId: string, email: string, role: Role, now: number): Promise<AddedMember | 'already-member'> {
    const run = this.db.transaction((): AddedMember | 'already-member' => {
      let user = this.db.prepare('SELECT id FROM users WHERE email = ?').get(email) as { id: string } | undefined;
      if (!user) {
        user = { id: newId() };
        this.db.prepare('INSERT INTO users (id, email, created_at) VALUES (?, ?, ?)').run(user.id, email, now);
      }
      const inserted = this.db
        .prepare(
          `INSERT INTO memberships (workspace_id, user_id, role, created_at) VALUES (?, ?, ?, ?)
           ON CONFLICT (workspace_id, user_id) DO NOTHING`,
        )
        .run(workspaceId, user.id, role, now);
      if (inserted.changes === 0) return 'already-member';
      return { member: this.member(workspaceId, user.id)!, otherWorkspaces: this.otherWorkspaces(workspaceId, user.id) };
    });
    return run.immediate();
  }

  async change(
    workspaceId: string,
    userId: string,
    change: MemberChange,
    check: (current: Role, owners: number) => void,
    now: number,
  ): Promise<MemberInfo | 'removed' | null> {
    const run = this.db.transaction((): MemberInfo | 'removed' | null => {
      const current = this.member(workspaceId, userId);
      if (!current) return null;
      const { owners } = this.db
        .prepare("SELECT count(*) AS owners FROM memberships WHERE workspace_id = ? AND role = 'owner'")
        .get(workspaceId) as { owners: number };
      check(current.role, owners);
      if (change !== 'remove') {
        this.db
          .prepare('UPDATE memberships SET role = ? WHERE workspace_id = ? AND user_id = ?')
          .run(change.role, workspaceId, userId);
        return this.member(workspaceId, userId);
      }
      this.db.prepare('DELETE FROM memberships WHERE workspace_id = ? AND user_id = ?').run(workspaceId, userId);
      this.db
        .prepare('UPDATE api_tokens SET revoked_at = ? WHERE workspace_id = ? AND user_id = ? AND revoked_at IS NULL')
        .run(now, workspaceId, userId);
      this.db.prepare('DELETE FROM sign_in_links WHERE workspace_id = ? AND user_id = ?').run(workspaceId, userId);
      return 'removed';
    });
    return run.immediate();
  }

  async createSignInLink(link: NewSignInLink): Promise<void> {
    const run = this.db.transaction(() => {
      this.db.prepare('DELETE FROM sign_in_links WHERE workspace_id = ? AND user_id = ?').run(link.workspaceId, link.userId);
      this.db
        .prepare(
          `INSERT INTO sign_in_links (token_hash, workspace_id, user_id, created_by, created_at, expires_at)
           VALUES (?, ?, ?, ?, ?, ?)`,
        )
        .run(link.tokenHash, link.workspaceId, link.userId, link.createdBy, link.createdAt, link.expiresAt);
    });
    run.immediate();
  }

  async useSignInLink(tokenHash: string, passwordHash: string, now: number): Promise<{ userId: string; email: string } | null> {
    const run = this.db.transaction(() => {
      const user = this.db
        .prepare(`SELECT u.id, u.email FROM ${LINK_USER_FROM} WHERE ${usableLinkCondition('?', '?')}`)
        .get(tokenHash, now) as { id: string; email: string } | undefined;
      if (!user) return null;
      this.db.prepare('UPDATE sign_in_links SET used_at = ? WHERE token_hash = ?').run(now, tokenHash);
      this.db.prepare('UPDATE users SET password_hash = ? WHERE id = ?').run(passwordHash, user.id);
      this.db.prepare('DELETE FROM sessions WHERE user_id = ?').run(user.id);
      return { userId: user.id, email: user.email };
    });
    return run.immediate();
  }

  async findSignInLink(tokenHash: string, now: number): Promise<{ email: string } | null> {
    const row = this.db
      .prepare(`SELECT u.email FROM ${LINK_USER_FROM} WHERE ${usableLinkCondition('?', '?')}`)
      .get(tokenHash, now) as { email: string } | undefined;
    return row ?? null;
  }

  private member(workspaceId: string, userId: string): MemberInfo | null {
    const row = this.db.prepare(`${MEMBER_SELECT} WHERE m.workspace_id = ? AND m.user_id = ?`).get(workspaceId, userId) as
      MemberRow | undefined;
    return row ? toMemberInfo(row) : null;
  }

  private otherWorkspaces(workspaceId: string, userId: string): number {
    const row = this.db
      .prepare('SELECT count(*) AS n FROM memberships WHERE user_id = ? AND workspace_id <> ?')
      .get(userId, workspaceId) as { n: number };
    return row.n;
  }
}
