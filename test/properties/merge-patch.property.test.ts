import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { isPlainObject } from '../../src/shared/json.js';
import { mergePatch } from '../../src/domain/merge-patch.js';
import { jsonValue, plain } from '../support/json-arbitrary.js';

// Keys include the ones that pollute prototypes when a merge assigns with `result[key] = …`.
const key = fc.oneof(fc.string({ maxLength: 4 }), fc.constantFrom('__proto__', 'constructor', 'toString'));
const json = jsonValue(key);
const objectWithNulls = fc.dictionary(key, json, { maxKeys: 6 }).map(plain);

/** The RFC 7386 section 2 pseudocode, word for word. */
function rfc7386(target: unknown, patch: unknown): unknown {
  if (!isPlainObject(patch)) return patch;
  const result: Record<string, unknown> = {};
  if (isPlainObject(target)) for (const [name, value] of Object.entries(target)) define(result, name, value);
  for (const [name, value] of Object.entries(patch)) {
    if (value === null) delete result[name];
    else define(result, name, rfc7386(Object.hasOwn(result, name) ? result[name] : undefined, value));
  }
  return result;
}

function define(object: Record<string, unknown>, name: string, value: unknown): void {
  Object.defineProperty(object, name, { value, enumerable: true, writable: true, configurable: true });
}

test('record.patch merge (property): the same result as the RFC 7386 pseudocode, no prototype touched', () => {
  fc.assert(
    fc.property(json, json, (target, patch) => {
      const targetBefore = JSON.stringify(target);
      const result = mergePatch(target, patch);
      assert.equal(JSON.stringify(result), JSON.stringify(rfc7386(target, patch)));
      assert.equal(JSON.stringify(target), targetBefore, 'the target is not mutated');
      assert.equal(Object.keys(Object.prototype).length, 0, 'Object.prototype is untouched');
      if (isPlainObject(result)) assert.equal(Object.getPrototypeOf(result), Object.prototype);
    }),
    { numRuns: 1000 },
  );
});

test('record.patch merge (property): RFC 7386 key by key for any target and patch', () => {
  fc.assert(
    fc.property(json, objectWithNulls, (target, patch) => {
      const result = mergePatch(target, patch) as Record<string, unknown>;
      const base = isPlainObject(target) ? target : {};
      for (const [key, value] of Object.entries(patch)) {
        if (value === null) assert.equal(Object.hasOwn(result, key), false, `null removes "${key}"`);
        else assert.deepEqual(result[key], mergePatch(base[key], value), `"${key}" is merged`);
      }
      for (const key of Object.keys(base)) {
        if (!Object.hasOwn(patch, key)) assert.deepEqual(result[key], base[key], `"${key}" left out keeps its value`);
      }
    }),
    { numRuns: 500 },
  );
});

test('record.patch merge (property): applying the same patch twice changes nothing more', () => {
  fc.assert(
    fc.property(json, objectWithNulls, (target, patch) => {
      const once = mergePatch(target, patch);
      assert.deepEqual(mergePatch(once, patch), once);
    }),
    { numRuns: 500 },
  );
});

test('record.patch merge (property): patches of different keys commute, so concurrent patches of different fields both land', () => {
  fc.assert(
    fc.property(fc.dictionary(fc.string({ maxLength: 4 }), json), json, json, (target, first, second) => {
      const a = { a: first };
      const b = { b: second };
      assert.deepEqual(mergePatch(mergePatch(target, a), b), mergePatch(mergePatch(target, b), a));
    }),
    { numRuns: 300 },
  );
});
