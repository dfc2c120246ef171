import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { FieldDefinition } from '../../src/domain/fields.js';
import { checkRecordData } from '../../src/domain/record-data.js';

const fields: FieldDefinition[] = [
  { key: 'title', label: 'Title', type: 'text', required: true },
  { key: 'price', label: 'Price', type: 'number', required: false },
  { key: 'active', label: 'Active', type: 'boolean', required: false },
  { key: 'released', label: 'Released', type: 'date', required: false },
  { key: 'name', label: 'Name', type: 'translatable', required: false },
  { key: 'author', label: 'Author', type: 'relation', required: false, relationTo: 'model:author', relationType: 'hasOne' },
  { key: 'tags', label: 'Tags', type: 'relation', required: false, relationTo: 'model:tag', relationType: 'hasMany' },
  {
    key: 'size',
    label: 'Size',
    type: 'object',
    required: false,
    fields: [{ key: 'width', label: 'Width', type: 'number', required: true }],
  },
  { key: 'meta', label: 'Meta', type: 'object', required: false },
];

function messages(data: unknown): string[] {
  return checkRecordData(fields, data).issues.map((issue) => `${issue.path}: ${issue.reason}`);
}

test('validation: a valid record of every field type has no issues', () => {
  const check = checkRecordData(fields, {
    title: 'Ball',
    price: 149.99,
    active: true,
    released: '2024-05-01',
    name: { en: 'Ball', 'pt-BR': 'Bola' },
    author: 'a1',
    tags: ['t1', 't2'],
    size: { width: 3 },
    meta: { anything: [1, { deep: true }] },
  });
  assert.deepEqual(check.issues, []);
  assert.deepEqual(
    check.references.map((reference) => [reference.fieldKey, reference.targetSlug, reference.targetId]),
    [
      ['author', 'author', 'a1'],
      ['tags', 'tag', 't1'],
      ['tags', 'tag', 't2'],
    ],
  );
});

test('validation: a missing required field is refused naming the field', () => {
  assert.deepEqual(messages({ price: 1 }), ['title: is required']);
  assert.deepEqual(messages({ title: null }), ['title: is required']);
});

test('validation: types are strict JSON types (a number as a string is refused)', () => {
  assert.deepEqual(messages({ title: 'x', price: '149.99' }), ['price: expected a number']);
  assert.deepEqual(messages({ title: 5 }), ['title: expected a string']);
  assert.deepEqual(messages({ title: 'x', active: 'yes' }), ['active: expected true or false']);
});

test('validation: dates must be ISO 8601', () => {
  assert.deepEqual(messages({ title: 'x', released: '2024-05-01T10:00:00Z' }), []);
  assert.equal(messages({ title: 'x', released: '01/05/2024' })[0]?.startsWith('released: expected an ISO 8601'), true);
  assert.equal(messages({ title: 'x', released: '2024-13-45' })[0]?.startsWith('released:'), true);
});

test('validation: an unknown key is refused as an unknown field', () => {
  assert.deepEqual(messages({ title: 'x', colour: 'red' }), ['colour: unknown field']);
  assert.deepEqual(messages({ title: 'x', prise: 1 }), ['prise: unknown field']);
});

test('validation: the NUL character is refused in strings, naming the field', () => {
  assert.deepEqual(messages({ title: 'a\u0000b' }), ['title: must not contain the NUL character']);
  assert.deepEqual(messages({ title: 'x', name: { en: '\u0000' } }), ['name.en: must not contain the NUL character']);
  assert.deepEqual(messages({ title: 'x', meta: { a: ['\u0000'] } }), ['meta.a[0]: must not contain the NUL character']);
});

test('validation: translatable values are objects of locale code to string', () => {
  assert.deepEqual(messages({ title: 'x', name: 'Ball' })[0]?.startsWith('name: expected an object'), true);
  assert.deepEqual(messages({ title: 'x', name: { english: 'Ball' } })[0]?.startsWith('name.english:'), true);
  assert.deepEqual(messages({ title: 'x', name: { en: 5 } }), ['name.en: expected a string']);
});

test('validation: object sub-fields are validated like a nested model', () => {
  assert.deepEqual(messages({ title: 'x', size: {} }), ['size.width: is required']);
  assert.deepEqual(messages({ title: 'x', size: { width: 'wide' } }), ['size.width: expected a number']);
  assert.deepEqual(messages({ title: 'x', size: { width: 1, depth: 2 } }), ['size.depth: unknown field']);
  assert.deepEqual(messages({ title: 'x', meta: [1] }), ['meta: expected a JSON object']);
});

test('validation: a free-form object field refuses numbers JSON cannot hold (1e400 parses to Infinity), by path', () => {
  const parsed = JSON.parse('{"title":"x","meta":{"a":1e400,"b":[1,-1e400],"c":{"d":1.5}}}');
  assert.deepEqual(messages(parsed), ['meta.a: expected a finite number', 'meta.b[1]: expected a finite number']);
  assert.deepEqual(messages({ title: 'x', meta: { a: 1e300, b: [0, -0.5] } }), []);
});

test('validation: relations hold record ids (hasOne a string, hasMany an array)', () => {
  assert.deepEqual(messages({ title: 'x', author: ['a1'] }), ['author: expected a record id (string)']);
  assert.deepEqual(messages({ title: 'x', tags: 't1' }), ['tags: expected an array of record ids']);
});

test('validation: data must be a JSON object', () => {
  for (const data of [null, [], 'x', 5]) {
    assert.deepEqual(messages(data), ['data: must be a JSON object keyed by field key']);
  }
});

test('validation: prototype keys are refused and never reach the prototype', () => {
  assert.deepEqual(messages(JSON.parse('{"title":"x","__proto__":{"a":1}}')), ['__proto__: key not allowed']);
  assert.deepEqual(messages(JSON.parse('{"title":"x","meta":{"__proto__":{"a":1}}}')), ['meta.__proto__: key not allowed']);
  assert.equal(({} as Record<string, unknown>).a, undefined);
});

test('validation: null values of optional fields are dropped from the stored data', () => {
  assert.deepEqual(checkRecordData(fields, { title: 'x', price: null }).data, { title: 'x' });
});

test('validation: the checked data has the fields in the model order without nulls, however the keys were given', () => {
  const stored = (data: Record<string, unknown>) => JSON.stringify(checkRecordData(fields, data).data);
  const full = '{"title":"Ball","price":2,"active":true,"released":"2024-05-01","size":{"width":3},"meta":{"b":1,"a":2}}';
  // In the model's order already: the same text, and the given object itself is kept (nothing to copy).
  const inOrder = { title: 'Ball', price: 2, active: true, released: '2024-05-01', size: { width: 3 }, meta: { b: 1, a: 2 } };
  assert.equal(stored(inOrder), full);
  assert.equal(checkRecordData(fields, inOrder).data, inOrder);
  // Any other order, nulls (dropped) or a changed value (a copied relation list): a new object in the model's order.
  assert.equal(
    stored({ meta: { b: 1, a: 2 }, price: 2, size: { width: 3 }, title: 'Ball', released: '2024-05-01', active: true }),
    full,
  );
  assert.equal(
    stored({
      title: 'Ball',
      price: 2,
      name: null,
      active: true,
      released: '2024-05-01',
      size: { width: 3 },
      meta: { b: 1, a: 2 },
    }),
    full,
  );
  assert.equal(stored({ title: 'Ball', price: null, active: true }), '{"title":"Ball","active":true}');
  assert.equal(
    stored({ title: 'Ball', price: 2, size: { extra: 1, width: 3 } }),
    '{"title":"Ball","price":2,"size":{"width":3}}',
  );
  assert.equal(stored({ title: 'Ball', tags: ['t1'], price: 2 }), '{"title":"Ball","price":2,"tags":["t1"]}');
  assert.equal(
    stored({ title: 'Ball', price: 2, tags: ['t1'], meta: { a: null } }),
    '{"title":"Ball","price":2,"tags":["t1"],"meta":{"a":null}}',
  );
  const translated = { title: 'Ball', name: { en: 'Ball', de: null } };
  assert.equal(stored(translated), '{"title":"Ball","name":{"en":"Ball"}}');
  const withList = { title: 'Ball', tags: ['t1'] };
  assert.notEqual(checkRecordData(fields, withList).data, withList);
});
