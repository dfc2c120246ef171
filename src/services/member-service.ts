import { createHash, randomBytes } from 'node:crypto';
import { systemClock, type Clock } from '../clock.js';
import { ServiceError } from '../domain/errors.js';
import { checkGrant, checkMemberChange, requireEmail, requireRole, type MemberChange } from '../domain/members.js';
import type { MemberInfo, Store } from '../store/store.js';
import type { Actor } from './actor.js';

/** A sign-in link works this long, once. */
export const SIGN_IN_LINK_TTL_MS = 24 * 60 * 60 * 1000;
/** Where the admin application takes a sign-in link's token (in the fragment, so it never reaches a server log). */
export const SIGN_IN_LINK_PATH = '/admin/#/welcome?token=';

export interface AddedMemberResult {
  member: MemberInfo;
  /** The one-time link for a user without a password (null: the user has one, or a link cannot be given here). */
  signInLink: string | null;
  signInLinkExpiresAt: string | null;
}

/** 32 random bytes: only the SHA-256 of a link's token is stored, as for API tokens. */
export function hashSignInToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

function notAMember(): ServiceError {
  return new ServiceError('NOT_FOUND', 'userId: not a member of this workspace', { field: 'userId' });
}

/** The members of a workspace, managed through the admin API by its owners and admins (rules: domain/members.ts). */
export class MemberService {
  constructor(
    private readonly store: Store,
    private readonly clock: Clock = systemClock,
  ) {}

  list(workspaceId: string): Promise<MemberInfo[]> {
    return this.store.members.list(workspaceId);
  }

  /**
   * Adds the user with that email (created, without a password, when missing). A user without a password who is a
   * member of no other workspace gets a one-time sign-in link, at `origin`: it lets them choose a password. A user
   * who is a member elsewhere gets none, since the link would open those workspaces too: an operator sets their
   * password (`content-service user set-password`).
   */
  async add(actor: Actor, input: { email: unknown; role: unknown }, origin: string): Promise<AddedMemberResult> {
    const email = requireEmail(input.email);
    const role = requireRole(input.role);
    checkGrant(actor.role, role);
    const now = this.clock();
    const added = await this.store.members.add(actor.workspaceId, email, role, now);
    if (added === 'already-member') {
      throw new ServiceError('CONFLICT', `email: ${email} is already a member of this workspace; change the role instead`, {
        field: 'email',
      });
    }
    const { member } = added;
    if (member.hasPassword || added.otherWorkspaces > 0) return { member, signInLink: null, signInLinkExpiresAt: null };
    const token = randomBytes(32).toString('base64url');
    const expiresAt = now + SIGN_IN_LINK_TTL_MS;
    await this.store.members.createSignInLink({
      tokenHash: hashSignInToken(token),
      workspaceId: actor.workspaceId,
      userId: member.userId,
      createdBy: actor.userId,
      createdAt: now,
      expiresAt,
    });
    return {
      member,
      signInLink: `${origin}${SIGN_IN_LINK_PATH}${token}`,
      signInLinkExpiresAt: new Date(expiresAt).toISOString(),
    };
  }

  async setRole(actor: Actor, input: { userId: string; role: unknown }): Promise<MemberInfo> {
    const role = requireRole(input.role);
    const changed = await this.change(actor, input.userId, { role });
    return changed as MemberInfo;
  }

  /** The member's API tokens of this workspace are revoked with the membership: refused from the next request on. */
  async remove(actor: Actor, userId: string): Promise<{ id: string; deleted: boolean }> {
    await this.change(actor, userId, 'remove');
    return { id: userId, deleted: true };
  }

  private async change(actor: Actor, userId: string, change: MemberChange): Promise<MemberInfo | 'removed'> {
    const result = await this.store.members.change(
      actor.workspaceId,
      userId,
      change,
      (current, owners) => checkMemberChange(actor.role, current, owners, change),
      this.clock(),
    );
    if (result === null) throw notAMember();
    return result;
  }
}
