// Reading content back on the delivery route (../shared/spec/delivery.md): the public SDK's two documents as they
// are, definitions with icon/color/recordCount, records / recordsByIds / record with `workspaceId`, `locale` and
// `populate`, and the guard that no record of a model that is not public ever appears. Black-box: a real server
// (SQLite, or PostgreSQL with TEST_SERVER_DATABASE=postgres), HTTP only; SQL only to make what the API cannot
// (an id whose record is gone, an id of another model's record).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Admin, bootstrapAdmin, dataOf, expectError, gql, uniqueSlug, type GqlResponse } from '../support/client.js';
import { startServer, type TestServer } from '../support/server.js';
import { runSql } from '../support/session.js';

// The documents of the hosted service's public SDK, copied from ../shared/spec/delivery.md: not one character changed.
const SDK_DEFINITIONS = `query PublicModelDefinitions($workspaceId: String!) {
  public { model { definitions(workspaceId: $workspaceId) {
    id name slug description icon color displayField recordCount } } }
}`;
const SDK_RECORDS = `query PublicModelRecords($workspaceId: String!, $modelSlug: String!, $filter: JSON, $sort: String,
                         $locale: String, $limit: Int, $offset: Int, $populate: [String!]) {
  public { model { records(workspaceId: $workspaceId, modelSlug: $modelSlug, filter: $filter, sort: $sort,
                           locale: $locale, limit: $limit, offset: $offset, populate: $populate) {
    items { id modelId data status createdAt updatedAt } total hasMore } } }
}`;

let server: TestServer;
let owner: Admin;
let otherWorkspace: Admin;
let deliveryUrl: string;
const slugs = {} as Record<'supplier' | 'brand' | 'tag' | 'category' | 'product' | 'empty', string>;
const models = {} as Record<keyof typeof slugs, any>;
const ids = {} as Record<string, any>;
const records = {} as Record<string, any>;

function deliver(query: string, variables?: Record<string, unknown>): Promise<GqlResponse> {
  return gql(deliveryUrl, {}, query, variables);
}

async function deliverOk(query: string, variables?: Record<string, unknown>): Promise<any> {
  const response = await deliver(query, variables);
  assert.ok(!response.text.includes('Secret supplier'), `a record of a model that is not public: ${response.text}`);
  return dataOf(response).public.model;
}

async function refusal(query: string, variables: Record<string, unknown>, code = 'BAD_USER_INPUT'): Promise<string> {
  const response = await deliver(query, variables);
  assert.ok(!response.text.includes('Secret supplier'), response.text);
  return expectError(response, code).message;
}

const RECORDS = `query($slug: String!, $workspaceId: String, $locale: String, $populate: [String!], $limit: Int, $sort: String, $filter: JSON) {
  public { model { records(workspaceId: $workspaceId, modelSlug: $slug, locale: $locale, populate: $populate, limit: $limit, sort: $sort, filter: $filter) {
    total hasMore items { id modelId data status createdAt updatedAt } } } }
}`;
const BY_IDS = `query($slug: String!, $ids: [ID!]!, $workspaceId: String, $locale: String, $populate: [String!]) {
  public { model { recordsByIds(workspaceId: $workspaceId, modelSlug: $slug, ids: $ids, locale: $locale, populate: $populate) {
    id modelId data status } } }
}`;
const ONE = `query($slug: String!, $id: ID!, $workspaceId: String, $locale: String, $populate: [String!]) {
  public { model { record(workspaceId: $workspaceId, modelSlug: $slug, id: $id, locale: $locale, populate: $populate) {
    id modelId data status createdAt updatedAt } } }
}`;

async function page(variables: Record<string, unknown>): Promise<any[]> {
  return (await deliverOk(RECORDS, { slug: slugs.product, ...variables })).records.items;
}

async function productData(id: string, variables: Record<string, unknown> = {}): Promise<any> {
  return (await deliverOk(ONE, { slug: slugs.product, id, ...variables })).record.data;
}

/** A target record as populate writes it: these five keys only. */
function populated(id: string, modelKey: keyof typeof models, data: unknown) {
  const stored = records[id];
  return { id: ids[id], modelId: models[modelKey].id, data, createdAt: stored.createdAt, updatedAt: stored.updatedAt };
}

async function setDefaultLocale(locale: string | null): Promise<void> {
  await owner.ok('mutation($locale: String) { workspace { update(input: { defaultLocale: $locale }) { defaultLocale } } }', {
    locale,
  });
}

before(async () => {
  server = await startServer();
  owner = await bootstrapAdmin(server, { org: 'acme', workspace: 'main', email: 'owner@acme.test' });
  otherWorkspace = await bootstrapAdmin(server, { org: 'acme', workspace: 'other', email: 'other@acme.test' });
  deliveryUrl = server.deliveryUrl('acme', 'main');
  for (const key of Object.keys({ supplier: 0, brand: 0, tag: 0, category: 0, product: 0, empty: 0 }) as (keyof typeof slugs)[]) {
    slugs[key] = uniqueSlug(key);
  }
  models.supplier = await owner.createModel({
    slug: slugs.supplier,
    fields: [{ key: 'name', type: 'text' }],
    deliveryAccess: 'none',
  });
  models.brand = await owner.createModel({
    slug: slugs.brand,
    fields: [{ key: 'name', type: 'text' }],
    deliveryAccess: 'public',
  });
  models.tag = await owner.createModel({ slug: slugs.tag, fields: [{ key: 'label', type: 'text' }], deliveryAccess: 'public' });
  models.category = await owner.createModel({
    slug: slugs.category,
    fields: [
      { key: 'title', type: 'translatable' },
      { key: 'parent', type: 'relation', relationTo: `model:${slugs.category}` },
      { key: 'supplier', type: 'relation', relationTo: `model:${slugs.supplier}` },
    ],
    deliveryAccess: 'public',
  });
  models.product = await owner.createModel({
    slug: slugs.product,
    fields: [
      { key: 'title', type: 'translatable', required: true },
      { key: 'price', type: 'number' },
      { key: 'category', type: 'relation', relationTo: `model:${slugs.category}` },
      { key: 'brand', type: 'relation', relationTo: `model:${slugs.brand}` },
      { key: 'tags', type: 'relation', relationTo: `model:${slugs.tag}`, relationType: 'hasMany' },
      { key: 'supplier', type: 'relation', relationTo: `model:${slugs.supplier}` },
      {
        key: 'details',
        type: 'object',
        fields: [
          { key: 'subtitle', type: 'translatable' },
          { key: 'madeBy', type: 'relation', relationTo: `model:${slugs.brand}` },
        ],
      },
    ],
    deliveryAccess: 'public',
  });
  const create = async (name: string, modelKey: keyof typeof models, data: Record<string, unknown>) => {
    records[name] = await owner.createRecord(models[modelKey].id, data);
    ids[name] = records[name].id;
  };
  await create('s1', 'supplier', { name: 'Secret supplier' });
  await create('b1', 'brand', { name: 'Acme' });
  await create('t1', 'tag', { label: 'red' });
  await create('t2', 'tag', { label: 'round' });
  await create('gone', 'tag', { label: 'to be removed behind the API' });
  await create('c0', 'category', { title: { en: 'All', de: 'Alle' } });
  await create('c1', 'category', { title: { en: 'Shoes', de: 'Schuhe', 'de-AT': 'Schuach' }, parent: ids.c0, supplier: ids.s1 });
  await create('c2', 'category', { title: { pl: 'Buty' }, parent: ids.c1 });
  await create('p1', 'product', {
    title: { en: 'Ball', de: 'Ball (de)', 'de-AT': 'Ball (AT)' },
    price: 10,
    category: ids.c1,
    brand: ids.b1,
    tags: [ids.t1, ids.t2],
    supplier: ids.s1,
    details: { subtitle: { en: 'Round', de: 'Rund' }, madeBy: ids.b1 },
  });
  await create('p2', 'product', { title: { en: 'Bat' }, price: 20, category: ids.c2, tags: [ids.t2, ids.gone] });
  await create('p3', 'product', { title: { pl: 'Kij' }, category: ids.c0 });
  // An id left behind without its record (the API never leaves one: this is the database of an older version).
  assert.equal(await runSql(server, 'DELETE FROM records WHERE id = ?', [ids.gone]), 1);
  models.empty = await owner.createModel({
    slug: slugs.empty,
    fields: [{ key: 'name', type: 'text' }],
    deliveryAccess: 'public',
  });
});

after(async () => {
  await server?.dispose();
});

describe('delivery reading: the public SDK', () => {
  test('delivery reading: the SDK document PublicModelDefinitions runs unchanged, with icon, color and recordCount', async () => {
    await owner.ok('mutation($input: UpdateModelDefinitionInput!) { model { update(input: $input) { id } } }', {
      input: { id: models.brand.id, icon: '🏷️', color: '#1e90ff' },
    });
    const response = await deliver(SDK_DEFINITIONS, { workspaceId: owner.workspaceId });
    const { definitions } = dataOf(response).public.model;
    assert.deepEqual(
      definitions.map((definition: any) => definition.slug).sort(),
      [slugs.brand, slugs.tag, slugs.category, slugs.product, slugs.empty].sort(),
      'public models only',
    );
    assert.deepEqual(
      definitions.find((definition: any) => definition.slug === slugs.brand),
      {
        id: models.brand.id,
        name: models.brand.name,
        slug: slugs.brand,
        description: null,
        icon: '🏷️',
        color: '#1e90ff',
        displayField: 'name',
        recordCount: 1,
      },
    );
    assert.equal(definitions.find((definition: any) => definition.slug === slugs.product).recordCount, 3);
    assert.equal(definitions.find((definition: any) => definition.slug === slugs.tag).icon, null);
  });

  test('delivery reading: the SDK document PublicModelRecords runs unchanged, with every variable it declares', async () => {
    const response = await deliver(SDK_RECORDS, {
      workspaceId: owner.workspaceId,
      modelSlug: slugs.product,
      filter: null,
      sort: 'createdAt_desc',
      locale: 'de-AT',
      limit: 2,
      offset: 1,
      populate: ['category', 'brand', 'category.parent'],
    });
    assert.ok(!response.text.includes('Secret supplier'), response.text);
    const { records: list } = dataOf(response).public.model;
    assert.equal(list.total, 3);
    assert.equal(list.hasMore, false);
    assert.deepEqual(
      list.items.map((item: any) => item.id),
      [ids.p2, ids.p1],
    );
    const [p2, p1] = list.items;
    assert.deepEqual(Object.keys(p1), ['id', 'modelId', 'data', 'status', 'createdAt', 'updatedAt']);
    assert.equal(p1.status, 'published');
    assert.equal(p1.modelId, models.product.id);
    assert.equal(p1.createdAt, records.p1.createdAt);
    assert.equal(p1.data.title, 'Ball (AT)');
    assert.deepEqual(
      p1.data.category,
      populated('c1', 'category', { title: 'Schuach', parent: populated('c0', 'category', { title: 'Alle' }), supplier: ids.s1 }),
    );
    assert.deepEqual(p1.data.brand, populated('b1', 'brand', { name: 'Acme' }));
    assert.equal(p2.data.title, 'Bat', 'no de-AT, no de: the workspace default, en');
    assert.equal(p2.data.category.data.title, null, 'no de-AT, de or en: null');
    assert.equal(p2.data.category.data.parent.id, ids.c1);
  });

  test('delivery reading: the SDK document with only its required variables answers the first page as stored', async () => {
    const response = await deliver(SDK_RECORDS, { workspaceId: owner.workspaceId, modelSlug: slugs.product });
    const { records: list } = dataOf(response).public.model;
    assert.deepEqual(
      list.items.map((item: any) => item.id),
      [ids.p1, ids.p2, ids.p3],
    );
    assert.equal(JSON.stringify(list.items[0].data), JSON.stringify(records.p1.data), 'data as stored, key order included');
    assert.equal(list.items[0].data.supplier, ids.s1, 'an id, never the record');
  });
});

describe('delivery reading: workspaceId', () => {
  test('delivery reading: the workspace id of the route is accepted by every read', async () => {
    const workspaceId = owner.workspaceId;
    assert.ok((await deliverOk(SDK_DEFINITIONS, { workspaceId })).definitions.length > 0);
    assert.equal((await page({ workspaceId })).length, 3);
    assert.equal((await deliverOk(BY_IDS, { slug: slugs.product, ids: [ids.p1], workspaceId })).recordsByIds[0].id, ids.p1);
    assert.equal((await deliverOk(ONE, { slug: slugs.product, id: ids.p1, workspaceId })).record.id, ids.p1);
  });

  test('delivery reading: another workspace id is the same NOT_FOUND as an unknown model, from every read', async () => {
    const unknown = await refusal(RECORDS, { slug: uniqueSlug('nothing') }, 'NOT_FOUND');
    assert.equal(unknown, 'modelSlug: model not found');
    for (const workspaceId of [otherWorkspace.workspaceId, 'no-such-workspace', '']) {
      assert.equal(await refusal(SDK_DEFINITIONS, { workspaceId }, 'NOT_FOUND'), unknown);
      assert.equal(await refusal(RECORDS, { slug: slugs.product, workspaceId }, 'NOT_FOUND'), unknown);
      assert.equal(await refusal(BY_IDS, { slug: slugs.product, ids: [ids.p1], workspaceId }, 'NOT_FOUND'), unknown);
      assert.equal(await refusal(ONE, { slug: slugs.product, id: ids.p1, workspaceId }, 'NOT_FOUND'), unknown);
    }
  });
});

describe('delivery reading: recordsByIds and record', () => {
  test('delivery reading: recordsByIds answers in the order of the ids, null where the model has no such record', async () => {
    const list = (await deliverOk(BY_IDS, { slug: slugs.product, ids: [ids.p3, 'no-such-id', ids.p1, ids.p3, ids.c1, ids.gone] }))
      .recordsByIds;
    assert.deepEqual(
      list.map((item: any) => item?.id ?? null),
      [ids.p3, null, ids.p1, ids.p3, null, null],
    );
    assert.deepEqual(list[0], { id: ids.p3, modelId: models.product.id, data: records.p3.data, status: 'published' });
    assert.deepEqual((await deliverOk(BY_IDS, { slug: slugs.product, ids: [] })).recordsByIds, []);
  });

  test('delivery reading: record answers one record of the model, null for an id of none or of another model', async () => {
    const one = (await deliverOk(ONE, { slug: slugs.product, id: ids.p2 })).record;
    assert.deepEqual(one, {
      id: ids.p2,
      modelId: models.product.id,
      data: records.p2.data,
      status: 'published',
      createdAt: records.p2.createdAt,
      updatedAt: records.p2.updatedAt,
    });
    assert.equal((await deliverOk(ONE, { slug: slugs.product, id: 'no-such-id' })).record, null);
    assert.equal((await deliverOk(ONE, { slug: slugs.product, id: ids.b1 })).record, null);
  });

  test('delivery reading: at most 100 ids in one recordsByIds', async () => {
    const many = Array.from({ length: 100 }, (_, i) => `id-${i}`);
    assert.equal((await deliverOk(BY_IDS, { slug: slugs.product, ids: many })).recordsByIds.length, 100);
    assert.equal(
      await refusal(BY_IDS, { slug: slugs.product, ids: [...many, 'one more'] }),
      'ids: at most 100 ids in one read; got 101',
    );
  });
});

describe('delivery reading: no record of a model that is not public', () => {
  test('delivery reading: recordsByIds and record with ids of a non-public model’s records give null, and its slug NOT_FOUND', async () => {
    assert.deepEqual((await deliverOk(BY_IDS, { slug: slugs.product, ids: [ids.s1] })).recordsByIds, [null]);
    assert.deepEqual((await deliverOk(BY_IDS, { slug: slugs.category, ids: [ids.s1, ids.c1] })).recordsByIds[0], null);
    assert.equal((await deliverOk(ONE, { slug: slugs.product, id: ids.s1 })).record, null);
    assert.equal(await refusal(BY_IDS, { slug: slugs.supplier, ids: [ids.s1] }, 'NOT_FOUND'), 'modelSlug: model not found');
    assert.equal(await refusal(ONE, { slug: slugs.supplier, id: ids.s1 }, 'NOT_FOUND'), 'modelSlug: model not found');
    assert.equal(await refusal(RECORDS, { slug: slugs.supplier }, 'NOT_FOUND'), 'modelSlug: model not found');
  });

  test('delivery reading: a member of the workspace (its API token) is told the model is not public and how to publish it; others are not', async () => {
    const asMember = await gql(deliveryUrl, owner.credentials, RECORDS, { slug: slugs.supplier });
    const told = expectError(asMember, 'NOT_FOUND');
    assert.match(told.message, new RegExp(`^modelSlug: the model "${slugs.supplier}" is not public: .*deliveryAccess: "public"`));
    assert.ok(!asMember.text.includes('Secret supplier'), asMember.text);
    // Said to this caller alone: a shared cache must neither keep it nor match its tag for anyone else.
    assert.equal(asMember.headers.get('cache-control'), 'no-store');
    assert.equal(asMember.headers.get('etag'), null);
    const stranger = await gql(deliveryUrl, otherWorkspace.credentials, RECORDS, { slug: slugs.supplier });
    assert.equal(expectError(stranger, 'NOT_FOUND').message, 'modelSlug: model not found');
    assert.match(stranger.headers.get('etag') ?? '', /^"/);
    const badToken = await gql(deliveryUrl, { token: 'cs_nope', workspaceId: owner.credentials.workspaceId! }, RECORDS, {
      slug: slugs.supplier,
    });
    assert.equal(expectError(badToken, 'NOT_FOUND').message, 'modelSlug: model not found');
    const unknown = await gql(deliveryUrl, owner.credentials, RECORDS, { slug: 'no-such-model' });
    assert.equal(expectError(unknown, 'NOT_FOUND').message, 'modelSlug: model not found');
  });

  test('delivery reading: populate into a model that is not public is refused, at the first hop, a later one, or in an object', async () => {
    for (const populate of [['supplier'], ['category.supplier'], ['category.parent.supplier'], ['brand', 'category.supplier']]) {
      const key = populate[populate.length - 1];
      const expected = `populate.${key}: target model is not public`;
      assert.equal(await refusal(RECORDS, { slug: slugs.product, populate }), expected);
      assert.equal(await refusal(BY_IDS, { slug: slugs.product, ids: [ids.p1], populate }), expected);
      assert.equal(await refusal(ONE, { slug: slugs.product, id: ids.p1, populate }), expected);
    }
  });

  test('delivery reading: a relation id that names a record of a model that is not public populates as null', async () => {
    // The category field made to hold the supplier's id behind the API: populate must not follow it.
    const data = JSON.stringify({ title: { en: 'Odd' }, category: ids.s1, tags: [ids.s1, ids.t1] });
    const odd = await owner.createRecord(models.product.id, { title: { en: 'placeholder' } });
    try {
      assert.equal(await runSql(server, 'UPDATE records SET data = ? WHERE id = ?', [data, odd.id]), 1);
      const shaped = (await deliverOk(ONE, { slug: slugs.product, id: odd.id, populate: ['category', 'tags'] })).record.data;
      assert.equal(shaped.category, null);
      assert.deepEqual(shaped.tags, [null, populated('t1', 'tag', { label: 'red' })]);
    } finally {
      dataOf(await owner.deleteRaw(odd.id, true));
    }
  });

  test('delivery reading: populated public records keep ids of non-public records as ids', async () => {
    const data = await productData(ids.p1, { populate: ['category'] });
    assert.equal(data.category.data.supplier, ids.s1);
    assert.equal(data.supplier, ids.s1);
  });
});

describe('delivery reading: locale', () => {
  test('delivery reading: locale picks de-AT, else de, else the workspace default, else null; without it the stored objects', async () => {
    assert.equal((await productData(ids.p1, { locale: 'de-AT' })).title, 'Ball (AT)');
    assert.equal((await productData(ids.p1, { locale: 'de' })).title, 'Ball (de)');
    assert.equal((await productData(ids.p1, { locale: 'de-CH' })).title, 'Ball (de)');
    assert.equal((await productData(ids.p1, { locale: 'fr' })).title, 'Ball');
    assert.equal((await productData(ids.p3, { locale: 'de' })).title, null);
    assert.deepEqual((await productData(ids.p1)).title, { en: 'Ball', de: 'Ball (de)', 'de-AT': 'Ball (AT)' });
    assert.deepEqual(await productData(ids.p1, { locale: null, populate: null }), records.p1.data);
  });

  test('delivery reading: locale applies inside object fields, and only to translatable fields', async () => {
    const data = await productData(ids.p1, { locale: 'de-AT' });
    assert.deepEqual(data, {
      ...records.p1.data,
      title: 'Ball (AT)',
      details: { subtitle: 'Rund', madeBy: ids.b1 },
    });
  });

  test('delivery reading: after the workspace default locale changes, the fallback follows it', async () => {
    try {
      await setDefaultLocale('pl');
      assert.equal((await productData(ids.p3, { locale: 'de' })).title, 'Kij');
      assert.equal((await productData(ids.p2, { locale: 'de' })).title, null, 'en is no longer the fallback');
      const items = await page({ locale: 'de-AT', populate: ['category'] });
      assert.deepEqual(
        items.map((item) => item.data.category.data.title),
        ['Schuach', 'Buty', 'Alle'],
      );
      await setDefaultLocale(null);
      assert.equal((await productData(ids.p2, { locale: 'de' })).title, 'Bat', 'null sets it back to en');
    } finally {
      await setDefaultLocale('en');
    }
  });

  test('delivery reading: a locale that is not a locale code is refused naming it', async () => {
    for (const locale of ['', 'German', 'de_AT', 'de-', `de-${'x'.repeat(40)}`]) {
      assert.equal(
        await refusal(RECORDS, { slug: slugs.product, locale }),
        'locale: is not a locale code (such as en, pl or pt-BR)',
        locale,
      );
    }
    assert.equal(
      await refusal(ONE, { slug: slugs.product, id: ids.p1, locale: 'x' }),
      'locale: is not a locale code (such as en, pl or pt-BR)',
    );
  });
});

describe('delivery reading: populate', () => {
  test('delivery reading: populate replaces a hasOne id with the record and hasMany ids with records; a missing one is null', async () => {
    const [p1, p2] = await page({ populate: ['category', 'brand', 'tags'] });
    assert.deepEqual(p1.data, {
      ...records.p1.data,
      category: populated('c1', 'category', records.c1.data),
      brand: populated('b1', 'brand', { name: 'Acme' }),
      tags: [populated('t1', 'tag', { label: 'red' }), populated('t2', 'tag', { label: 'round' })],
    });
    assert.deepEqual(p2.data.tags, [populated('t2', 'tag', { label: 'round' }), null]);
    assert.equal(p2.data.brand, undefined, 'a field without a value stays absent');
  });

  test('delivery reading: nested paths populate up to 3 levels; a 4th is refused', async () => {
    const data = await productData(ids.p2, { populate: ['category.parent.parent'] });
    assert.equal(data.category.id, ids.c2);
    assert.equal(data.category.data.parent.id, ids.c1);
    assert.deepEqual(data.category.data.parent.data.parent, populated('c0', 'category', records.c0.data));
    assert.equal(
      await refusal(RECORDS, { slug: slugs.product, populate: ['category.parent.parent.parent'] }),
      'populate.category.parent.parent.parent: nests 4 fields deep; at most 3',
    );
  });

  test('delivery reading: a relation inside an object field is populated by its dotted path', async () => {
    const data = await productData(ids.p1, { populate: ['details.madeBy'], locale: 'en' });
    assert.deepEqual(data.details, { subtitle: 'Round', madeBy: populated('b1', 'brand', { name: 'Acme' }) });
  });

  test('delivery reading: populated records are read in the locale too', async () => {
    const data = await productData(ids.p1, { populate: ['category.parent'], locale: 'de' });
    assert.equal(data.category.data.title, 'Schuhe');
    assert.equal(data.category.data.parent.data.title, 'Alle');
  });

  test('delivery reading: recordsByIds and record populate too', async () => {
    const [p2, p1] = (await deliverOk(BY_IDS, { slug: slugs.product, ids: [ids.p2, ids.p1], populate: ['brand'] })).recordsByIds;
    assert.deepEqual(p1.data.brand, populated('b1', 'brand', { name: 'Acme' }));
    assert.equal(p2.data.brand, undefined);
  });

  test('delivery reading: a key that is not a relation field is refused naming it', async () => {
    for (const key of ['title', 'price', 'colour', 'details', 'category.title', 'category.nothing', '__proto__']) {
      assert.equal(await refusal(RECORDS, { slug: slugs.product, populate: [key] }), `populate.${key}: not a relation field`);
    }
    for (const key of ['', 'category..parent', 'category.$gt', "category'; DROP TABLE records; --", 'a b']) {
      assert.equal(
        await refusal(RECORDS, { slug: slugs.product, populate: ['brand', key] }),
        'populate[1]: must be a relation field key, or a dotted path of them such as category.parent',
      );
    }
    assert.equal(
      await refusal(RECORDS, { slug: slugs.product, populate: Array.from({ length: 21 }, () => 'brand') }),
      'populate: at most 20 keys; got 21',
    );
  });

  test('delivery reading: an empty model, an empty populate and a populate the answer does not read are all fine', async () => {
    assert.deepEqual((await deliverOk(RECORDS, { slug: slugs.empty, populate: [], locale: 'de' })).records.items, []);
    const withoutData = await deliverOk(
      `query($slug: String!) { public { model { records(modelSlug: $slug, populate: ["category.parent"], locale: "de") { total items { id } } } } }`,
      { slug: slugs.product },
    );
    assert.equal(withoutData.records.total, 3);
    assert.equal(
      await refusal(
        `query($slug: String!) { public { model { records(modelSlug: $slug, populate: ["supplier"]) { total } } } }`,
        { slug: slugs.product },
      ),
      'populate.supplier: target model is not public',
      'refused whether or not the answer reads data',
    );
  });
});

describe('delivery reading: other arguments', () => {
  test("delivery reading: the SDK document's filter applies, and a null filter filters nothing", async () => {
    assert.equal((await page({ filter: null })).length, 3);
    const priced = await page({ filter: { price: { $gte: 15 } } });
    assert.deepEqual(
      priced.map((item) => item.id),
      [ids.p2],
    );
    assert.equal(await refusal(RECORDS, { slug: slugs.product, filter: { colour: 'red' } }), 'filter.colour: unknown field');
  });
});

describe('delivery reading: bounds', () => {
  let bounded: TestServer;
  let admin: Admin;
  let url: string;
  const big = 'x'.repeat(60_000);

  before(async () => {
    bounded = await startServer({ env: { MAX_RESPONSE_BYTES: '300000' } });
    admin = await bootstrapAdmin(bounded, { org: 'acme', workspace: 'main', email: 'owner@acme.test' });
    url = bounded.deliveryUrl('acme', 'main');
  });

  after(async () => {
    await bounded?.dispose();
  });

  const read = (query: string, variables: Record<string, unknown>) => gql(url, {}, query, variables);

  /** The ids of a model's records (read without their data, which may be large). */
  async function idsOf(modelId: string): Promise<string[]> {
    const page = await admin.ok('query($m: ID!) { record { list(modelId: $m, limit: 100) { items { id } } } }', { m: modelId });
    return page.record.list.items.map((item: any) => item.id);
  }

  test('delivery reading: ids of large records of a model that is not public are null, never measured against the bound', async () => {
    const hidden = await admin.createModel({ slug: uniqueSlug('hidden'), fields: [{ key: 'text', type: 'text' }] });
    const shown = await admin.createModel({
      slug: uniqueSlug('shown'),
      fields: [{ key: 'text', type: 'text' }],
      deliveryAccess: 'public',
    });
    await admin.createRecord(shown.id, { text: big }); // the public model holds large records: its reads are measured
    const { importedCount } = await admin.importRows(
      hidden.id,
      Array.from({ length: 10 }, () => ({ text: big })),
    );
    assert.equal(importedCount, 10);
    const hiddenIds = await idsOf(hidden.id);
    const response = await read(BY_IDS, { slug: shown.slug, ids: hiddenIds });
    assert.deepEqual(dataOf(response).public.model.recordsByIds, Array(10).fill(null));
    const own = await admin.importRows(
      shown.id,
      Array.from({ length: 9 }, () => ({ text: big })),
    );
    assert.equal(own.importedCount, 9);
    const shownIds = await idsOf(shown.id);
    const tooLarge = expectError(await read(BY_IDS, { slug: shown.slug, ids: shownIds }), 'PAYLOAD_TOO_LARGE');
    assert.equal(
      tooLarge.message,
      'ids: these records hold more data than the 300000 bytes one response may carry; ask for fewer',
    );
  });

  test('delivery reading: a populate path whose records hold more than one answer may carry is refused, naming it', async () => {
    const category = await admin.createModel({
      slug: uniqueSlug('category'),
      fields: [{ key: 'text', type: 'text' }],
      deliveryAccess: 'public',
    });
    const product = await admin.createModel({
      slug: uniqueSlug('product'),
      fields: [{ key: 'category', type: 'relation', relationTo: `model:${category.slug}` }],
      deliveryAccess: 'public',
    });
    await admin.importRows(
      category.id,
      Array.from({ length: 6 }, () => ({ text: big })),
    );
    const categoryIds = await idsOf(category.id);
    await admin.importRows(
      product.id,
      categoryIds.map((id) => ({ category: id })),
    );
    const error = expectError(await read(RECORDS, { slug: product.slug, populate: ['category'] }), 'PAYLOAD_TOO_LARGE');
    assert.equal(
      error.message,
      'populate.category: the records it brings hold more data than the 300000 bytes one response may carry; ask for fewer records',
    );
    assert.equal((await deliverFrom(url, RECORDS, { slug: product.slug, populate: ['category'], limit: 2 })).length, 2);
  });

  test('delivery reading: one populate path brings at most 1000 records into an answer', async () => {
    const tag = await admin.createModel({
      slug: uniqueSlug('tag'),
      fields: [{ key: 'n', type: 'number' }],
      deliveryAccess: 'public',
    });
    const post = await admin.createModel({
      slug: uniqueSlug('post'),
      fields: [{ key: 'tags', type: 'relation', relationTo: `model:${tag.slug}`, relationType: 'hasMany' }],
      deliveryAccess: 'public',
    });
    await admin.importRows(
      tag.id,
      Array.from({ length: 1000 }, (_, n) => ({ n })),
    );
    await admin.importRows(tag.id, [{ n: 1000 }]);
    const tagIds = (await admin.listAll(tag.id)).map((item) => item.id);
    await admin.createRecord(post.id, { tags: tagIds.slice(0, 1000) });
    assert.equal((await deliverFrom(url, RECORDS, { slug: post.slug, populate: ['tags'] }))[0].data.tags.length, 1000);
    await admin.createRecord(post.id, { tags: tagIds.slice(1000) });
    const error = expectError(await read(RECORDS, { slug: post.slug, populate: ['tags'] }), 'BAD_USER_INPUT');
    assert.equal(
      error.message,
      'populate.tags: these records point at 1001 records through it, more than the 1000 one populate path may bring; ask for fewer records',
    );
  });
});

async function deliverFrom(url: string, query: string, variables: Record<string, unknown>): Promise<any[]> {
  return dataOf(await gql(url, {}, query, variables)).public.model.records.items;
}
