// Settings → Members' calls to the API: the list, a role change, the removal and the addition of a member.
import { gql } from './api.js';
import type { Member } from './members-state.js';

const MEMBER_FIELDS = 'userId email role hasPassword addedAt';

export async function listMembers(): Promise<Member[]> {
  const data = await gql<{ member: { list: Member[] } }>(`query AdminMembers { member { list { ${MEMBER_FIELDS} } } }`);
  return data.member.list;
}

export async function setRoleCall(userId: string, role: string): Promise<void> {
  await gql('mutation SetMemberRole($id: ID!, $role: String!) { member { setRole(userId: $id, role: $role) { userId } } }', {
    id: userId,
    role,
  });
}

export async function removeMemberCall(userId: string): Promise<void> {
  await gql('mutation RemoveMember($id: ID!) { member { remove(userId: $id) { id deleted } } }', { id: userId });
}

export interface AddedMember {
  member: Member;
  signInLink: string | null;
  signInLinkExpiresAt: string | null;
}

export async function addMemberCall(email: string, role: string): Promise<AddedMember> {
  const data = await gql<{ member: { add: AddedMember } }>(
    `mutation AddMember($email: String!, $role: String!) { member { add(email: $email, role: $role) { member { ${MEMBER_FIELDS} } signInLink signInLinkExpiresAt } } }`,
    { email, role },
  );
  return data.member.add;
}
