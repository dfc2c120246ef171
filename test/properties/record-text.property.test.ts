import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import type { FieldDefinition } from '../../src/domain/fields.js';
import { checkRecordData } from '../../src/domain/record-data.js';
import { recordText } from '../../src/domain/record-text.js';

const fields: FieldDefinition[] = [
  { key: 'title', label: 'Title', type: 'text', required: false },
  { key: 'price', label: 'Price', type: 'number', required: false },
  { key: 'active', label: 'Active', type: 'boolean', required: false },
  { key: 'released', label: 'Released', type: 'date', required: false },
  { key: 'name', label: 'Name', type: 'translatable', required: false },
  { key: 'tags', label: 'Tags', type: 'object', required: false },
  {
    key: 'size',
    label: 'Size',
    type: 'object',
    required: false,
    fields: [{ key: 'width', label: 'W', type: 'number', required: true }],
  },
];

// Strings with the characters JSON escapes (quotes, backslashes, controls) and characters beyond ASCII.
const text = fc.string({ unit: fc.constantFrom('a', 'Ż', '"', '\\', '\n', '\u0001', '\u001f', '😀', '\u2028', ' ', '/') });
const value = fc.oneof(
  text,
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.integer(),
  fc.boolean(),
  fc.constant(null),
  fc.jsonValue(),
);
// Keys in any order, some not fields, values of any type: whatever checkRecordData keeps is serialised.
const anyData = fc.dictionary(fc.constantFrom('title', 'price', 'active', 'released', 'name', 'tags', 'size', 'other'), value);
const typedData = fc.record(
  {
    title: text,
    price: fc.oneof(fc.double({ noNaN: true, noDefaultInfinity: true }), fc.constantFrom(-0, 1e21, 5e-7, 0.1 + 0.2)),
    active: fc.boolean(),
    name: fc.dictionary(fc.constantFrom('en', 'pl'), text),
    tags: fc.jsonValue(),
    size: fc.record({ width: fc.integer() }),
  },
  { requiredKeys: [] },
);

test('record text (property): the checked data serialises to exactly what JSON.stringify writes', () => {
  fc.assert(
    fc.property(fc.oneof(anyData, typedData), (data) => {
      const check = checkRecordData(fields, data);
      assert.equal(recordText(fields, check.data), JSON.stringify(check.data));
    }),
    { numRuns: 2000 },
  );
});

test('record text: data holding a key that is not a field is still serialised whole', () => {
  const data = { title: 'a', extra: 1 };
  assert.equal(recordText(fields, data), '{"title":"a","extra":1}');
  assert.equal(recordText(fields, {}), '{}');
  assert.equal(
    recordText(fields, { title: 'q"uote', price: -0, active: false }),
    '{"title":"q\\"uote","price":0,"active":false}',
  );
});
