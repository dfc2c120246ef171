// How long a failing webhook's pauses last (webhooks/pauses.ts): doubling from 1 s, never past the schedule's first
// retry delay, so that a receiver that comes back waits no longer than a retry would have.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DEFAULT_RETRY_DELAYS_SECONDS } from '../../src/webhooks/retry.js';
import { longestPause, pauseLength } from '../../src/webhooks/worker.js';

test('with the default schedule the pauses are 1, 2 and 4 s, then 5 s (the first retry delay) each', () => {
  const longest = longestPause(DEFAULT_RETRY_DELAYS_SECONDS);
  assert.equal(longest, 5_000);
  assert.deepEqual(
    [1, 2, 3, 4, 5, 10].map((count) => pauseLength(count, longest)),
    [1_000, 2_000, 4_000, 5_000, 5_000, 5_000],
  );
});

test('a schedule with a long first delay pauses at most 30 s; a short one at most that delay, and not under 100 ms', () => {
  assert.equal(longestPause([60, 60]), 30_000);
  assert.equal(pauseLength(20, longestPause([60, 60])), 30_000);
  assert.equal(longestPause([0.25, 1]), 250);
  assert.equal(pauseLength(1, longestPause([0.25, 1])), 250);
  assert.equal(longestPause([0, 5]), 100);
});
