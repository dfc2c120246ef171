import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ServiceError } from '../../src/domain/errors.js';
import { checkSchedule, publishIds, recordStatus } from '../../src/domain/drafts.js';

function refused(message: string) {
  return (error: unknown) => {
    assert.ok(error instanceof ServiceError, String(error));
    assert.equal(error.code, 'BAD_USER_INPUT');
    assert.equal(error.message, message);
    return true;
  };
}

test('status: draft without a published copy; published when the data are deeply equal, whatever the key order; else changed', () => {
  assert.equal(recordStatus({ a: 1 }, null), 'draft');
  assert.equal(recordStatus({ a: 1, b: { c: [1, 2] } }, { b: { c: [1, 2] }, a: 1 }), 'published');
  assert.equal(recordStatus({ a: 1, b: { c: [2, 1] } }, { a: 1, b: { c: [1, 2] } }), 'changed');
});

test('publish ids: each once, in order; more than 1000 refused naming the argument', () => {
  assert.deepEqual(publishIds(['b', 'a', 'b']), ['b', 'a']);
  const many = Array.from({ length: 1001 }, (_, index) => `id-${index}`);
  assert.throws(() => publishIds(many), refused('ids: at most 1000 ids, got 1001'));
});

test('schedule input: a known action, a future time at most 5 years ahead, at least one id', () => {
  const now = Date.parse('2026-12-07T12:00:00.000Z');
  assert.deepEqual(checkSchedule({ ids: ['a', 'a'], action: 'publish', at: '2026-12-08T00:00:00Z' }, now), {
    ids: ['a'],
    action: 'publish',
    at: Date.parse('2026-12-08T00:00:00Z'),
  });
  const at = '2027-01-01T00:00:00Z';
  assert.throws(
    () => checkSchedule({ ids: ['a'], action: 'archive', at }, now),
    refused('input.action: expected publish or unpublish, got "archive"'),
  );
  assert.throws(
    () => checkSchedule({ ids: ['a'], action: 'publish', at: 'noon' }, now),
    refused('input.at: expected an ISO 8601 date-time, got "noon"'),
  );
  assert.throws(
    () => checkSchedule({ ids: ['a'], action: 'publish', at: '2026-12-07T11:59:59Z' }, now),
    refused('input.at: must be in the future'),
  );
  assert.throws(
    () => checkSchedule({ ids: ['a'], action: 'unpublish', at: '2031-12-08T00:00:00Z' }, now),
    refused('input.at: at most 5 years ahead'),
  );
  assert.throws(() => checkSchedule({ ids: [], action: 'publish', at }, now), refused('input.ids: give at least one id'));
});
