// Who may change whose membership of a workspace: the rules of the admin API's `member` namespace.
import { ServiceError } from './errors.js';
import { ROLES, isRole, type Role } from './roles.js';

/** What a change does to one member: a new role, or out of the workspace. */
export type MemberChange = { role: Role } | 'remove';

export function requireRole(value: unknown): Role {
  if (!isRole(value)) {
    throw new ServiceError('BAD_USER_INPUT', `role: must be one of ${ROLES.join(', ')}`, { field: 'role' });
  }
  return value;
}

/** The email as users sign in with it (trimmed, lower case), or BAD_USER_INPUT. */
export function requireEmail(value: unknown): string {
  const email = typeof value === 'string' ? value.trim().toLowerCase() : '';
  if (email.length > 320 || !/^[^\s@]+@[^\s@]+$/.test(email)) {
    throw new ServiceError('BAD_USER_INPUT', 'email: must be an email address', { field: 'email' });
  }
  return email;
}

function forbidden(actorRole: Role, action: string): ServiceError {
  return new ServiceError('FORBIDDEN', `Forbidden: ${actorRole} may not ${action}`);
}

/** Only an owner makes owners. */
export function checkGrant(actorRole: Role, role: Role): void {
  if (role === 'owner' && actorRole !== 'owner') throw forbidden(actorRole, 'grant the owner role');
}

/**
 * Checks a change of a member whose role is `current`, in a workspace with `owners` owners, made by a member with
 * `actorRole`: only an owner changes or removes an owner or grants `owner`, and the last owner stays an owner.
 */
export function checkMemberChange(actorRole: Role, current: Role, owners: number, change: MemberChange): void {
  if (current === 'owner' && actorRole !== 'owner') {
    throw forbidden(actorRole, change === 'remove' ? 'remove an owner' : "change an owner's role");
  }
  if (change !== 'remove') checkGrant(actorRole, change.role);
  const demotes = change === 'remove' || change.role !== 'owner';
  if (current === 'owner' && demotes && owners <= 1) {
    const what = change === 'remove' ? 'removed' : 'demoted';
    throw new ServiceError(
      'CONFLICT',
      `userId: the last owner of the workspace cannot be ${what}; make another member owner first`,
      { field: 'userId' },
    );
  }
}
