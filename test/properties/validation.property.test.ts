import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import type { FieldDefinition } from '../../src/domain/fields.js';
import { checkRecordData } from '../../src/domain/record-data.js';

const fields: FieldDefinition[] = [
  { key: 'title', label: 'Title', type: 'text', required: true },
  { key: 'price', label: 'Price', type: 'number', required: false },
  { key: 'active', label: 'Active', type: 'boolean', required: false },
  { key: 'released', label: 'Released', type: 'date', required: false },
  { key: 'name', label: 'Name', type: 'translatable', required: false },
  {
    key: 'size',
    label: 'Size',
    type: 'object',
    required: false,
    fields: [{ key: 'width', label: 'W', type: 'number', required: true }],
  },
];

const noNul = fc.string().filter((text) => !text.includes('\u0000'));
const validRecord = fc.record(
  {
    title: noNul,
    price: fc.double({ noNaN: true, noDefaultInfinity: true }),
    active: fc.boolean(),
    released: fc
      .date({ min: new Date('1900-01-01'), max: new Date('2200-01-01'), noInvalidDate: true })
      .map((date) => date.toISOString()),
    name: fc.dictionary(fc.constantFrom('en', 'pl', 'de', 'pt-BR'), noNul),
    size: fc.record({ width: fc.integer() }),
  },
  { requiredKeys: ['title'] },
);

test('validation (property): every well-typed record passes and is stored as given', () => {
  fc.assert(
    fc.property(validRecord, (data) => {
      const check = checkRecordData(fields, data);
      assert.deepEqual(check.issues, []);
      // fast-check builds objects without a prototype; the stored data is plain JSON.
      assert.deepEqual(check.data, structuredClone(data));
    }),
    { numRuns: 500 },
  );
});

const wrongValue: Record<string, fc.Arbitrary<unknown>> = {
  title: fc.oneof(fc.integer(), fc.boolean(), fc.array(fc.string()), fc.object()),
  price: fc.oneof(fc.string(), fc.boolean(), fc.constant(Number.POSITIVE_INFINITY), fc.array(fc.integer())),
  active: fc.oneof(fc.string(), fc.integer(), fc.object()),
  released: fc.oneof(fc.integer(), fc.constantFrom('yesterday', '2024-02-30', '31/12/2024', '')),
  name: fc.oneof(fc.string(), fc.integer(), fc.array(fc.string())),
  size: fc.oneof(fc.string(), fc.integer(), fc.array(fc.integer())),
};

test('validation (property): one wrong value is refused with a message that names its field first', () => {
  fc.assert(
    fc.property(
      validRecord,
      fc.constantFrom(...Object.keys(wrongValue)).chain((key) => fc.tuple(fc.constant(key), wrongValue[key]!)),
      (data, [key, value]) => {
        const issues = checkRecordData(fields, { ...data, [key]: value }).issues;
        assert.equal(issues.length, 1, JSON.stringify(issues));
        assert.equal(issues[0]!.path.split(/[.[]/)[0], key);
      },
    ),
    { numRuns: 500 },
  );
});
