// Member rows: a workspace's memberships with their users, and the sign-in links of users without a password.
import type { Role } from '../../domain/roles.js';
import type { MemberInfo } from '../store.js';
import { isoTimeOrNull, type Millis } from './time.js';

export interface MemberRow {
  user_id: string;
  email: string;
  role: Role;
  has_password: number | boolean;
  created_at: Millis | null;
}

export const MEMBER_SELECT = `SELECT m.user_id, u.email, m.role, (u.password_hash IS NOT NULL) AS has_password, m.created_at
  FROM memberships m JOIN users u ON u.id = m.user_id`;

export function toMemberInfo(row: MemberRow): MemberInfo {
  return {
    userId: row.user_id,
    email: row.email,
    role: row.role,
    hasPassword: Boolean(row.has_password),
    addedAt: isoTimeOrNull(row.created_at),
  };
}

/**
 * The link's user, while the link can be used: unused, unexpired, the user still a member of the link's workspace
 * and of no other (a link must not open other workspaces' doors), and without a password. Parameters: the token
 * hash, then now.
 */
export function usableLinkCondition(hash: string, now: string): string {
  return `l.token_hash = ${hash} AND l.used_at IS NULL AND l.expires_at > ${now} AND u.password_hash IS NULL
    AND EXISTS (SELECT 1 FROM memberships m WHERE m.user_id = l.user_id AND m.workspace_id = l.workspace_id)
    AND NOT EXISTS (SELECT 1 FROM memberships m WHERE m.user_id = l.user_id AND m.workspace_id <> l.workspace_id)`;
}

export const LINK_USER_FROM = 'sign_in_links l JOIN users u ON u.id = l.user_id';
