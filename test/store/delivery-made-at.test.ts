// When a materialiser pass makes a webhook's deliveries (their due time, which orders the claims): at its clock
// reading, but never before the webhook's last pass, unless that lies further ahead than a few seconds.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { madeAt } from '../../src/store/query/delivery-plan.js';

test('a pass after an earlier one is made at its own clock reading', () => {
  assert.equal(madeAt(10_000, 0), 10_000);
  assert.equal(madeAt(10_000, 9_990), 10_000);
});

test('a pass that read its clock before the last pass made deliveries is made at that pass’s time', () => {
  assert.equal(madeAt(10_000, 10_020), 10_020);
  assert.equal(madeAt(10_000, 15_000), 15_000);
});

test('a last pass far ahead (a clock set back, a test clock) does not hold deliveries back', () => {
  assert.equal(madeAt(10_000, 15_001), 10_000);
  assert.equal(madeAt(10_000, 3_600_000), 10_000);
});
