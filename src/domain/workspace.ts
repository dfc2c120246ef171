// A workspace and its API tokens as the layers above the store read them (and the admin API answers with them).
import type { Role } from './roles.js';

export interface Workspace {
  id: string;
  slug: string;
  orgId: string;
  orgSlug: string;
  writeBudget: number | null;
  /** The locale a `locale` read falls back to when a translatable value has neither the locale asked for nor its language. */
  defaultLocale: string;
}

/** An API token as listed to the workspace's owners and admins: never the token or its hash. */
export interface ApiTokenInfo {
  id: string;
  name: string | null;
  userId: string;
  userEmail: string;
  /** The user's current role in the token's workspace (null when no longer a member). */
  role: Role | null;
  createdAt: string;
  expiresAt: string | null;
  revokedAt: string | null;
  /** When a request last authenticated with it (to the minute); null: never used. */
  lastUsedAt: string | null;
}
