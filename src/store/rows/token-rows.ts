// API token rows: the token a request authenticates with, and the token list of a workspace.
import type { Role } from '../../domain/roles.js';
import type { ApiTokenInfo } from '../../domain/workspace.js';
import type { TokenRecord } from '../store.js';
import { isoTime, isoTimeOrNull, type Millis } from './time.js';

export interface TokenRow {
  id: string;
  workspace_id: string;
  user_id: string;
  role: Role | null;
  expires_at: Millis | null;
  revoked_at: Millis | null;
  last_used_at: Millis | null;
  write_budget: number | string | null;
}

/** A token's role is its user's in its workspace: none (m.role null) once the user is no longer a member. */
const MEMBERSHIP_JOIN = 'LEFT JOIN memberships m ON m.workspace_id = t.workspace_id AND m.user_id = t.user_id';

export const TOKEN_SELECT = `SELECT t.id, t.workspace_id, t.user_id, m.role, t.expires_at, t.revoked_at, t.last_used_at, w.write_budget
  FROM api_tokens t JOIN workspaces w ON w.id = t.workspace_id ${MEMBERSHIP_JOIN}`;

export function toTokenRecord(row: TokenRow): TokenRecord {
  return {
    id: row.id,
    workspaceId: row.workspace_id,
    userId: row.user_id,
    role: row.role,
    expiresAt: isoTimeOrNull(row.expires_at),
    revokedAt: isoTimeOrNull(row.revoked_at),
    lastUsedAt: row.last_used_at === null ? null : Number(row.last_used_at),
    writeBudget: row.write_budget === null ? null : Number(row.write_budget),
  };
}

export interface TokenInfoRow {
  id: string;
  name: string | null;
  user_id: string;
  email: string;
  role: Role | null;
  created_at: Millis;
  expires_at: Millis | null;
  revoked_at: Millis | null;
  last_used_at: Millis | null;
}

export const TOKEN_INFO_SELECT = `SELECT t.id, t.name, t.user_id, u.email, m.role, t.created_at, t.expires_at, t.revoked_at, t.last_used_at
  FROM api_tokens t JOIN users u ON u.id = t.user_id ${MEMBERSHIP_JOIN}`;

export function toApiTokenInfo(row: TokenInfoRow): ApiTokenInfo {
  return {
    id: row.id,
    name: row.name,
    userId: row.user_id,
    userEmail: row.email,
    role: row.role,
    createdAt: isoTime(row.created_at),
    expiresAt: isoTimeOrNull(row.expires_at),
    revokedAt: isoTimeOrNull(row.revoked_at),
    lastUsedAt: isoTimeOrNull(row.last_used_at),
  };
}
