import type { Role } from '../domain/roles.js';

/** Who a request acts as: the token's user in the token's workspace. */
export interface Actor {
  workspaceId: string;
  userId: string;
  role: Role;
}
