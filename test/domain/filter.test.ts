// The filter language and sort names of record lists (delivery.md, "filter" and "sort"): what is read, and every
// refusal, each a BAD_USER_INPUT whose message starts with the path of the offending part.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ServiceError } from '../../src/domain/errors.js';
import type { FieldDefinition, ModelDefinition } from '../../src/domain/fields.js';
import { FILTER_LIMITS, parseFilter, type FilterNode } from '../../src/domain/filter.js';
import { readListing } from '../../src/domain/listing.js';
import { normaliseModelShape } from '../../src/domain/model-definition.js';
import { indexedValues } from '../../src/domain/record-paths.js';

const fields: FieldDefinition[] = [
  { key: 'sku', label: 'SKU', type: 'text', required: true },
  { key: 'title', label: 'Title', type: 'text', required: false },
  { key: 'price', label: 'Price', type: 'number', required: false },
  { key: 'color', label: 'Color', type: 'text', required: false },
  { key: 'inStock', label: 'In stock', type: 'boolean', required: false },
  { key: 'releasedOn', label: 'Released', type: 'date', required: false },
  { key: 'name', label: 'Name', type: 'translatable', required: false },
  {
    key: 'meta',
    label: 'Meta',
    type: 'object',
    required: false,
    fields: [
      { key: 'weight', label: 'Weight', type: 'number', required: false },
      { key: 'caption', label: 'Caption', type: 'translatable', required: false },
    ],
  },
  { key: 'extra', label: 'Extra', type: 'object', required: false },
  { key: 'category', label: 'Category', type: 'relation', required: false, relationTo: 'model:category', relationType: 'hasOne' },
  { key: 'tags', label: 'Tags', type: 'relation', required: false, relationTo: 'model:tag', relationType: 'hasMany' },
];
const model: Pick<ModelDefinition, 'fields' | 'product'> = {
  fields,
  product: { enabled: true, skuField: 'sku', priceField: 'price' },
};

function parse(filter: unknown): FilterNode | null {
  return parseFilter(model, filter);
}

function refusal(filter: unknown): string {
  try {
    parse(filter);
  } catch (error) {
    assert.ok(error instanceof ServiceError, String(error));
    assert.equal(error.code, 'BAD_USER_INPUT');
    assert.equal(error.extensions.field, 'filter');
    return error.message;
  }
  assert.fail(`expected ${JSON.stringify(filter)} to be refused`);
}

const ALL_OPERATORS = '$eq, $ne, $gt, $gte, $lt, $lte, $in, $nin, $exists, $contains, $startsWith, $and, $or, $not';

/** n `$not`s around a condition: a filter of n + 1 levels. */
function notNested(levels: number, inner: unknown = { price: 1 }): unknown {
  let filter = inner;
  for (let index = 0; index < levels; index++) filter = { $not: filter };
  return filter;
}

test('filter: a plain value is equality, operators sit under the path', () => {
  const price = { kind: 'value', keys: ['price'], type: 'number', sku: false };
  assert.deepEqual(parse({ price: 10 }), { kind: 'compare', target: price, op: 'eq', value: 10 });
  assert.deepEqual(parse({ price: { $gte: 10, $lt: 100 } }), {
    kind: 'and',
    nodes: [
      { kind: 'compare', target: price, op: 'gte', value: 10 },
      { kind: 'compare', target: price, op: 'lt', value: 100 },
    ],
  });
});

test('filter: no filter, null and {} filter nothing', () => {
  assert.equal(parse(undefined), null);
  assert.equal(parse(null), null);
  assert.equal(parse({}), null);
});

test('filter: $ne, $nin and $exists: false are negations; null with $eq/$ne means missing/present', () => {
  const price = { kind: 'value', keys: ['price'], type: 'number', sku: false } as const;
  assert.deepEqual(parse({ price: { $ne: 5 } }), { kind: 'not', node: { kind: 'compare', target: price, op: 'eq', value: 5 } });
  assert.deepEqual(parse({ price: { $nin: [1] } }), { kind: 'not', node: { kind: 'in', target: price, values: [1] } });
  assert.deepEqual(parse({ price: null }), { kind: 'not', node: { kind: 'exists', target: price } });
  assert.deepEqual(parse({ price: { $eq: null } }), { kind: 'not', node: { kind: 'exists', target: price } });
  assert.deepEqual(parse({ price: { $ne: null } }), { kind: 'exists', target: price });
  assert.deepEqual(parse({ price: { $exists: false } }), { kind: 'not', node: { kind: 'exists', target: price } });
});

test('filter: paths name fields, object sub-fields, translations and the record id and timestamps', () => {
  assert.deepEqual(parse({ 'meta.weight': { $gt: 1 } }), {
    kind: 'compare',
    target: { kind: 'value', keys: ['meta', 'weight'], type: 'number', sku: false },
    op: 'gt',
    value: 1,
  });
  assert.deepEqual(parse({ 'name.pt-BR': 'Bola' }), {
    kind: 'compare',
    target: { kind: 'value', keys: ['name', 'pt-BR'], type: 'text', sku: false },
    op: 'eq',
    value: 'Bola',
  });
  assert.deepEqual(parse({ 'meta.caption.en': { $contains: 'x' } }), {
    kind: 'text',
    target: { kind: 'value', keys: ['meta', 'caption', 'en'], type: 'text', sku: false },
    op: 'contains',
    text: 'x',
  });
  assert.deepEqual(parse({ id: { $in: ['a', 'b'] } }), { kind: 'in', target: { kind: 'id' }, values: ['a', 'b'] });
  assert.deepEqual(parse({ createdAt: { $gte: '2024-05-01T00:00:00Z' } }), {
    kind: 'compare',
    target: { kind: 'time', column: 'createdAt' },
    op: 'gte',
    value: Date.parse('2024-05-01T00:00:00Z'),
  });
  assert.deepEqual(parse({ updatedAt: { $lt: '2024-05-01' } }), {
    kind: 'compare',
    target: { kind: 'time', column: 'updatedAt' },
    op: 'lt',
    value: Date.parse('2024-05-01T00:00:00Z'),
  });
  // The SKU field is marked: the stores read it from its own column.
  assert.deepEqual(parse({ sku: 'A-1' }), {
    kind: 'compare',
    target: { kind: 'value', keys: ['sku'], type: 'text', sku: true },
    op: 'eq',
    value: 'A-1',
  });
});

test('filter: $contains on a hasMany relation holds an id; on a translatable field it searches every translation', () => {
  assert.deepEqual(parse({ tags: { $contains: 't1' } }), {
    kind: 'holds',
    target: { kind: 'many', keys: ['tags'], linkKey: 'tags' },
    id: 't1',
  });
  assert.deepEqual(parse({ name: { $startsWith: 'Ba' } }), {
    kind: 'text',
    target: { kind: 'locales', keys: ['name'] },
    op: 'startsWith',
    text: 'Ba',
  });
});

test('filter: $and, $or and $not combine filters, and $not applies to one path too', () => {
  const node = parse({ $or: [{ price: 1 }, { $not: { inStock: true } }], color: { $not: { $eq: 'red' } } });
  assert.equal(node?.kind, 'and');
  const [or, not] = (node as { nodes: FilterNode[] }).nodes;
  assert.equal(or?.kind, 'or');
  assert.equal((or as { nodes: FilterNode[] }).nodes[1]?.kind, 'not');
  assert.equal(not?.kind, 'not');
});

test('filter: the contract refusals, word for word', () => {
  assert.equal(refusal({ colour: 'red' }), 'filter.colour: unknown field');
  assert.equal(refusal({ flavour: 'red' }), 'filter.flavour: unknown field');
  assert.equal(refusal({ price: { $gte: '10' } }), 'filter.price.$gte: expected a number');
  assert.equal(refusal({ $regex: 'x' }), `filter.$regex: unknown operator (allowed: ${ALL_OPERATORS})`);
});

test('filter: unknown and misplaced operators name their path', () => {
  assert.match(
    refusal({ price: { $regex: 'x' } }),
    /^filter\.price\.\$regex: unknown operator \(allowed: \$eq, \$ne, .*\$startsWith, \$not\)$/,
  );
  assert.match(refusal({ price: { amount: 1 } }), /^filter\.price\.amount: unknown operator/);
  assert.match(refusal({ $eq: 1 }), /^filter\.\$eq: an operator goes after a field path/);
  assert.match(refusal({ price: { $or: [{ price: 1 }] } }), /^filter\.price\.\$or: \$or combines whole filters/);
  assert.match(refusal({ price: {} }), /^filter\.price: expected a value or an object of operators/);
});

test('filter: each value must have the field type', () => {
  const cases: [unknown, string][] = [
    [{ price: 'cheap' }, 'filter.price: expected a number'],
    [{ price: { $lt: Number.NaN } }, 'filter.price.$lt: expected a number'],
    [{ title: 5 }, 'filter.title: expected a string'],
    [{ inStock: 'yes' }, 'filter.inStock: expected true or false'],
    [
      { releasedOn: { $gt: '2024-02-30' } },
      'filter.releasedOn.$gt: expected an ISO 8601 date or date-time string, such as 2024-05-01 or 2024-05-01T12:00:00Z',
    ],
    [{ category: 42 }, 'filter.category: expected a record id (string)'],
    [{ tags: { $contains: '' } }, 'filter.tags.$contains: expected a record id (string)'],
    [{ price: { $in: [1, 'two'] } }, 'filter.price.$in[1]: expected a number'],
    [{ price: { $in: 3 } }, 'filter.price.$in: expected an array of values'],
    [{ price: { $exists: 'yes' } }, 'filter.price.$exists: expected true or false'],
    [{ id: null }, 'filter.id: expected a record id (string)'],
    [
      { createdAt: { $gt: '2024-05-01T12:00:00' } },
      'filter.createdAt.$gt: expected an ISO 8601 date or date-time with a time zone, such as 2024-05-01 or 2024-05-01T12:00:00Z',
    ],
    [{ title: { $contains: 'a\u0000b' } }, 'filter.title.$contains: must not contain the NUL character'],
  ];
  for (const [filter, message] of cases) assert.equal(refusal(filter), message, JSON.stringify(filter));
});

test('filter: operators apply only to the types they make sense for', () => {
  assert.equal(
    refusal({ price: { $contains: '1' } }),
    'filter.price.$contains: $contains does not apply to a number field (allowed: $eq, $ne, $gt, $gte, $lt, $lte, $in, $nin, $exists)',
  );
  assert.match(
    refusal({ inStock: { $gt: false } }),
    /^filter\.inStock\.\$gt: \$gt does not apply to a boolean field \(allowed: \$eq, \$ne, \$in, \$nin, \$exists\)$/,
  );
  assert.match(
    refusal({ tags: 't1' }),
    /^filter\.tags: a plain value means \$eq, which does not apply to a hasMany relation \(allowed: \$contains, \$exists\)$/,
  );
  assert.match(refusal({ name: 'Ball' }), /^filter\.name: .*translatable field \(name a locale, such as title\.en/);
  assert.match(
    refusal({ extra: { $eq: 1 } }),
    /^filter\.extra\.\$eq: \$eq does not apply to an object field \(allowed: \$exists\)$/,
  );
  assert.match(refusal({ id: { $exists: true } }), /^filter\.id\.\$exists: \$exists does not apply to the record id/);
  assert.match(refusal({ category: { $gt: 'x' } }), /^filter\.category\.\$gt: \$gt does not apply to a hasOne relation/);
});

test('filter: paths reach no further than the contract allows', () => {
  assert.equal(
    refusal({ 'category.name': 'shoes' }),
    'filter.category.name: category is a relation: a path cannot reach into the records it points at',
  );
  assert.equal(refusal({ 'a.b.c.d': 1 }), 'filter.a.b.c.d: unknown field');
  assert.equal(refusal({ 'price.amount': 1 }), 'filter.price.amount: price is a number field: it has no sub-paths');
  assert.match(refusal({ 'meta.height': 1 }), /^filter\.meta\.height: unknown sub-field of meta \(did you mean "weight"\?\)$/);
  assert.match(
    refusal({ 'extra.colour': 'red' }),
    /^filter\.extra\.colour: extra holds free-form JSON: only \$exists applies to it$/,
  );
  assert.match(refusal({ 'name.EN': 'x' }), /^filter\.name\.EN: "EN" is not a locale code/);
  assert.match(refusal({ 'name.en.x': 'x' }), /^filter\.name\.en\.x: name\.en is one translation: it has no sub-paths$/);
  assert.match(refusal({ 'id.x': 'x' }), /^filter\.id\.x: id is a property of the record: it has no sub-paths$/);
});

test('filter: hostile keys are refused by name, never used', () => {
  const proto = JSON.parse('{"__proto__": {"price": 1}}') as unknown;
  assert.equal(refusal(proto), 'filter.__proto__: key not allowed');
  assert.equal(refusal({ constructor: 1 }), 'filter.constructor: key not allowed');
  assert.equal(refusal({ "a'); DROP TABLE records; --": 1 }), "filter.a'); DROP TABLE records; --: unknown field");
  assert.equal(refusal({ 'price"': 1 }), 'filter.price": unknown field');
  assert.match(refusal({ price: JSON.parse('{"__proto__": 1}') as unknown }), /^filter\.price\.__proto__: unknown operator/);
  const long = 'x'.repeat(10_000);
  const message = refusal({ [long]: 1 });
  assert.ok(message.length < 300, 'a very long path is cut in the message');
  assert.match(message, /^filter\.x+…: unknown field$/);
});

test('filter: the filter itself must be an object; $and/$or take a non-empty array', () => {
  assert.match(refusal('price > 5'), /^filter: expected a JSON object of conditions/);
  assert.match(refusal([{ price: 1 }]), /^filter: expected a JSON object of conditions/);
  assert.match(refusal({ $and: [] }), /^filter\.\$and: expected a non-empty array of filters$/);
  assert.match(refusal({ $or: { price: 1 } }), /^filter\.\$or: expected a non-empty array of filters$/);
  assert.match(refusal({ $or: [1] }), /^filter\.\$or\[0\]: expected a JSON object of conditions/);
  // Empty filters inside would let a filter grow without a single condition (50 × 50 × … of them).
  assert.equal(refusal({ $or: [{ price: 1 }, {}] }), 'filter.$or[1]: expected at least one condition');
  assert.equal(refusal({ $not: {} }), 'filter.$not: expected at least one condition');
});

test(`filter: depth ${FILTER_LIMITS.maxDepth} is allowed, depth ${FILTER_LIMITS.maxDepth + 1} refused by name`, () => {
  assert.ok(parse(notNested(FILTER_LIMITS.maxDepth - 1)));
  assert.equal(
    refusal(notNested(FILTER_LIMITS.maxDepth)),
    'filter.$not.$not.$not.$not.$not: a filter may nest at most 5 levels deep',
  );
  assert.match(
    refusal({ $and: [{ $or: [{ $and: [{ $or: [{ $and: [{ price: 1 }] }] }] }] }] }),
    /^filter\.\$and\[0\]\.\$or\[0\]\.\$and\[0\]\.\$or\[0\]\.\$and\[0\]: a filter may nest at most 5 levels deep$/,
  );
  assert.match(
    refusal({ price: notNested(FILTER_LIMITS.maxDepth, 1) }),
    /^filter\.price(\.\$not)+: a filter may nest at most 5 levels deep$/,
  );
  // A hostile depth is refused at level 6, not walked.
  assert.match(refusal(notNested(100_000)), /nest at most 5 levels deep/);
});

test(`filter: ${FILTER_LIMITS.maxConditions} conditions are allowed, ${FILTER_LIMITS.maxConditions + 1} refused by name`, () => {
  const conditions = (count: number) => ({ $or: Array.from({ length: count }, (_, index) => ({ price: index })) });
  assert.ok(parse(conditions(50)));
  assert.equal(refusal(conditions(51)), 'filter.$or: a filter may hold at most 50 conditions');
  const flat = { price: { $gt: 1, $lt: 2 }, $and: Array.from({ length: 49 }, () => ({ title: 'x' })) };
  assert.equal(refusal(flat), 'filter: a filter may hold at most 50 conditions');
});

test(`filter: ${FILTER_LIMITS.maxInValues} values in $in are allowed, ${FILTER_LIMITS.maxInValues + 1} refused by name`, () => {
  const values = (count: number) => Array.from({ length: count }, (_, index) => `v${index}`);
  assert.ok(parse({ title: { $in: values(1000) } }));
  assert.equal(refusal({ title: { $in: values(1001) } }), 'filter.title.$in: at most 1000 values in $in, got 1001');
  assert.equal(refusal({ title: { $nin: values(5000) } }), 'filter.title.$nin: at most 1000 values in $nin, got 5000');
});

test('sort: the timestamps, <field>_asc/_desc of text, number, boolean and date fields, and the short forms', () => {
  const order = (sort: string) => readListing(model, { sort }).order;
  assert.deepEqual(order('createdAt_desc'), { kind: 'time', sort: 'createdAt_desc' });
  assert.deepEqual(order('-updatedAt'), { kind: 'time', sort: 'updatedAt_desc' });
  assert.deepEqual(order('updatedAt'), { kind: 'time', sort: 'updatedAt_asc' });
  const price = { kind: 'value', keys: ['price'], type: 'number', sku: false };
  assert.deepEqual(order('price_desc'), { kind: 'field', target: price, descending: true });
  assert.deepEqual(order('-price'), { kind: 'field', target: price, descending: true });
  assert.deepEqual(order('price'), { kind: 'field', target: price, descending: false });
  assert.deepEqual(order('inStock_asc'), {
    kind: 'field',
    target: { kind: 'value', keys: ['inStock'], type: 'boolean', sku: false },
    descending: false,
  });
  assert.deepEqual(order('-sku'), {
    kind: 'field',
    target: { kind: 'value', keys: ['sku'], type: 'text', sku: true },
    descending: true,
  });
});

test('sort: an unknown sort names every allowed one', () => {
  for (const sort of ['colour_asc', 'name_asc', 'category_desc', 'meta.weight', 'tags', '']) {
    assert.throws(
      () => readListing(model, { sort }),
      (error: unknown) =>
        error instanceof ServiceError &&
        error.code === 'BAD_USER_INPUT' &&
        error.message ===
          'sort: must be one of createdAt_asc, createdAt_desc, updatedAt_asc, updatedAt_desc, sku_asc, sku_desc, title_asc, title_desc, ' +
            'price_asc, price_desc, color_asc, color_desc, inStock_asc, inStock_desc, releasedOn_asc, releasedOn_desc ' +
            '(or a short form such as sku or -sku)',
      sort,
    );
  }
});

test('listing: limit, offset, sort and filter are read in that order', () => {
  assert.throws(() => readListing(model, { limit: -1, sort: 'nope', filter: { nope: 1 } }), /^ServiceError: limit:/);
  assert.throws(() => readListing(model, { offset: -1, sort: 'nope', filter: { nope: 1 } }), /^ServiceError: offset:/);
  assert.throws(() => readListing(model, { sort: 'nope', filter: { nope: 1 } }), /^ServiceError: sort:/);
  assert.deepEqual(readListing(model, {}), {
    filter: null,
    order: { kind: 'time', sort: 'createdAt_asc' },
    limit: 20,
    offset: 0,
  });
});

test('model definitions: indexed is a boolean on text, number, boolean, date and relation fields', () => {
  const shape = (fieldList: unknown[], product?: unknown) =>
    normaliseModelShape({ name: 'M', slug: 'm', fields: fieldList, product }, new Set(['m']));
  const refused = (fieldList: unknown[]) => {
    try {
      shape(fieldList);
    } catch (error) {
      assert.ok(error instanceof ServiceError);
      return error.message;
    }
    assert.fail('expected a refusal');
  };
  const ok = shape([
    { key: 'a', type: 'text', indexed: true },
    { key: 'b', type: 'number', indexed: false },
    { key: 'c', type: 'relation', relationTo: 'model:m', indexed: true },
    { key: 'd', type: 'object', fields: [{ key: 'e', type: 'date', indexed: true }] },
  ]);
  assert.equal(ok.fields[0]?.indexed, true);
  assert.equal('indexed' in ok.fields[1]!, false, 'indexed: false is not stored');
  assert.equal(ok.fields[3]?.fields?.[0]?.indexed, true);
  assert.equal(
    refused([
      { key: 'a', type: 'text' },
      { key: 'b', type: 'number' },
      { key: 'n', type: 'translatable', indexed: true },
    ]),
    'fields[2].indexed: only text, number, boolean, date, relation fields can be indexed, not translatable fields',
  );
  assert.match(refused([{ key: 'o', type: 'object', indexed: true }]), /^fields\[0\]\.indexed: only .* not object fields$/);
  assert.match(refused([{ key: 'a', type: 'text', indexed: 'yes' }]), /^fields\[0\]\.indexed: must be a boolean$/);
  const tooMany = Array.from({ length: 21 }, (_, index) => ({ key: `f${index}`, type: 'number', indexed: true }));
  assert.match(refused(tooMany), /^fields: a model may have at most 20 indexed fields, sub-fields included; got 21$/);
});

test('indexes: the indexed values of a model leave out the SKU field and hasMany relations', () => {
  const values = indexedValues({
    product: { enabled: true, skuField: 'sku', priceField: null },
    fields: [
      { key: 'sku', label: 'SKU', type: 'text', required: false, indexed: true },
      { key: 'price', label: 'Price', type: 'number', required: false, indexed: true },
      {
        key: 'tags',
        label: 'Tags',
        type: 'relation',
        required: false,
        relationTo: 'model:t',
        relationType: 'hasMany',
        indexed: true,
      },
      {
        key: 'meta',
        label: 'Meta',
        type: 'object',
        required: false,
        fields: [{ key: 'on', label: 'On', type: 'boolean', required: false, indexed: true }],
      },
    ],
  });
  assert.deepEqual(values, [
    { kind: 'value', keys: ['price'], type: 'number', sku: false },
    { kind: 'value', keys: ['meta', 'on'], type: 'boolean', sku: false },
  ]);
});
