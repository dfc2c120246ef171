import assert from 'node:assert/strict';
import { test } from 'node:test';
import { diffJson } from '../../src/domain/json-patch.js';

test('diff: objects key by key, arrays as whole values, old values beside new ones, sorted by path', () => {
  const from = { title: 'Mug', price: 12, tags: ['a', 'b'], dims: { w: 1, h: 2 }, gone: true };
  const to = { title: 'Mug', price: 14, tags: ['a'], dims: { w: 1, d: 3 }, added: { x: 1 } };
  assert.deepEqual(diffJson(from, to), [
    { op: 'add', path: '/added', value: { x: 1 } },
    { op: 'add', path: '/dims/d', value: 3 },
    { op: 'remove', path: '/dims/h', oldValue: 2 },
    { op: 'remove', path: '/gone', oldValue: true },
    { op: 'replace', path: '/price', value: 14, oldValue: 12 },
    { op: 'replace', path: '/tags', value: ['a'], oldValue: ['a', 'b'] },
  ]);
});

test('diff: keys with "/" and "~" are escaped as RFC 6901 says; a member set to null is replaced, not removed', () => {
  assert.deepEqual(diffJson({ 'a/b': 1, '~x': null }, { 'a/b': 2, '~x': 5 }), [
    { op: 'replace', path: '/a~1b', value: 2, oldValue: 1 },
    { op: 'replace', path: '/~0x', value: 5, oldValue: null },
  ]);
});

test('diff: a member that changes between an object and another type is replaced whole', () => {
  assert.deepEqual(diffJson({ a: { b: 1 } }, { a: [1] }), [{ op: 'replace', path: '/a', value: [1], oldValue: { b: 1 } }]);
  assert.deepEqual(diffJson({ a: 1 }, { a: 1 }), []);
});
