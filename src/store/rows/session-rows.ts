// Session rows (the admin application's sign-ins).
import type { SessionRecord } from '../store.js';
import type { Millis } from './time.js';

export interface SessionRow {
  id_hash: string;
  user_id: string;
  email: string;
  csrf_token: string;
  created_at: Millis;
  expires_at: Millis;
  last_seen: Millis;
}

export const SESSION_SELECT = `SELECT s.id_hash, s.user_id, u.email, s.csrf_token, s.created_at, s.expires_at, s.last_seen
  FROM sessions s JOIN users u ON u.id = s.user_id`;

export function toSession(row: SessionRow): SessionRecord {
  return {
    idHash: row.id_hash,
    userId: row.user_id,
    email: row.email,
    csrfToken: row.csrf_token,
    createdAt: Number(row.created_at),
    expiresAt: Number(row.expires_at),
    lastSeen: Number(row.last_seen),
  };
}
