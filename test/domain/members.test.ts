// The members rules as pure functions: every actor role × member role × change × owner count.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ServiceError } from '../../src/domain/errors.js';
import { checkGrant, checkMemberChange, requireEmail, requireRole, type MemberChange } from '../../src/domain/members.js';
import { mayDo, ROLES, type Role } from '../../src/domain/roles.js';

function outcome(run: () => void): string {
  try {
    run();
    return 'ok';
  } catch (error) {
    assert.ok(error instanceof ServiceError);
    return `${error.code}: ${error.message}`;
  }
}

test('members rules: only owners and admins manage members', () => {
  assert.deepEqual(
    ROLES.filter((role) => mayDo(role, 'manage members')),
    ['owner', 'admin'],
  );
});

test('members rules: only an owner grants, changes or removes owner; the last owner stays', () => {
  const changes: MemberChange[] = [{ role: 'owner' }, { role: 'admin' }, { role: 'viewer' }, 'remove'];
  for (const actor of ['owner', 'admin'] as Role[]) {
    for (const current of ROLES) {
      for (const change of changes) {
        for (const owners of [1, 2]) {
          const got = outcome(() => checkMemberChange(actor, current, owners, change));
          const name = `${actor} ${change === 'remove' ? 'removes' : `sets ${change.role} on`} a ${current} (${owners} owner(s))`;
          let expected = 'ok';
          const demotes = change === 'remove' || change.role !== 'owner';
          if (actor === 'admin' && current === 'owner') {
            expected =
              change === 'remove'
                ? 'FORBIDDEN: Forbidden: admin may not remove an owner'
                : "FORBIDDEN: Forbidden: admin may not change an owner's role";
          } else if (actor === 'admin' && change !== 'remove' && change.role === 'owner') {
            expected = 'FORBIDDEN: Forbidden: admin may not grant the owner role';
          } else if (current === 'owner' && demotes && owners === 1) {
            expected = `CONFLICT: userId: the last owner of the workspace cannot be ${change === 'remove' ? 'removed' : 'demoted'}; make another member owner first`;
          }
          assert.equal(got, expected, name);
        }
      }
    }
  }
  assert.equal(
    outcome(() => checkGrant('admin', 'owner')),
    'FORBIDDEN: Forbidden: admin may not grant the owner role',
  );
  assert.equal(
    outcome(() => checkGrant('owner', 'owner')),
    'ok',
  );
  assert.equal(
    outcome(() => checkGrant('admin', 'admin')),
    'ok',
  );
});

test('members rules: roles and emails are checked by name', () => {
  assert.equal(requireRole('editor'), 'editor');
  assert.equal(
    outcome(() => requireRole('Owner')),
    'BAD_USER_INPUT: role: must be one of owner, admin, editor, viewer',
  );
  assert.equal(requireEmail('  Ann@Example.COM '), 'ann@example.com');
  for (const bad of ['', 'ann', 'ann@', '@x', 'a b@c', 42, null, `${'a'.repeat(320)}@x`]) {
    assert.equal(
      outcome(() => requireEmail(bad)),
      'BAD_USER_INPUT: email: must be an email address',
      String(bad),
    );
  }
});
