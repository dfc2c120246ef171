import { generateToken, hashToken } from './tokens.js';
import { newId } from '../ids.js';
import type { Store } from '../store/store.js';

export interface IssuedToken {
  id: string;
  token: string;
}

/** Creates an API token for a member of a workspace; the plain token exists only in the return value. */
export async function issueToken(
  store: Store,
  workspaceId: string,
  userId: string,
  options: { name?: string | null; expiresAt?: string | null } = {},
): Promise<IssuedToken> {
  const token = generateToken();
  const id = newId();
  await store.tenancy.createToken({
    id,
    hash: hashToken(token),
    workspaceId,
    userId,
    name: options.name ?? null,
    expiresAt: options.expiresAt ?? null,
  });
  return { id, token };
}
