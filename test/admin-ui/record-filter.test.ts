// The records table's filter conditions → the `filter` JSON of record.list (delivery.md) and back (the page URL
// keeps the JSON), and the `sort` parameter of its column headers. Pure modules of the admin application.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  buildFilter,
  conditionsOf,
  filterFromParam,
  filterPaths,
  operatorsFor,
  resolvePath,
  type Condition,
} from '../../src/admin-ui/record-filter.js';
import { nextSortOrder, sortOrderOf, sortParam } from '../../src/admin-ui/record-sort.js';
import type { JsonValue, ModelDefinition } from '../../src/admin-ui/types.js';

const model: ModelDefinition = {
  id: 'm1',
  name: 'Product',
  slug: 'product',
  description: null,
  displayField: 'title',
  deliveryAccess: 'none',
  recordCount: 0,
  product: null,
  updatedAt: '2026-01-01T00:00:00.000Z',
  fields: [
    { key: 'title', label: 'Title', type: 'text', required: true },
    { key: 'price', label: 'Price', type: 'number', required: false },
    { key: 'inStock', label: 'In stock', type: 'boolean', required: false },
    { key: 'released', label: 'Released', type: 'date', required: false },
    { key: 'name', label: 'Name', type: 'translatable', required: false },
    {
      key: 'category',
      label: 'Category',
      type: 'relation',
      required: false,
      relationTo: 'model:category',
      relationType: 'hasOne',
    },
    { key: 'tags', label: 'Tags', type: 'relation', required: false, relationTo: 'model:tag', relationType: 'hasMany' },
    {
      key: 'dims',
      label: 'Dimensions',
      type: 'object',
      required: false,
      fields: [{ key: 'width', label: 'Width', type: 'number', required: false }],
    },
    { key: 'extra', label: 'Extra', type: 'object', required: false },
  ],
} as ModelDefinition;
const paths = filterPaths(model);

describe('filter paths of a model', () => {
  test('fields, object sub-fields by key.sub, id and the timestamps, each with the kind of its values', () => {
    assert.deepEqual(
      paths.map((path) => [path.path, path.kind]),
      [
        ['title', 'text'],
        ['price', 'number'],
        ['inStock', 'boolean'],
        ['released', 'date'],
        ['name', 'text'],
        ['category', 'id'],
        ['tags', 'id'],
        ['dims.width', 'number'],
        ['extra', 'none'],
        ['id', 'id'],
        ['createdAt', 'timestamp'],
        ['updatedAt', 'timestamp'],
      ],
    );
    assert.equal(paths.find((path) => path.path === 'dims.width')?.label, 'Dimensions › Width');
  });

  test('operators follow the type: hasMany holds an id, free objects only exist or not', () => {
    const of = (path: string) => operatorsFor(resolvePath(paths, path).target);
    assert.deepEqual(of('tags'), ['contains', 'set', 'unset']);
    assert.deepEqual(of('extra'), ['set', 'unset']);
    assert.ok(of('price').includes('gte') && !of('price').includes('contains'));
    assert.ok(of('title').includes('contains') && !of('title').includes('gt'));
    assert.deepEqual(of('inStock'), ['eq', 'ne', 'set', 'unset']);
  });

  test('a translatable path names its locale; an unknown path is kept as it is', () => {
    const localized = resolvePath(paths, 'name.pt-BR');
    assert.equal(localized.target.path, 'name');
    assert.equal(localized.locale, 'pt-BR');
    const unknown = resolvePath(paths, 'colour');
    assert.equal(unknown.target.unknown, true);
    assert.equal(unknown.target.path, 'colour');
  });
});

describe('conditions → filter', () => {
  test('conditions on different paths or operators merge into one object, values typed by field', () => {
    const conditions: Condition[] = [
      { path: 'price', operator: 'gte', value: '9,5' },
      { path: 'title', operator: 'contains', value: ' ball ' },
      { path: 'price', operator: 'lt', value: '100' },
      { path: 'inStock', operator: 'eq', value: 'false' },
      { path: 'name.pl', operator: 'startsWith', value: 'Piłka' },
      { path: 'category', operator: 'in', value: 'a1, b2,,' },
      { path: 'released', operator: 'unset', value: '' },
      { path: 'dims.width', operator: 'nin', value: '1, 2.5' },
    ];
    assert.deepEqual(buildFilter(conditions, paths), {
      filter: {
        price: { $gte: 9.5, $lt: 100 },
        title: { $contains: 'ball' },
        inStock: { $eq: false },
        'name.pl': { $startsWith: 'Piłka' },
        category: { $in: ['a1', 'b2'] },
        released: { $exists: false },
        'dims.width': { $nin: [1, 2.5] },
      },
      problems: [],
    });
  });

  test('the same operator twice on one path makes $and', () => {
    const built = buildFilter(
      [
        { path: 'title', operator: 'contains', value: 'ball' },
        { path: 'title', operator: 'contains', value: 'red' },
      ],
      paths,
    );
    assert.deepEqual(built.filter, { $and: [{ title: { $contains: 'ball' } }, { title: { $contains: 'red' } }] });
  });

  test('a number that is no number goes as typed, for the server to refuse with its path', () => {
    assert.deepEqual(buildFilter([{ path: 'price', operator: 'gte', value: 'abc' }], paths).filter, { price: { $gte: 'abc' } });
  });

  test('an empty value is a problem found before sending; no conditions, no filter', () => {
    const built = buildFilter(
      [
        { path: 'title', operator: 'eq', value: '  ' },
        { path: 'price', operator: 'set', value: '' },
        { path: 'released', operator: 'lt', value: '' },
      ],
      paths,
    );
    assert.equal(built.filter, undefined);
    assert.deepEqual(built.problems, ['Condition 1 (Title): enter a value', 'Condition 3 (Released): enter a value']);
    assert.deepEqual(buildFilter([], paths), { problems: [] });
  });

  test('a translatable field without a locale names the field: any translation', () => {
    assert.deepEqual(buildFilter([{ path: 'name', operator: 'contains', value: 'piłka' }], paths).filter, {
      name: { $contains: 'piłka' },
    });
    assert.deepEqual(resolvePath(paths, 'name').target.localized, true);
  });
});

describe('filter → conditions (the URL read back)', () => {
  test('what buildFilter makes reads back as the same conditions', () => {
    const conditions: Condition[] = [
      { path: 'price', operator: 'gte', value: '10' },
      { path: 'price', operator: 'lt', value: '100' },
      { path: 'title', operator: 'contains', value: 'ball' },
      { path: 'inStock', operator: 'eq', value: 'true' },
      { path: 'category', operator: 'in', value: 'a1, b2' },
      { path: 'createdAt', operator: 'gte', value: '2026-05-01T10:00:00.000Z' },
      { path: 'released', operator: 'set', value: '' },
    ];
    const { filter } = buildFilter(conditions, paths);
    assert.deepEqual(conditionsOf(filter!), conditions);
    const twice: Condition[] = [
      { path: 'title', operator: 'contains', value: 'ball' },
      { path: 'title', operator: 'contains', value: 'red' },
    ];
    assert.deepEqual(conditionsOf(buildFilter(twice, paths).filter!), twice);
  });

  test('short forms: a plain value is equality, null is missing', () => {
    assert.deepEqual(conditionsOf({ title: 'Ball', price: 5, sku: null, tags: { $ne: null } }), [
      { path: 'title', operator: 'eq', value: 'Ball' },
      { path: 'price', operator: 'eq', value: '5' },
      { path: 'sku', operator: 'unset', value: '' },
      { path: 'tags', operator: 'set', value: '' },
    ]);
  });

  test('what the bar cannot show as AND-ed conditions is undefined', () => {
    const filters: JsonValue[] = [
      { $or: [{ title: 'a' }, { title: 'b' }] },
      { $not: { title: 'a' } },
      { title: { $regex: 'a' } },
      { title: { $in: ['a,b'] } },
      { dims: { width: 2 } },
      { tags: ['a', 'b'] },
      { title: {} },
    ];
    for (const filter of filters) {
      assert.equal(conditionsOf(filter), undefined, JSON.stringify(filter));
    }
  });

  test('the URL parameter is a JSON object or nothing', () => {
    assert.deepEqual(filterFromParam('{"price":{"$gte":1}}'), { price: { $gte: 1 } });
    assert.equal(filterFromParam('[1]'), undefined);
    assert.equal(filterFromParam('{oops'), undefined);
    assert.equal(filterFromParam(null), undefined);
  });
});

describe('sort of the records table', () => {
  test('text, number, boolean, date fields and the timestamps sort; others fall back to newest first', () => {
    assert.deepEqual(sortOrderOf('price_asc', model), { column: 'price', descending: false });
    assert.deepEqual(sortOrderOf('released_desc', model), { column: 'released', descending: true });
    assert.deepEqual(sortOrderOf('updatedAt_asc', model), { column: 'updatedAt', descending: false });
    for (const param of ['name_asc', 'category_desc', 'nope_asc', 'price', null]) {
      assert.deepEqual(sortOrderOf(param, model), { column: 'createdAt', descending: true }, String(param));
    }
  });

  test('a click turns the direction of the current column; a new column starts ascending, times newest first', () => {
    const byPrice = { column: 'price', descending: false };
    assert.equal(sortParam(nextSortOrder(byPrice, 'price')), 'price_desc');
    assert.equal(sortParam(nextSortOrder({ column: 'price', descending: true }, 'price')), 'price_asc');
    assert.equal(sortParam(nextSortOrder(byPrice, 'title')), 'title_asc');
    assert.equal(sortParam(nextSortOrder(byPrice, 'updatedAt')), 'updatedAt_desc');
  });
});
