import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import jsonPatch from 'fast-json-patch';
import { deepEqual } from '../../src/shared/json.js';
import { diffJson } from '../../src/domain/json-patch.js';
import { jsonValue, plain } from '../support/json-arbitrary.js';

// Keys that need RFC 6901 escaping, or look like one, beside short ordinary ones.
const key = fc.oneof(fc.string({ maxLength: 3 }), fc.constantFrom('a/b', '~', '~1', '~0/', ''));
const json = jsonValue(key, fc.string({ maxLength: 4 }));
const data = fc.dictionary(key, json, { maxKeys: 6 }).map(plain);

test('a diff applied by an RFC 6902 library (fast-json-patch) to the first value gives the second exactly', () => {
  fc.assert(
    fc.property(data, data, (from, to) => {
      const operations = diffJson(from, to);
      const applied = jsonPatch.applyPatch(
        structuredClone(from),
        structuredClone(operations) as jsonPatch.Operation[],
        true,
        false,
      ).newDocument;
      assert.ok(deepEqual(applied, to), `${JSON.stringify(from)} → ${JSON.stringify(to)}: ${JSON.stringify(applied)}`);
    }),
    { numRuns: 2000 },
  );
});

test('a diff is sorted by path, uses only add, remove and replace, and is empty between equal values', () => {
  fc.assert(
    fc.property(data, data, (from, to) => {
      const paths = diffJson(from, to).map(({ path }) => path);
      assert.deepEqual(paths, [...paths].sort());
      assert.ok(diffJson(from, to).every(({ op }) => op === 'add' || op === 'remove' || op === 'replace'));
      assert.deepEqual(diffJson(to, structuredClone(to)), []);
    }),
  );
});
