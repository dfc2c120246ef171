// Reading content back on the admin route (../shared/spec/delivery.md, "The same reading arguments on the admin
// route"): record.list, record.get and record.getMany with `locale` and `populate`, over every model of the
// workspace (no public guard here); without the new arguments every answer is as before. Black-box over HTTP.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Admin, bootstrapAdmin, dataOf, expectError, RECORD_FIELDS, uniqueSlug, type GqlResponse } from '../support/client.js';
import { startServer, type TestServer } from '../support/server.js';

let server: TestServer;
let owner: Admin;
let other: Admin;
let supplier: any;
let category: any;
let product: any;
const records: Record<string, any> = {};

const LIST = `query($modelId: ID!, $locale: String, $populate: [String!], $limit: Int, $sort: String) {
  record { list(modelId: $modelId, locale: $locale, populate: $populate, limit: $limit, sort: $sort) {
    total hasMore items { ${RECORD_FIELDS} status } } }
}`;
const GET = `query($id: ID!, $locale: String, $populate: [String!]) {
  record { get(id: $id, locale: $locale, populate: $populate) { ${RECORD_FIELDS} status } }
}`;
const GET_MANY = `query($ids: [ID!]!, $locale: String, $populate: [String!]) {
  record { getMany(ids: $ids, locale: $locale, populate: $populate) { id modelId data status } }
}`;

function populated(name: string, data: unknown) {
  const stored = records[name];
  return { id: stored.id, modelId: stored.modelId, data, createdAt: stored.createdAt, updatedAt: stored.updatedAt };
}

function refused(response: GqlResponse): string {
  return expectError(response, 'BAD_USER_INPUT').message;
}

before(async () => {
  server = await startServer();
  owner = await bootstrapAdmin(server, { org: 'acme', workspace: 'main', email: 'owner@acme.test' });
  other = await bootstrapAdmin(server, { org: 'acme', workspace: 'other', email: 'other@acme.test' });
  supplier = await owner.createModel({ slug: uniqueSlug('supplier'), fields: [{ key: 'name', type: 'text' }] });
  category = await owner.createModel({
    slug: uniqueSlug('category'),
    fields: [
      { key: 'title', type: 'translatable' },
      { key: 'supplier', type: 'relation', relationTo: `model:${supplier.slug}` },
    ],
  });
  product = await owner.createModel({
    slug: uniqueSlug('product'),
    fields: [
      { key: 'title', type: 'translatable', required: true },
      { key: 'category', type: 'relation', relationTo: `model:${category.slug}` },
      { key: 'others', type: 'relation', relationTo: `model:${category.slug}`, relationType: 'hasMany' },
    ],
  });
  records.s1 = await owner.createRecord(supplier.id, { name: 'Supplier one' });
  records.c1 = await owner.createRecord(category.id, { title: { en: 'Shoes', de: 'Schuhe' }, supplier: records.s1.id });
  records.c2 = await owner.createRecord(category.id, { title: { fr: 'Chapeaux' } });
  records.p1 = await owner.createRecord(product.id, {
    title: { en: 'Ball', 'de-AT': 'Ball (AT)' },
    category: records.c1.id,
    others: [records.c2.id, records.c1.id],
  });
  records.p2 = await owner.createRecord(product.id, { title: { de: 'Schläger' } });
});

after(async () => {
  await server?.dispose();
});

describe('admin reading: without the new arguments', () => {
  test('admin reading: record.list and record.get answer the records as stored, status published (a model without drafts)', async () => {
    const list = (await owner.ok(LIST, { modelId: product.id })).record.list;
    assert.deepEqual(list.items, [
      { ...records.p1, status: 'published' },
      { ...records.p2, status: 'published' },
    ]);
    assert.equal(JSON.stringify(list.items[0].data), JSON.stringify(records.p1.data), 'the stored text, key order included');
    const response = await owner.q(GET, { id: records.p1.id });
    assert.deepEqual(dataOf(response).record.get, { ...records.p1, status: 'published' });
    const nulls = await owner.q(GET, { id: records.p1.id, locale: null, populate: null });
    assert.equal(nulls.text, response.text, 'null arguments are the same as none');
    assert.equal((await owner.ok(GET, { id: 'no-such-id' })).record.get, null);
  });

  test('admin reading: a locale on a model without translatable fields changes nothing', async () => {
    const plain = (await owner.ok(LIST, { modelId: supplier.id, locale: 'de' })).record.list.items;
    assert.deepEqual(plain, [{ ...records.s1, status: 'published' }]);
  });
});

describe('admin reading: locale and populate', () => {
  test('admin reading: record.list takes locale and populate, into any model of the workspace', async () => {
    const items = (await owner.ok(LIST, { modelId: product.id, locale: 'de-AT', populate: ['category.supplier', 'others'] }))
      .record.list.items;
    assert.deepEqual(items[0].data, {
      title: 'Ball (AT)',
      category: populated('c1', { title: 'Schuhe', supplier: populated('s1', { name: 'Supplier one' }) }),
      others: [populated('c2', { title: null }), populated('c1', { title: 'Schuhe', supplier: records.s1.id })],
    });
    assert.deepEqual(items[1].data, { title: 'Schläger' });
  });

  test('admin reading: the workspace default locale is the admin route’s fallback too', async () => {
    try {
      await owner.ok('mutation { workspace { update(input: { defaultLocale: "fr" }) { defaultLocale } } }');
      const data = (await owner.ok(GET, { id: records.p1.id, locale: 'de', populate: ['others'] })).record.get.data;
      assert.equal(data.title, null, 'no de and no fr');
      assert.equal(data.others[0].data.title, 'Chapeaux');
    } finally {
      await owner.ok('mutation { workspace { update(input: { defaultLocale: "en" }) { defaultLocale } } }');
    }
  });

  test('admin reading: record.get takes locale and populate', async () => {
    const got = (await owner.ok(GET, { id: records.p1.id, locale: 'en', populate: ['category'] })).record.get;
    assert.deepEqual(got, {
      ...records.p1,
      status: 'published',
      data: { ...records.p1.data, title: 'Ball', category: populated('c1', { title: 'Shoes', supplier: records.s1.id }) },
    });
  });

  test('admin reading: refusals name the argument', async () => {
    assert.equal(
      refused(await owner.q(LIST, { modelId: product.id, populate: ['title'] })),
      'populate.title: not a relation field',
    );
    assert.equal(
      refused(await owner.q(GET, { id: records.p1.id, populate: ['category.supplier.name'] })),
      'populate.category.supplier.name: not a relation field',
    );
    assert.equal(
      refused(await owner.q(GET, { id: records.p1.id, populate: ['a.b.c.d'] })),
      'populate.a.b.c.d: nests 4 fields deep; at most 3',
    );
    assert.equal(
      refused(await owner.q(LIST, { modelId: product.id, locale: 'Deutsch' })),
      'locale: is not a locale code (such as en, pl or pt-BR)',
    );
    const missing = await owner.q(LIST, { modelId: 'no-such-model', populate: ['category'] });
    assert.equal(expectError(missing, 'NOT_FOUND').message, 'modelId: model not found');
  });
});

describe('admin reading: record.getMany', () => {
  test('admin reading: getMany answers records of any model in the order of the ids, null where there is none', async () => {
    const ids = [records.c2.id, 'no-such-id', records.p1.id, records.s1.id, records.c2.id];
    const list = (await owner.ok(GET_MANY, { ids })).record.getMany;
    assert.deepEqual(list, [
      { id: records.c2.id, modelId: category.id, data: records.c2.data, status: 'published' },
      null,
      { id: records.p1.id, modelId: product.id, data: records.p1.data, status: 'published' },
      { id: records.s1.id, modelId: supplier.id, data: records.s1.data, status: 'published' },
      { id: records.c2.id, modelId: category.id, data: records.c2.data, status: 'published' },
    ]);
    assert.deepEqual((await owner.ok(GET_MANY, { ids: [] })).record.getMany, []);
  });

  test('admin reading: getMany never answers another workspace’s records', async () => {
    const theirs = await other.createModel({ slug: uniqueSlug('theirs'), fields: [{ key: 'name', type: 'text' }] });
    const record = await other.createRecord(theirs.id, { name: 'not yours' });
    const response = await owner.q(GET_MANY, { ids: [record.id, records.s1.id] });
    assert.deepEqual(
      dataOf(response).record.getMany.map((item: any) => item?.id ?? null),
      [null, records.s1.id],
    );
    assert.ok(!response.text.includes('not yours'));
    assert.equal((await owner.ok(GET, { id: record.id, locale: 'en' })).record.get, null);
  });

  test('admin reading: getMany applies locale and populate to each record by its model', async () => {
    const list = (
      await owner.ok(GET_MANY, { ids: [records.p1.id, records.c1.id], locale: 'de', populate: ['category', 'supplier'] })
    ).record.getMany;
    assert.deepEqual(list[0].data, {
      ...records.p1.data,
      title: 'Ball',
      category: populated('c1', { title: 'Schuhe', supplier: records.s1.id }),
    });
    assert.deepEqual(list[1].data, { title: 'Schuhe', supplier: populated('s1', { name: 'Supplier one' }) });
    assert.equal(
      refused(await owner.q(GET_MANY, { ids: [records.p1.id, records.c1.id], populate: ['nothing'] })),
      'populate.nothing: not a relation field',
      'a key that fits none of the records’ models is refused',
    );
    // The same refusal when the answer does not select `data`.
    const idsOnly = (query: 'get' | 'getMany', args: string) =>
      owner.q(`query($id: ID!) { record { ${query}(${args}, populate: ["title"]) { id } } }`, { id: records.p1.id });
    assert.equal(refused(await idsOnly('get', 'id: $id')), 'populate.title: not a relation field');
    assert.equal(refused(await idsOnly('getMany', 'ids: [$id]')), 'populate.title: not a relation field');
  });

  test('admin reading: at most 100 ids in one getMany', async () => {
    const many = Array.from({ length: 101 }, (_, i) => `id-${i}`);
    assert.equal(refused(await owner.q(GET_MANY, { ids: many })), 'ids: at most 100 ids in one read; got 101');
    assert.equal((await owner.ok(GET_MANY, { ids: many.slice(1) })).record.getMany.length, 100);
  });
});
