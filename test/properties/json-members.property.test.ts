// The member scanner populate reads stored text with, against JSON.parse: for any object written minified, the
// way PostgreSQL writes jsonb, or with any JSON whitespace, the spans it finds hold exactly the values JSON.parse
// gives; a populated record spliced from its text reads as the one written from its parsed data.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { jsonString, memberSpans, spanValue } from '../../src/domain/json-members.js';
import { defineLazyData, unparsedData } from '../../src/domain/json-text.js';
import { planPopulate, type PopulateNode } from '../../src/domain/populate.js';
import { RecordShaper, scanRelations } from '../../src/domain/record-shape.js';
import type { StoredRecord } from '../../src/domain/stored-record.js';
import { field, modelDefinition } from '../support/definitions.js';

// Strings full of what a scanner can trip on: quotes, backslashes, braces, brackets, commas, colons, spaces.
const tricky = fc.string({ unit: fc.constantFrom('a', '"', '\\', '{', '}', '[', ']', ',', ':', ' ', '\n', 'é', '😀') });
const text = fc.oneof(fc.string({ maxLength: 6 }), tricky);
const json: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constant(null),
    fc.boolean(),
    fc.integer(),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    text,
    fc.array(tie('value'), { maxLength: 3 }),
    fc.dictionary(text, tie('value'), { maxKeys: 3 }),
  ),
})).value;
const object = fc
  .dictionary(text, json, { maxKeys: 6 })
  .map((value) => JSON.parse(JSON.stringify(value)) as Record<string, unknown>);
const space = fc.constantFrom('', ' ', '\n', '\t', '\r\n  ');

/** JSON text of `value` with `gap` after every `:` and `,` and inside every bracket (PostgreSQL's jsonb: a space). */
function spaced(value: unknown, gap: string): string {
  if (Array.isArray(value)) return `[${gap}${value.map((item) => spaced(item, gap)).join(`,${gap}`)}${gap}]`;
  if (value !== null && typeof value === 'object') {
    const members = Object.entries(value).map(([key, item]) => `${JSON.stringify(key)}${gap}:${gap}${spaced(item, gap)}`);
    return `{${gap}${members.join(`,${gap}`)}${gap}}`;
  }
  return JSON.stringify(value);
}

test('json members: the spans found in any object text hold the values JSON.parse reads, and no others', () => {
  fc.assert(
    fc.property(object, space, fc.array(text, { maxLength: 3 }), (value, gap, extraKeys) => {
      for (const written of [JSON.stringify(value), spaced(value, gap), spaced(value, ' ')]) {
        const parsed = JSON.parse(written) as Record<string, unknown>;
        const asked = new Set([...Object.keys(parsed), ...extraKeys]);
        const spans = memberSpans(`${gap}${written}${gap}`, asked);
        assert.ok(spans, written);
        assert.deepEqual([...spans.keys()].sort(), Object.keys(parsed).sort());
        for (const [key, span] of spans) {
          const padded = `${gap}${written}${gap}`;
          assert.deepEqual(JSON.parse(padded.slice(span.start, span.end)), parsed[key]);
          assert.deepEqual(spanValue(padded, span), parsed[key]);
        }
      }
    }),
    { numRuns: 500 },
  );
});

test('json members: jsonString writes any string as JSON.stringify does', () => {
  const anyString = fc.oneof(
    tricky,
    fc.string({ unit: 'binary' }),
    fc.string({ unit: fc.integer({ min: 0, max: 0xffff }).map((code) => String.fromCharCode(code)) }),
  );
  fc.assert(
    fc.property(anyString, (value) => assert.equal(jsonString(value), JSON.stringify(value))),
    { numRuns: 2000 },
  );
  for (const value of ['', '\u0000', '\ud800', '\udc00x', '😀', '"', '\\', '\u2028', '\u007f'])
    assert.equal(jsonString(value), JSON.stringify(value));
});

test('json members: of a key written twice, the last (as JSON.parse); escaped keys are read unescaped', () => {
  const written = '{"a":1,"b\\"c":"x\\"y","a":{"a":2}}';
  const spans = memberSpans(written, new Set(['a', 'b"c']))!;
  assert.deepEqual(spanValue(written, spans.get('a')!), { a: 2 });
  assert.equal(spanValue(written, spans.get('b"c')!), 'x"y');
});

test('json members: a text that is not an object gives null; a cut or broken text never throws nor loops', () => {
  for (const written of ['[1]', '"a"', '1', 'null', '', '  ']) assert.equal(memberSpans(written, new Set(['a'])), null);
  fc.assert(
    fc.property(object, fc.nat(), fc.string({ maxLength: 3 }), (value, cut, inserted) => {
      const written = spaced(value, ' ');
      const at = cut % (written.length + 1);
      memberSpans(written.slice(0, at), new Set(Object.keys(value)));
      memberSpans(written.slice(0, at) + inserted + written.slice(at), new Set(Object.keys(value)));
    }),
    { numRuns: 500 },
  );
});

const category = modelDefinition('category', [field('title', 'text')]);
const product = modelDefinition('product', [
  field('one', 'relation', { relationTo: 'model:category', relationType: 'hasOne' }),
  field('many', 'relation', { relationTo: 'model:category', relationType: 'hasMany' }),
  field('title', 'text'),
]);

function stored(id: string, modelId: string, written: string | null, data: Record<string, unknown>): StoredRecord {
  const record = { id, modelId, workspaceId: 'w' } as StoredRecord;
  if (written === null) record.data = data;
  else defineLazyData(record, written);
  return Object.assign(record, { createdAt: 'c', updatedAt: 'u', createdBy: 'x', updatedBy: 'y' });
}

test('json members: a record populated from its stored text reads as the same record populated from its parsed data', () => {
  const level = planPopulate(product, ['one', 'many'], {
    modelBySlug: (slug) => (slug === 'category' ? category : undefined),
    publicOnly: false,
  });
  const ids = fc.constantFrom('c1', 'c2', 'gone', 'c"3', 'c\\4');
  const relationValue = fc.oneof(
    ids,
    fc.array(fc.oneof(ids, fc.constant(null), fc.integer()), { maxLength: 3 }),
    fc.constant(null),
    json,
  );
  const data = fc
    .record({ one: relationValue, many: relationValue, title: json }, { requiredKeys: [] })
    .chain((members) => object.map((rest) => JSON.parse(JSON.stringify({ ...rest, ...members })) as Record<string, unknown>));
  fc.assert(
    fc.property(data, space, (value, gap) => {
      const targets = new Map<PopulateNode, Map<string, StoredRecord>>();
      for (const node of level.relations.values()) {
        targets.set(
          node,
          new Map(['c1', 'c2', 'c"3', 'c\\4'].map((id) => [id, stored(id, category.id, null, { title: `title of ${id}` })])),
        );
      }
      const shaper = new RecordShaper({ locales: null, targets });
      const fromParsed = shaper.record(stored('p', product.id, null, value), product.fields, level).data;
      for (const written of [JSON.stringify(value), spaced(value, gap)]) {
        const source = stored('p', product.id, written, {});
        const relations = scanRelations(source, level)!.data;
        for (const key of ['one', 'many']) assert.deepEqual(relations[key], value[key]);
        const shaped = shaper.record(source, product.fields, level);
        const shapedText = unparsedData(shaped)!.text;
        assert.deepEqual(shaped.data, fromParsed);
        if ('title' in value && written !== JSON.stringify(value)) {
          const member = `${JSON.stringify('title')}${gap}:${gap}${spaced(value.title, gap)}`;
          assert.ok(shapedText.includes(member), 'the rest is copied as it was written');
        }
      }
    }),
    { numRuns: 300 },
  );
});
