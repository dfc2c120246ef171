// Settings → Members' state (src/admin-ui/members-state.ts): the roles offered, what a row allows, the add form's
// check and the panel of an added member. No DOM.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  addedPanelKind,
  emailFieldError,
  emailProblem,
  memberRow,
  roleChoices,
  type Member,
} from '../../src/admin-ui/members-state.js';

const member = (part: Partial<Member>): Member => ({
  userId: 'u1',
  email: 'ann@example.com',
  role: 'editor',
  hasPassword: true,
  addedAt: null,
  ...part,
});

describe('members-state', () => {
  test('only an owner is offered the owner role', () => {
    assert.deepEqual(
      roleChoices('owner').map((option) => option.value),
      ['owner', 'admin', 'editor', 'viewer'],
    );
    assert.deepEqual(
      roleChoices('admin').map((option) => option.value),
      ['admin', 'editor', 'viewer'],
    );
  });

  test("an owner's row is touched by owners only, and its select keeps the owner role", () => {
    const admin = { email: 'me@example.com', role: 'admin' as const };
    const owner = { email: 'me@example.com', role: 'owner' as const };
    const ownerRow = memberRow(member({ role: 'owner' }), admin);
    assert.equal(ownerRow.mayTouch, false);
    assert.equal(ownerRow.choices[0]!.value, 'owner');
    assert.equal(memberRow(member({ role: 'owner' }), owner).mayTouch, true);
    const editorRow = memberRow(member({}), admin);
    assert.equal(editorRow.mayTouch, true);
    assert.equal(
      editorRow.choices.some((option) => option.value === 'owner'),
      false,
    );
    assert.equal(editorRow.isYou, false);
    assert.equal(memberRow(member({ email: 'me@example.com' }), admin).isYou, true);
  });

  test('the email is required; a refusal about it goes to the field', () => {
    assert.equal(emailProblem('   '), 'Enter the email of the person to add.');
    assert.equal(emailProblem(' ann@example.com '), null);
    assert.equal(emailFieldError('email: not an email address'), 'not an email address');
    assert.equal(emailFieldError('FORBIDDEN: nope'), null);
  });

  test('an added member gets their link, or is told they can sign in, or how an operator helps', () => {
    assert.equal(addedPanelKind('https://x/sign-in#abc', member({ hasPassword: false })), 'link');
    assert.equal(addedPanelKind(null, member({ hasPassword: true })), 'has-password');
    assert.equal(addedPanelKind(null, member({ hasPassword: false })), 'operator');
  });
});
