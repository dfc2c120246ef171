// Settings → API tokens' state (src/admin-ui/tokens-state.ts): a token's status, the create form's check and
// which field a refusal is about. No DOM.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { checkTokenForm, tokenFieldError, tokenStatus, type ApiToken } from '../../src/admin-ui/tokens-state.js';

const token = (part: Partial<ApiToken>): ApiToken => ({
  id: 't1',
  name: 'nightly import',
  userEmail: 'ann@example.com',
  role: 'admin',
  createdAt: '2026-01-01T00:00:00Z',
  expiresAt: null,
  revokedAt: null,
  lastUsedAt: null,
  ...part,
});

describe('tokens-state', () => {
  test('revoked, expired (at the moment of expiry) or active', () => {
    const now = Date.parse('2026-06-01T00:00:00Z');
    assert.match(tokenStatus(token({ revokedAt: '2026-02-01T00:00:00Z' }), now), /^Revoked /);
    assert.match(tokenStatus(token({ expiresAt: '2026-06-01T00:00:00Z' }), now), /^Expired /);
    assert.equal(tokenStatus(token({ expiresAt: '2026-06-02T00:00:00Z' }), now), 'Active');
    assert.equal(tokenStatus(token({}), now), 'Active');
  });

  test('the form needs a name; an expiry is optional and must be a date', () => {
    assert.deepEqual(checkTokenForm('  ', ''), { ok: false, field: 'name', message: 'Give the token a name.' });
    assert.deepEqual(checkTokenForm(' ci ', ''), { ok: true, name: 'ci', expiresAt: null });
    assert.deepEqual(checkTokenForm('ci', 'soon'), { ok: false, field: 'expiresAt', message: 'Not a date and time.' });
    const dated = checkTokenForm('ci', '2026-07-01T12:30');
    assert.equal(dated.ok, true);
    assert.equal(dated.ok && dated.expiresAt, new Date('2026-07-01T12:30').toISOString());
  });

  test('a refusal about the name or the expiry goes to that field', () => {
    assert.deepEqual(tokenFieldError('name: too long'), { field: 'name', text: 'too long' });
    assert.deepEqual(tokenFieldError('expiresAt: in the past'), { field: 'expiresAt', text: 'in the past' });
    assert.equal(tokenFieldError('FORBIDDEN'), null);
  });
});
