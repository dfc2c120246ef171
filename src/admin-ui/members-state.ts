// Settings → Members' state, without a DOM: the roles the viewer may grant, what a member's row offers, the check
// of the add form, and which panel an added member gets. page-members.ts renders it, members-api.ts calls the API.
import type { Role } from './types.js';

export interface Member {
  userId: string;
  email: string;
  role: Role;
  hasPassword: boolean;
  addedAt: string | null;
}

export const ROLE_OPTIONS: { value: Role; label: string }[] = [
  { value: 'owner', label: 'Owner' },
  { value: 'admin', label: 'Admin' },
  { value: 'editor', label: 'Editor' },
  { value: 'viewer', label: 'Viewer' },
];

/** Only an owner grants the owner role (the server refuses it to an admin); the choice is not offered then. */
export function roleChoices(viewerRole: Role): { value: Role; label: string }[] {
  return viewerRole === 'owner' ? ROLE_OPTIONS : ROLE_OPTIONS.filter((option) => option.value !== 'owner');
}

/** What a member's row offers the viewer: an owner's row only to an owner, whose select keeps the owner role. */
export function memberRow(member: Member, viewer: { email: string; role: Role }) {
  return {
    isYou: member.email === viewer.email,
    mayTouch: member.role !== 'owner' || viewer.role === 'owner',
    choices: member.role === 'owner' ? ROLE_OPTIONS : roleChoices(viewer.role),
  };
}

/** The add form's check before sending: the email's problem, or null. */
export function emailProblem(email: string): string | null {
  return email.trim() === '' ? 'Enter the email of the person to add.' : null;
}

/** A refusal about the email (`email: …`) shown at the field; null for others. */
export function emailFieldError(message: string): string | null {
  return /^email:/.test(message) ? message.replace(/^email: /, '') : null;
}

/** What the panel of an added member says: their one-time link, that they can sign in, or how an operator helps. */
export function addedPanelKind(link: string | null, member: Member): 'link' | 'has-password' | 'operator' {
  if (link) return 'link';
  return member.hasPassword ? 'has-password' : 'operator';
}
