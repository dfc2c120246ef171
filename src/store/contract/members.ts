// The members half of the store contract: a workspace's members and the sign-in links of new users.
import type { Role } from '../../domain/roles.js';
import type { MemberChange } from '../../domain/members.js';

export interface MemberInfo {
  userId: string;
  email: string;
  role: Role;
  /** The user can sign in to the admin application with a password. */
  hasPassword: boolean;
  /** When the user became a member (ISO 8601); null for members added before this was recorded. */
  addedAt: string | null;
}

/** A member just added, with what decides whether the admin gets a sign-in link for the user. */
export interface AddedMember {
  member: MemberInfo;
  /** Workspaces other than this one the user is a member of. */
  otherWorkspaces: number;
}

export interface NewSignInLink {
  /** SHA-256 (hex) of the link's token; the token itself is only in the link. */
  tokenHash: string;
  workspaceId: string;
  userId: string;
  createdBy: string;
  /** Epoch milliseconds. */
  createdAt: number;
  expiresAt: number;
}

export interface MemberStore {
  /** The workspace's members, by email. */
  list(workspaceId: string): Promise<MemberInfo[]>;
  /** Adds the user (created without a password when there is none with that email); 'already-member' changes nothing. */
  add(workspaceId: string, email: string, role: Role, now: number): Promise<AddedMember | 'already-member'>;
  /**
   * Changes a member in one transaction that no other change of the workspace's members comes between: `check`
   * gets the member's role and the workspace's number of owners and throws to refuse (nothing changes). Removing
   * a member also revokes the user's API tokens of the workspace and voids the user's sign-in links there.
   * Null: no such member; 'removed' after a removal.
   */
  change(
    workspaceId: string,
    userId: string,
    change: MemberChange,
    check: (current: Role, owners: number) => void,
    now: number,
  ): Promise<MemberInfo | 'removed' | null>;
  /** Stores a sign-in link; the user's earlier links to the workspace stop working. */
  createSignInLink(link: NewSignInLink): Promise<void>;
  /**
   * Uses the link: when it is unused, unexpired, its user still a member of its workspace only and without a
   * password, sets the password hash and marks the link used, in one transaction; otherwise null and no change.
   */
  useSignInLink(tokenHash: string, passwordHash: string, now: number): Promise<{ userId: string; email: string } | null>;
  /** The email of the link's user, while the link could be used (see useSignInLink); null otherwise. */
  findSignInLink(tokenHash: string, now: number): Promise<{ email: string } | null>;
}
