// The bounded map behind the service's caches (src/shared/bounded-map.ts): at most `capacity` entries, the one set
// first goes when a new key would pass it.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { BoundedMap } from '../../src/shared/bounded-map.js';

test('a new key past the capacity drops the entry set first; reading an entry does not keep it longer', () => {
  const map = new BoundedMap<string, number>(2);
  map.set('a', 1);
  map.set('b', 2);
  assert.equal(map.get('a'), 1);
  map.set('c', 3);
  assert.equal(map.get('a'), undefined);
  assert.equal(map.get('b'), 2);
  assert.equal(map.get('c'), 3);
});

test('setting a key it holds replaces the value and drops nothing', () => {
  const map = new BoundedMap<string, number>(2);
  map.set('a', 1);
  map.set('b', 2);
  map.set('b', 20);
  assert.equal(map.get('a'), 1);
  assert.equal(map.get('b'), 20);
});
