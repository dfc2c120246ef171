import assert from 'node:assert/strict';
import { test } from 'node:test';
import { newId } from '../../src/ids.js';

const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

test('record ids: UUIDv7 strings that sort in creation order, even many within one millisecond', () => {
  const ids = Array.from({ length: 20_000 }, () => newId());
  for (const id of ids) assert.match(id, UUID_V7);
  assert.deepEqual([...ids].sort(), ids);
  assert.equal(new Set(ids).size, ids.length);
});

test('record ids: the first 48 bits are the creation time in milliseconds', () => {
  const before = Date.now();
  const id = newId();
  const ms = parseInt(id.slice(0, 8) + id.slice(9, 13), 16);
  assert.ok(ms >= before && ms <= Date.now() + 5, `${ms} not near ${before}`);
});
