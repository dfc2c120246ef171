// Settings → API tokens' state, without a DOM: a token's status, the create form's check (a name, an optional
// expiry in local time), and which field a refusal of the server is about. page-tokens.ts renders it.
import { formatDateTime } from './values.js';

export interface ApiToken {
  id: string;
  name: string | null;
  userEmail: string;
  role: string;
  createdAt: string;
  expiresAt: string | null;
  revokedAt: string | null;
  lastUsedAt: string | null;
}

export function tokenStatus(token: ApiToken, now: number): string {
  if (token.revokedAt) return `Revoked ${formatDateTime(token.revokedAt)}`;
  if (token.expiresAt && Date.parse(token.expiresAt) <= now) return `Expired ${formatDateTime(token.expiresAt)}`;
  return 'Active';
}

export type TokenField = 'name' | 'expiresAt';

/** The create form's values checked: what to send, or the field in the wrong and why. */
export function checkTokenForm(
  name: string,
  expires: string,
): { ok: true; name: string; expiresAt: string | null } | { ok: false; field: TokenField; message: string } {
  if (name.trim() === '') return { ok: false, field: 'name', message: 'Give the token a name.' };
  if (!expires) return { ok: true, name: name.trim(), expiresAt: null };
  const date = new Date(expires);
  if (Number.isNaN(date.getTime())) return { ok: false, field: 'expiresAt', message: 'Not a date and time.' };
  return { ok: true, name: name.trim(), expiresAt: date.toISOString() };
}

/** A refusal about a field of the form (`name: …`, `expiresAt: …`), to show at it; null for others. */
export function tokenFieldError(message: string): { field: TokenField; text: string } | null {
  for (const field of ['name', 'expiresAt'] as const) {
    if (message.startsWith(`${field}:`)) return { field, text: message.replace(new RegExp(`^${field}: `), '') };
  }
  return null;
}
