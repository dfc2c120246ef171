import { newId } from '../../ids.js';
import type { MemberChange } from '../../domain/members.js';
import type { Role } from '../../domain/roles.js';
import type { AddedMember, MemberInfo, MemberStore, NewSignInLink } from '../store.js';
import { LINK_USER_FROM, MEMBER_SELECT, toMemberInfo, usableLinkCondition, type MemberRow } from '../rows/member-rows.js';
import type { StepRunner } from './runner.js';
import { all, lock, one, run, type Steps } from './steps.js';

/** Any fixed number: the first key of the lock that serialises the member changes of one workspace. */
const MEMBERS_LOCK_SCOPE = 0x43530003;

export class CoreMemberStore implements MemberStore {
  constructor(private readonly db: StepRunner) {}

  async list(workspaceId: string): Promise<MemberInfo[]> {
    const rows = await this.db.read(
      all<MemberRow>(
        `${MEMBER_SELECT} WHERE m.workspace_id = ? ORDER BY u.email${this.db.sql.byteOrder}, m.user_id`,
        workspaceId,
      ),
    );
    return rows.map(toMemberInfo);
  }

  add(workspaceId: string, email: string, role: Role, now: number): Promise<AddedMember | 'already-member'> {
    return this.db.transaction(addMember(workspaceId, email, role, now));
  }

  change(...args: Parameters<MemberStore['change']>): ReturnType<MemberStore['change']> {
    return this.db.transaction(changeMember(...args));
  }

  async createSignInLink(link: NewSignInLink): Promise<void> {
    await this.db.transaction(replaceSignInLink(link));
  }

  useSignInLink(tokenHash: string, passwordHash: string, now: number): Promise<{ userId: string; email: string } | null> {
    return this.db.transaction(useSignInLink(tokenHash, passwordHash, now, this.db.sql.lockRows('l, u')));
  }

  async findSignInLink(tokenHash: string, now: number): Promise<{ email: string } | null> {
    const row = await this.db.read(
      one<{ email: string }>(`SELECT u.email FROM ${LINK_USER_FROM} WHERE ${usableLinkCondition('?', '?')}`, tokenHash, now),
    );
    return row ?? null;
  }
}

function* addMember(workspaceId: string, email: string, role: Role, now: number): Steps<AddedMember | 'already-member'> {
  yield* run('INSERT INTO users (id, email, created_at) VALUES (?, ?, ?) ON CONFLICT (email) DO NOTHING', newId(), email, now);
  const user = (yield* one<{ id: string }>('SELECT id FROM users WHERE email = ?', email))!;
  const inserted = yield* run(
    `INSERT INTO memberships (workspace_id, user_id, role, created_at) VALUES (?, ?, ?, ?)
     ON CONFLICT (workspace_id, user_id) DO NOTHING`,
    workspaceId,
    user.id,
    role,
    now,
  );
  if (inserted === 0) return 'already-member';
  const others = (yield* one<{ n: number | string }>(
    'SELECT count(*) AS n FROM memberships WHERE user_id = ? AND workspace_id <> ?',
    user.id,
    workspaceId,
  ))!;
  return { member: (yield* member(workspaceId, user.id))!, otherWorkspaces: Number(others.n) };
}

function* changeMember(
  workspaceId: string,
  userId: string,
  change: MemberChange,
  check: (current: Role, owners: number) => void,
  now: number,
): Steps<MemberInfo | 'removed' | null> {
  // Two owners demoting each other at once: the second waits here, then counts one owner and is refused.
  yield* lock(MEMBERS_LOCK_SCOPE, workspaceId);
  const current = yield* member(workspaceId, userId);
  if (!current) return null;
  const { owners } = (yield* one<{ owners: number | string }>(
    "SELECT count(*) AS owners FROM memberships WHERE workspace_id = ? AND role = 'owner'",
    workspaceId,
  ))!;
  check(current.role, Number(owners));
  if (change !== 'remove') {
    yield* run('UPDATE memberships SET role = ? WHERE workspace_id = ? AND user_id = ?', change.role, workspaceId, userId);
    return yield* member(workspaceId, userId);
  }
  yield* run('DELETE FROM memberships WHERE workspace_id = ? AND user_id = ?', workspaceId, userId);
  yield* run(
    'UPDATE api_tokens SET revoked_at = ? WHERE workspace_id = ? AND user_id = ? AND revoked_at IS NULL',
    now,
    workspaceId,
    userId,
  );
  yield* run('DELETE FROM sign_in_links WHERE workspace_id = ? AND user_id = ?', workspaceId, userId);
  return 'removed';
}

function* replaceSignInLink(link: NewSignInLink): Steps<void> {
  yield* run('DELETE FROM sign_in_links WHERE workspace_id = ? AND user_id = ?', link.workspaceId, link.userId);
  yield* run(
    `INSERT INTO sign_in_links (token_hash, workspace_id, user_id, created_by, created_at, expires_at)
     VALUES (?, ?, ?, ?, ?, ?)`,
    link.tokenHash,
    link.workspaceId,
    link.userId,
    link.createdBy,
    link.createdAt,
    link.expiresAt,
  );
}

function* useSignInLink(
  tokenHash: string,
  passwordHash: string,
  now: number,
  lockRows: string,
): Steps<{ userId: string; email: string } | null> {
  // Locks the link: of two uses at once, the second finds it used.
  const user = yield* one<{ id: string; email: string }>(
    `SELECT u.id, u.email FROM ${LINK_USER_FROM} WHERE ${usableLinkCondition('?', '?')}${lockRows}`,
    tokenHash,
    now,
  );
  if (!user) return null;
  yield* run('UPDATE sign_in_links SET used_at = ? WHERE token_hash = ?', now, tokenHash);
  yield* run('UPDATE users SET password_hash = ? WHERE id = ?', passwordHash, user.id);
  yield* run('DELETE FROM sessions WHERE user_id = ?', user.id);
  return { userId: user.id, email: user.email };
}

function* member(workspaceId: string, userId: string): Steps<MemberInfo | null> {
  const row = yield* one<MemberRow>(`${MEMBER_SELECT} WHERE m.workspace_id = ? AND m.user_id = ?`, workspaceId, userId);
  return row ? toMemberInfo(row) : null;
}
