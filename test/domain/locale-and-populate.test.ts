// The pure rules of reading in one locale and of populate: the fallback chain, the populate keys and their tree,
// and the data written in the read's shape.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ServiceError } from '../../src/domain/errors.js';
import { localeChain, pickTranslation, requireLocale } from '../../src/domain/locale.js';
import { checkPopulateKeys, planPopulate, relationIds, type PopulateNode } from '../../src/domain/populate.js';
import { RecordShaper } from '../../src/domain/record-shape.js';
import { defineLazyData, unparsedData } from '../../src/domain/json-text.js';
import type { StoredRecord } from '../../src/domain/stored-record.js';
import { field, modelDefinition as model } from '../support/definitions.js';

function record(id: string, modelId: string, data: Record<string, unknown>): StoredRecord {
  const at = '2026-01-02T00:00:00.000Z';
  return { id, modelId, workspaceId: 'w', data, createdAt: at, updatedAt: at, createdBy: 'u', updatedBy: 'u', revision: 1 };
}

function refusal(message: string) {
  return (error: unknown) => {
    assert.ok(error instanceof ServiceError, String(error));
    assert.equal(error.code, 'BAD_USER_INPUT');
    assert.equal(error.message, message);
    return true;
  };
}

const supplier = model('supplier', [field('name', 'text')], { deliveryAccess: 'none' });
const category = model('category', [
  field('title', 'translatable'),
  field('parent', 'relation', { relationTo: 'model:category', relationType: 'hasOne' }),
  field('supplier', 'relation', { relationTo: 'model:supplier', relationType: 'hasOne' }),
]);
const tag = model('tag', [field('label', 'text')]);
const product = model('product', [
  field('title', 'translatable'),
  field('price', 'number'),
  field('category', 'relation', { relationTo: 'model:category', relationType: 'hasOne' }),
  field('tags', 'relation', { relationTo: 'model:tag', relationType: 'hasMany' }),
  field('supplier', 'relation', { relationTo: 'model:supplier', relationType: 'hasOne' }),
  field('details', 'object', {
    fields: [field('subtitle', 'translatable'), field('madeBy', 'relation', { relationTo: 'model:supplier' })],
  }),
]);
const models = new Map([supplier, category, tag, product].map((m) => [m.slug, m]));
const publicScope = { modelBySlug: (slug: string) => models.get(slug), publicOnly: true };
const adminScope = { ...publicScope, publicOnly: false };

test('locale: the chain is the locale, the shorter tags it extends, then the workspace default', () => {
  assert.deepEqual(localeChain('de-AT', 'en'), ['de-AT', 'de', 'en']);
  assert.deepEqual(localeChain('zh-Hant-TW', 'pl'), ['zh-Hant-TW', 'zh-Hant', 'zh', 'pl']);
  assert.deepEqual(localeChain('en', 'en'), ['en']);
  assert.deepEqual(localeChain('EN-gb', 'en'), ['EN-gb', 'EN']);
});

test('locale: a translatable value becomes the string of the first locale of the chain it has, else null', () => {
  const title = { en: 'Ball', de: 'Ball (de)', 'de-AT': 'Ball (AT)', 'pt-BR': 'Bola' };
  assert.equal(pickTranslation(title, localeChain('de-AT', 'en')), 'Ball (AT)');
  assert.equal(pickTranslation(title, localeChain('de-CH', 'en')), 'Ball (de)');
  assert.equal(pickTranslation(title, localeChain('fr', 'en')), 'Ball');
  assert.equal(pickTranslation(title, localeChain('pt-br', 'en')), 'Bola', 'locale codes are case-insensitive');
  assert.equal(pickTranslation({ pl: 'Piłka' }, localeChain('de', 'en')), null);
  assert.equal(pickTranslation({ pl: 'Piłka' }, localeChain('de', 'pl')), 'Piłka');
  assert.equal(pickTranslation({}, ['en']), null);
  assert.equal(pickTranslation('not an object', ['en']), null);
  assert.equal(pickTranslation({ ['__proto__']: 'x' }, ['en']), null);
});

test('locale: a value that is not a locale code is refused naming the argument', () => {
  assert.equal(requireLocale('locale', 'pt-BR'), 'pt-BR');
  for (const bad of ['', 'english', 'de_AT', 'de-', 'x', `en-${'a'.repeat(40)}`]) {
    assert.throws(() => requireLocale('locale', bad), refusal('locale: is not a locale code (such as en, pl or pt-BR)'), bad);
  }
});

test('populate: keys are field keys or dotted paths of at most 3, at most 20 keys, repeats dropped', () => {
  assert.deepEqual(checkPopulateKeys(['category', 'category.parent', 'category']), ['category', 'category.parent']);
  assert.deepEqual(checkPopulateKeys(null), []);
  assert.deepEqual(checkPopulateKeys(['a.b.c']), ['a.b.c']);
  assert.throws(() => checkPopulateKeys(['a.b.c.d']), refusal('populate.a.b.c.d: nests 4 fields deep; at most 3'));
  for (const bad of ['', 'a..b', '.a', 'a.', 'a b', 'a.$gt', 'a-b']) {
    assert.throws(
      () => checkPopulateKeys(['ok', bad]),
      refusal('populate[1]: must be a relation field key, or a dotted path of them such as category.parent'),
      bad,
    );
  }
  assert.throws(
    () => checkPopulateKeys(Array.from({ length: 21 }, (_, i) => `f${i}`)),
    refusal('populate: at most 20 keys; got 21'),
  );
});

test('populate: a key must end on a relation field; object fields lead into their sub-fields', () => {
  const level = planPopulate(product, ['category.parent', 'category', 'tags', 'details.madeBy'], adminScope);
  assert.deepEqual([...level.relations.keys()], ['category', 'tags']);
  const categoryNode = level.relations.get('category')!;
  assert.equal(categoryNode.path, 'category');
  assert.equal(categoryNode.target, category);
  assert.equal(categoryNode.inner.relations.get('parent')!.path, 'category.parent');
  assert.equal(level.objects.get('details')!.relations.get('madeBy')!.target, supplier);
  for (const key of [
    'title',
    'colour',
    'price',
    'details',
    'category.title',
    'category.nothing',
    'title.en',
    'details.subtitle',
  ]) {
    assert.throws(() => planPopulate(product, [key], adminScope), refusal(`populate.${key}: not a relation field`), key);
  }
});

test('populate: on the delivery route a relation into a model that is not public is refused, at any hop', () => {
  for (const key of ['supplier', 'category.supplier', 'category.parent.supplier', 'details.madeBy']) {
    assert.throws(() => planPopulate(product, [key], publicScope), refusal(`populate.${key}: target model is not public`), key);
  }
  assert.doesNotThrow(() => planPopulate(product, ['supplier', 'category.supplier'], adminScope));
});

test('populate: the ids of each path are collected once over all records', () => {
  const level = planPopulate(product, ['category', 'tags'], adminScope);
  const ids = relationIds(level, [{ category: 'c1', tags: ['t1', 't2'] }, { category: 'c1', tags: ['t2', 't3'] }, { tags: [] }]);
  assert.deepEqual(
    [...ids].map(([node, found]) => [node.path, [...found]]),
    [
      ['category', ['c1']],
      ['tags', ['t1', 't2', 't3']],
    ],
  );
});

test('record shape: locale and populate replace values, in nested objects and populated records too; a target of another model is null', () => {
  const level = planPopulate(product, ['category.parent', 'tags'], adminScope);
  const categoryNode = level.relations.get('category')!;
  const parentNode = categoryNode.inner.relations.get('parent')!;
  const tagsNode = level.relations.get('tags')!;
  const targets = new Map<PopulateNode, Map<string, StoredRecord>>([
    [categoryNode, new Map([['c1', record('c1', category.id, { title: { en: 'Shoes', de: 'Schuhe' }, parent: 'c0' })]])],
    [parentNode, new Map([['c0', record('c0', category.id, { title: { en: 'All' }, parent: 'cx' })]])],
    // A record of another model under a tag id: never written in.
    [
      tagsNode,
      new Map([
        ['t1', record('t1', tag.id, { label: 'red' })],
        ['s1', record('s1', supplier.id, { name: 'secret' })],
      ]),
    ],
  ]);
  const shaper = new RecordShaper({ locales: localeChain('de', 'en'), targets });
  const source = record('p1', product.id, {
    title: { en: 'Ball', de: 'Ball (de)' },
    price: 3,
    category: 'c1',
    tags: ['t1', 'missing', 's1'],
    supplier: 's1',
    details: { subtitle: { en: 'Round' } },
  });
  const shaped = shaper.record(source, product.fields, level);
  assert.deepEqual(shaped.data, {
    title: 'Ball (de)',
    price: 3,
    category: {
      id: 'c1',
      modelId: category.id,
      data: {
        title: 'Schuhe',
        parent: {
          id: 'c0',
          modelId: category.id,
          data: { title: 'All', parent: 'cx' },
          createdAt: source.createdAt,
          updatedAt: source.createdAt,
        },
      },
      createdAt: source.createdAt,
      updatedAt: source.createdAt,
    },
    tags: [
      { id: 't1', modelId: tag.id, data: { label: 'red' }, createdAt: source.createdAt, updatedAt: source.createdAt },
      null,
      null,
    ],
    supplier: 's1',
    details: { subtitle: 'Round' },
  });
  assert.deepEqual(source.data.title, { en: 'Ball', de: 'Ball (de)' }, 'the stored record is not changed');
});

test("record shape: records holding their data as stored text (minified or PostgreSQL's) shape as parsed ones; only changed members are rewritten", () => {
  const level = planPopulate(product, ['category.parent', 'tags'], adminScope);
  const categoryNode = level.relations.get('category')!;
  const parentNode = categoryNode.inner.relations.get('parent')!;
  const tagsNode = level.relations.get('tags')!;
  const postgresText = (value: unknown) =>
    JSON.stringify(value).replace(/"(?:[^"\\]|\\.)*"|[:,]/g, (token) => (token === ':' || token === ',' ? `${token} ` : token));
  for (const write of [(value: unknown) => JSON.stringify(value), postgresText]) {
    const stored = (id: string, modelId: string, data: Record<string, unknown>): StoredRecord => {
      const withText = { id, modelId, workspaceId: 'w' } as StoredRecord;
      defineLazyData(withText, write(data));
      return Object.assign(withText, { createdAt: 'c', updatedAt: 'u', createdBy: 'x', updatedBy: 'y', revision: 1 });
    };
    const parsed = (id: string, modelId: string, data: Record<string, unknown>): StoredRecord => ({
      id,
      modelId,
      workspaceId: 'w',
      data,
      createdAt: 'c',
      updatedAt: 'u',
      createdBy: 'x',
      updatedBy: 'y',
      revision: 1,
    });
    const shapes = [stored, parsed].map((make) => {
      const targets = new Map<PopulateNode, Map<string, StoredRecord>>([
        [categoryNode, new Map([['c1', make('c1', category.id, { title: { en: 'Shoes, "new"', de: 'Schuhe' }, parent: 'c0' })]])],
        [parentNode, new Map([['c0', make('c0', category.id, { title: { en: 'All' }, parent: null })]])],
        [tagsNode, new Map([['t1', make('t1', tag.id, { label: 'r,e:d}' })]])],
      ]);
      const shaper = new RecordShaper({ locales: localeChain('de', 'en'), targets });
      return [
        {
          title: { en: 'Ball', de: 'B"a}l,l' },
          price: 3.5,
          category: 'c1',
          tags: ['t1', 7, 'missing'],
          supplier: 's1',
          details: { subtitle: { en: 'Round' }, note: '{"x":1}' },
        },
        { title: null, category: null, tags: [], details: null, extra: { nested: ['a', { b: 1 }] } },
        { category: 'missing', details: { subtitle: null } },
      ].map((data) => shaper.record(make('p', product.id, data), product.fields, level).data);
    });
    assert.deepEqual(shapes[0], shapes[1]);
  }
  // Members that do not change keep their stored text (PostgreSQL's spaces too).
  const kept = { id: 'p', modelId: product.id, workspaceId: 'w' } as StoredRecord;
  defineLazyData(kept, '{"price": 3.50, "supplier": "s1", "category": "c9"}');
  Object.assign(kept, { createdAt: 'c', updatedAt: 'u', createdBy: 'x', updatedBy: 'y' });
  const shaped = new RecordShaper({ locales: null, targets: new Map([[categoryNode, new Map()]]) }).record(
    kept,
    product.fields,
    level,
  );
  assert.equal(unparsedData(shaped)?.text, '{"price": 3.50, "supplier": "s1", "category": null}');
});

test('record shape: nothing asked, or a locale on a model without translatable fields, gives the record itself', () => {
  const plain = record('t1', tag.id, { label: 'red' });
  assert.equal(new RecordShaper({ locales: ['de', 'en'], targets: new Map() }).record(plain, tag.fields, null), plain);
  assert.equal(new RecordShaper({ locales: null, targets: new Map() }).record(plain, tag.fields, null), plain);
});
