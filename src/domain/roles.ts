export const ROLES = ['owner', 'admin', 'editor', 'viewer'] as const;
export type Role = (typeof ROLES)[number];

/**
 * What a request needs: reading, writing records, changing models, listing, creating and revoking API tokens,
 * changing the workspace's settings, reading and changing its webhooks, or listing, adding, changing and removing its
 * members.
 */
export type Permission =
  | 'read'
  | 'write records'
  | 'change models'
  | 'manage tokens'
  | 'change workspace settings'
  | 'manage webhooks'
  | 'manage members';

/** Owners and admins may do everything; they differ only in what they may do to owners (members.ts). */
const EVERYTHING: readonly Permission[] = [
  'read',
  'write records',
  'change models',
  'manage tokens',
  'change workspace settings',
  'manage webhooks',
  'manage members',
];

const GRANTS: Record<Role, readonly Permission[]> = {
  owner: EVERYTHING,
  admin: EVERYTHING,
  editor: ['read', 'write records'],
  viewer: ['read'],
};

export function isRole(value: unknown): value is Role {
  return typeof value === 'string' && (ROLES as readonly string[]).includes(value);
}

export function mayDo(role: Role, permission: Permission): boolean {
  return GRANTS[role].includes(permission);
}

/**
 * The role a user ends up with when added to a workspace (again): the role asked for; without one, the role the
 * user already has there; for a new member, `defaultRole`.
 */
export function membershipRole(requested: Role | null, current: Role | undefined, defaultRole: Role): Role {
  return requested ?? current ?? defaultRole;
}
