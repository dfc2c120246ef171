import type { Pool, PoolClient } from 'pg';
import { newId } from '../../ids.js';
import type { MemberChange } from '../../domain/members.js';
import type { Role } from '../../domain/roles.js';
import type { AddedMember, MemberInfo, MemberStore, NewSignInLink } from '../store.js';
import { LINK_USER_FROM, MEMBER_SELECT, toMemberInfo, usableLinkCondition, type MemberRow } from '../rows/member-rows.js';
import { inTransaction, type Queryable } from './sql.js';

/** Any fixed number: the first key of the advisory lock that serialises the member changes of one workspace. */
const MEMBERS_LOCK_CLASS = 0x43530003;

export class PostgresMemberStore implements MemberStore {
  constructor(private readonly pool: Pool) {}

  async list(workspaceId: string): Promise<MemberInfo[]> {
    const { rows } = await this.pool.query<MemberRow>(
      `${MEMBER_SELECT} WHERE m.workspace_id = $1 ORDER BY u.email COLLATE "C", m.user_id`,
      [workspaceId],
    );
    return rows.map(toMemberInfo);
  }

  async add(workspaceId: string, email: string, role: Role, now: number): Promise<AddedMember | 'already-member'> {
    return inTransaction(this.pool, async (client) => {
      await client.query('INSERT INTO users (id, email, created_at) VALUES ($1, $2, $3) ON CONFLICT (email) DO NOTHING', [
        newId(),
        email,
        now,
      ]);
      const user = await client.query<{ id: string }>('SELECT id FROM users WHERE email = $1', [email]);
      const userId = user.rows[0]!.id;
      const inserted = await client.query(
        `INSERT INTO memberships (workspace_id, user_id, role, created_at) VALUES ($1, $2, $3, $4)
         ON CONFLICT (workspace_id, user_id) DO NOTHING`,
        [workspaceId, userId, role, now],
      );
      if ((inserted.rowCount ?? 0) === 0) return 'already-member';
      const others = await client.query<{ n: string }>(
        'SELECT count(*) AS n FROM memberships WHERE user_id = $1 AND workspace_id <> $2',
        [userId, workspaceId],
      );
      return { member: (await member(client, workspaceId, userId))!, otherWorkspaces: Number(others.rows[0]!.n) };
    });
  }

  async change(
    workspaceId: string,
    userId: string,
    change: MemberChange,
    check: (current: Role, owners: number) => void,
    now: number,
  ): Promise<MemberInfo | 'removed' | null> {
    return inTransaction(this.pool, async (client) => {
      // Two owners demoting each other at once: the second waits here, then counts one owner and is refused.
      await client.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [MEMBERS_LOCK_CLASS, workspaceId]);
      const current = await member(client, workspaceId, userId);
      if (!current) return null;
      const { rows } = await client.query<{ owners: string }>(
        "SELECT count(*) AS owners FROM memberships WHERE workspace_id = $1 AND role = 'owner'",
        [workspaceId],
      );
      check(current.role, Number(rows[0]!.owners));
      if (change !== 'remove') {
        await client.query('UPDATE memberships SET role = $1 WHERE workspace_id = $2 AND user_id = $3', [
          change.role,
          workspaceId,
          userId,
        ]);
        return member(client, workspaceId, userId);
      }
      await client.query('DELETE FROM memberships WHERE workspace_id = $1 AND user_id = $2', [workspaceId, userId]);
      await client.query(
        'UPDATE api_tokens SET revoked_at = $1 WHERE workspace_id = $2 AND user_id = $3 AND revoked_at IS NULL',
        [now, workspaceId, userId],
      );
      await client.query('DELETE FROM sign_in_links WHERE workspace_id = $1 AND user_id = $2', [workspaceId, userId]);
      return 'removed';
    });
  }

  async createSignInLink(link: NewSignInLink): Promise<void> {
    await inTransaction(this.pool, async (client) => {
      await client.query('DELETE FROM sign_in_links WHERE workspace_id = $1 AND user_id = $2', [link.workspaceId, link.userId]);
      await client.query(
        `INSERT INTO sign_in_links (token_hash, workspace_id, user_id, created_by, created_at, expires_at)
         VALUES ($1, $2, $3, $4, $5, $6)`,
        [link.tokenHash, link.workspaceId, link.userId, link.createdBy, link.createdAt, link.expiresAt],
      );
    });
  }

  async useSignInLink(tokenHash: string, passwordHash: string, now: number): Promise<{ userId: string; email: string } | null> {
    return inTransaction(this.pool, async (client) => {
      // Locks the link: of two uses at once, the second finds it used.
      const { rows } = await client.query<{ id: string; email: string }>(
        `SELECT u.id, u.email FROM ${LINK_USER_FROM} WHERE ${usableLinkCondition('$1', '$2')} FOR UPDATE OF l, u`,
        [tokenHash, now],
      );
      const user = rows[0];
      if (!user) return null;
      await client.query('UPDATE sign_in_links SET used_at = $1 WHERE token_hash = $2', [now, tokenHash]);
      await client.query('UPDATE users SET password_hash = $1 WHERE id = $2', [passwordHash, user.id]);
      await client.query('DELETE FROM sessions WHERE user_id = $1', [user.id]);
      return { userId: user.id, email: user.email };
    });
  }

  async findSignInLink(tokenHash: string, now: number): Promise<{ email: string } | null> {
    const { rows } = await this.pool.query<{ email: string }>(
      `SELECT u.email FROM ${LINK_USER_FROM} WHERE ${usableLinkCondition('$1', '$2')}`,
      [tokenHash, now],
    );
    return rows[0] ?? null;
  }
}

async function member(client: Queryable | PoolClient, workspaceId: string, userId: string): Promise<MemberInfo | null> {
  const { rows } = await client.query<MemberRow>(`${MEMBER_SELECT} WHERE m.workspace_id = $1 AND m.user_id = $2`, [
    workspaceId,
    userId,
  ]);
  return rows[0] ? toMemberInfo(rows[0]) : null;
}
