import { ServiceError } from '../domain/errors.js';
import type { Store } from '../store/store.js';
import type { Actor } from '../services/actor.js';
import { hashToken, sameHash, TOKEN_PREFIX } from '../services/tokens.js';

export interface Authenticated {
  actor: Actor;
  /** The workspace's own write budget, null for the server's default. */
  writeBudget: number | null;
  /** Signed in to the admin application (session cookie) rather than an API token: writes are not budgeted. */
  viaSession: boolean;
}

/** A token's last use is written at most this often: one small write a minute per token in use, not one per request. */
const LAST_USED_PRECISION_MS = 60_000;

export function notAuthorized(): ServiceError {
  return new ServiceError('UNAUTHENTICATED', 'Not authorized');
}

/**
 * Resolves the bearer token and the x-workspace-id header to an actor.
 * Every failure gives the same error, so the answer tells nothing about which part was wrong.
 */
export async function authenticate(
  store: Store,
  authorization: string | undefined,
  workspaceIdHeader: string | undefined,
  now = Date.now(),
): Promise<Authenticated> {
  const token = /^Bearer (\S+)$/i.exec(authorization ?? '')?.[1];
  if (!token || !token.startsWith(TOKEN_PREFIX) || token.length > 200 || !workspaceIdHeader) throw notAuthorized();
  const hash = hashToken(token);
  const record = await store.tenancy.findTokenByHash(hash);
  if (!record || !record.role || record.revokedAt !== null) throw notAuthorized();
  if (record.expiresAt !== null && Date.parse(record.expiresAt) <= now) throw notAuthorized();
  if (!sameHash(hashToken(record.workspaceId), hashToken(workspaceIdHeader))) throw notAuthorized();
  if (record.lastUsedAt === null || now - record.lastUsedAt >= LAST_USED_PRECISION_MS) {
    await store.tenancy.markTokenUsed(record.id, now, LAST_USED_PRECISION_MS);
  }
  return {
    actor: { workspaceId: record.workspaceId, userId: record.userId, role: record.role },
    writeBudget: record.writeBudget,
    viaSession: false,
  };
}
