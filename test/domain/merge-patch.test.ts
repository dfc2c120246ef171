import assert from 'node:assert/strict';
import { test } from 'node:test';
import { mergePatch } from '../../src/domain/merge-patch.js';

// The test vectors of RFC 7386, appendix A.
const RFC_7386_EXAMPLES: [unknown, unknown, unknown][] = [
  [{ a: 'b' }, { a: 'c' }, { a: 'c' }],
  [{ a: 'b' }, { b: 'c' }, { a: 'b', b: 'c' }],
  [{ a: 'b' }, { a: null }, {}],
  [{ a: 'b', b: 'c' }, { a: null }, { b: 'c' }],
  [{ a: ['b'] }, { a: 'c' }, { a: 'c' }],
  [{ a: 'c' }, { a: ['b'] }, { a: ['b'] }],
  [{ a: { b: 'c' } }, { a: { b: 'd', c: null } }, { a: { b: 'd' } }],
  [{ a: [{ b: 'c' }] }, { a: [1] }, { a: [1] }],
  [
    ['a', 'b'],
    ['c', 'd'],
    ['c', 'd'],
  ],
  [{ a: 'b' }, ['c'], ['c']],
  [{ a: 'foo' }, null, null],
  [{ a: 'foo' }, 'bar', 'bar'],
  [{ e: null }, { a: 1 }, { e: null, a: 1 }],
  [[1, 2], { a: 'b', c: null }, { a: 'b' }],
  [{}, { a: { bb: { ccc: null } } }, { a: { bb: {} } }],
];

test('record.patch merge: every example of RFC 7386 appendix A', () => {
  for (const [target, patch, expected] of RFC_7386_EXAMPLES) {
    assert.deepEqual(mergePatch(target, patch), expected, `patch ${JSON.stringify(patch)} on ${JSON.stringify(target)}`);
  }
});

test('record.patch merge: a field left out keeps its stored value', () => {
  assert.deepEqual(mergePatch({ title: 'Ball', price: 10 }, { price: 12 }), { title: 'Ball', price: 12 });
});

test('record.patch merge: a translatable field given an object is merged key by key', () => {
  assert.deepEqual(mergePatch({ name: { en: 'Ball', pl: 'Piłka' } }, { name: { de: 'Ball', pl: null } }), {
    name: { en: 'Ball', de: 'Ball' },
  });
});

test('record.patch merge: never mutates the stored value or the patch', () => {
  const stored = { name: { en: 'Ball' } };
  const patch = { name: { pl: 'Piłka' } };
  mergePatch(stored, patch);
  assert.deepEqual(stored, { name: { en: 'Ball' } });
  assert.deepEqual(patch, { name: { pl: 'Piłka' } });
});

test('record.patch merge: a __proto__ key becomes an own key, never the prototype', () => {
  const patch = JSON.parse('{"__proto__": {"polluted": true}}');
  const result = mergePatch({}, patch) as Record<string, unknown>;
  assert.equal(({} as Record<string, unknown>).polluted, undefined);
  assert.equal(Object.getPrototypeOf(result), Object.prototype);
  assert.deepEqual(Object.keys(result), ['__proto__']);
});
