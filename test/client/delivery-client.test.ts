// The delivery client (content-service/client) against a real server process: no token, public models only, the
// hosted SDK's documents, GET for queries (POST when the URL would be too long), filter / sort / paging / locale /
// populate, recordsByIds, record, findOne, and errors as ContentServiceError. Expected answers come from the rows
// the test inserted.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import {
  ContentClient,
  ContentServiceError,
  createDeliveryClient,
  DeliveryClient,
  MAX_GET_URL_LENGTH,
  MAX_IDS_PER_DELIVERY_CALL,
  PUBLIC_MODEL_DEFINITIONS,
  PUBLIC_MODEL_RECORDS,
  type DeliveryRecord,
} from '../../src/client/index.js';
import { bootstrapAdmin, type Admin } from '../support/client.js';
import { startServer, type TestServer } from '../support/server.js';
import { createCatalog, ids, pickLocale, sortedBy, type Catalog, type Row } from './catalog-fixture.js';

let server: TestServer;
let admin: Admin;
let catalog: Catalog;
let shop: DeliveryClient;

interface Sent {
  method: string;
  url: URL;
  body: { query: string; variables?: Record<string, unknown> } | undefined;
}
let sent: Sent[] = [];

/** A fetch that notes what the client sends, then sends it. */
const notingFetch: typeof fetch = (input, init) => {
  const url = new URL(input instanceof Request ? input.url : String(input));
  const body = typeof init?.body === 'string' ? (JSON.parse(init.body) as Sent['body']) : undefined;
  sent.push({ method: init?.method ?? 'GET', url, body });
  return fetch(input, init);
};

before(async () => {
  server = await startServer();
  admin = await bootstrapAdmin(server, { org: 'acme', workspace: 'shop', email: 'owner@acme.test', role: 'owner' });
  const client = new ContentClient({ baseUrl: server.url, token: admin.token, workspaceId: admin.workspaceId });
  catalog = await createCatalog(client);
  shop = createDeliveryClient({ baseUrl: server.url, org: 'acme', workspace: 'shop', fetch: notingFetch });
});

after(async () => {
  await server?.dispose();
});

function rowOf(record: DeliveryRecord | null | undefined): Row | undefined {
  return catalog.products.find((row) => row.id === record?.id);
}

describe('delivery client', () => {
  test('definitions: the public models with their record counts, nothing of a model that is not public', async () => {
    const definitions = await shop.definitions();
    const bySlug = new Map(definitions.map((definition) => [definition.slug, definition]));
    for (const [model, rows] of [
      [catalog.product, catalog.products],
      [catalog.category, catalog.categories],
      [catalog.group, catalog.groups],
    ] as const) {
      const definition = bySlug.get(model.slug);
      assert.ok(definition, `${model.slug} is listed`);
      assert.equal(definition.id, model.id);
      assert.equal(definition.name, model.name);
      assert.equal(definition.recordCount, rows.length);
      assert.equal(definition.displayField, model.displayField);
    }
    assert.equal(bySlug.has(catalog.supplier.slug), false);
  });

  test('queries go by GET with the hosted SDK documents; with workspaceId they are sent exactly as written', async () => {
    sent = [];
    const exact = new DeliveryClient({
      url: server.deliveryUrl('acme', 'shop'),
      workspaceId: admin.workspaceId,
      fetch: notingFetch,
    });
    const page = await exact.records(catalog.product.slug, { limit: 3 });
    assert.deepEqual(ids(page.items), ids(catalog.products.slice(0, 3)));
    await exact.definitions();
    assert.deepEqual(
      sent.map((request) => [request.method, request.url.searchParams.get('operationName')]),
      [
        ['GET', 'PublicModelRecords'],
        ['GET', 'PublicModelDefinitions'],
      ],
    );
    assert.equal(sent[0]!.url.searchParams.get('query'), PUBLIC_MODEL_RECORDS);
    assert.equal(sent[1]!.url.searchParams.get('query'), PUBLIC_MODEL_DEFINITIONS);
    assert.deepEqual(JSON.parse(sent[0]!.url.searchParams.get('variables')!), {
      workspaceId: admin.workspaceId,
      modelSlug: catalog.product.slug,
      limit: 3,
    });

    const stranger = new DeliveryClient({ url: server.deliveryUrl('acme', 'shop'), workspaceId: randomUUID() });
    const refused = await stranger.records(catalog.product.slug).catch((error: unknown) => error);
    assert.ok(refused instanceof ContentServiceError);
    assert.equal(refused.code, 'NOT_FOUND', 'a workspaceId that is not the path workspace tells nothing');
  });

  test('equal reads have equal URLs, however the options and the filter were ordered (one CDN entry, one ETag)', async () => {
    sent = [];
    const slug = catalog.product.slug;
    await shop.records(slug, { filter: { price: { $lt: 100 }, active: true }, locale: 'pl', sort: 'price', limit: 5 });
    await shop.records(slug, { limit: 5, sort: 'price', locale: 'pl', filter: { active: true, price: { $lt: 100 } } });
    await shop.findOne(slug, { sku: 'x' }, { locale: 'pl' });
    await shop.records(slug, { limit: 1, locale: 'pl', filter: { sku: 'x' } });
    const urls = sent.map((request) => request.url.href);
    assert.equal(urls[0], urls[1]);
    assert.equal(urls[2], urls[3]);
    assert.equal(sent.length, 4);
  });

  test('findOne: the product page by slug; null when none matches', async () => {
    const row = catalog.products[42]!;
    const found = await shop.findOne(catalog.product.slug, { slug: 'shoe-42' }, { locale: 'de-AT' });
    assert.equal(found?.id, row.id);
    assert.equal(found?.modelId, catalog.product.id);
    assert.equal(found?.status, 'published', 'the delivery route serves published copies');
    assert.equal(found?.createdAt, row.createdAt);
    assert.deepEqual(found?.data, { ...row.data, name: pickLocale(row.data.name, 'de-AT') });
    assert.equal(await shop.findOne(catalog.product.slug, { slug: 'no-such-shoe' }), null);
  });

  test('a category listing: filter, sort and paging visit the filtered records once, in order', async () => {
    const category = catalog.categories[1]!;
    const matching = catalog.products.filter((row) => row.data.category === category.id && typeof row.data.price === 'number');
    const { present } = sortedBy(matching, 'price', 'asc');
    const filter = { category: category.id, price: { $exists: true } };
    const seen: (string | null)[] = [];
    for (let offset = 0; ; offset += 5) {
      const page = await shop.records(catalog.product.slug, { filter, sort: 'price_asc', limit: 5, offset });
      assert.equal(page.total, matching.length);
      assert.equal(page.hasMore, offset + page.items.length < matching.length);
      seen.push(...ids(page.items));
      if (!page.hasMore) break;
    }
    assert.deepEqual(seen, ids(present));
    const all: string[] = [];
    for await (const record of shop.allRecords(catalog.product.slug, { filter, sort: 'price', pageSize: 4 })) all.push(record.id);
    assert.deepEqual(all, ids(present));
  });

  test('populate with locale, nested; a relation to a model that is not public is refused', async () => {
    const page = await shop.records(catalog.product.slug, { populate: ['category', 'category.group'], locale: 'de', limit: 10 });
    for (const record of page.items) {
      const row = rowOf(record)!;
      const category = catalog.categories.find((c) => c.id === row.data.category)!;
      const group = catalog.groups.find((g) => g.id === category.data.group)!;
      assert.deepEqual(record.data.category, {
        id: category.id,
        modelId: category.modelId,
        createdAt: category.createdAt,
        updatedAt: category.updatedAt,
        data: {
          ...category.data,
          name: pickLocale(category.data.name, 'de'),
          group: {
            id: group.id,
            modelId: group.modelId,
            createdAt: group.createdAt,
            updatedAt: group.updatedAt,
            data: { ...group.data, name: pickLocale(group.data.name, 'de') },
          },
        },
      });
    }
    const hidden = await shop.records(catalog.product.slug, { populate: ['supplier'] }).catch((error: unknown) => error);
    assert.ok(hidden instanceof ContentServiceError);
    assert.equal(hidden.code, 'BAD_USER_INPUT');
    assert.equal(hidden.message, 'populate.supplier: target model is not public');
  });

  test('recordsByIds: input order, null where not found or not public; more ids than one call takes', async () => {
    const { products } = catalog;
    const wanted = [products[5]!.id, randomUUID(), catalog.suppliers[0]!.id, products[2]!.id, products[5]!.id];
    const found = await shop.recordsByIds(catalog.product.slug, wanted, { locale: 'en' });
    assert.deepEqual(ids(found), [products[5]!.id, null, null, products[2]!.id, products[5]!.id]);
    assert.equal(found[0]?.data.name, pickLocale(products[5]!.data.name, 'en'));

    sent = [];
    const many = Array.from({ length: MAX_IDS_PER_DELIVERY_CALL + 20 }, (_, i) => products[i % products.length]!.id);
    const answer = await shop.recordsByIds(catalog.product.slug, many);
    assert.deepEqual(ids(answer), many);
    assert.equal(sent.length, 2, 'two calls');
  });

  test('record: by id; null when not found, of another model, or of a model that is not public', async () => {
    const row = catalog.products[77]!;
    const record = await shop.record(catalog.product.slug, row.id, { populate: ['tags'] });
    assert.equal(record?.id, row.id);
    assert.deepEqual(
      (record?.data.tags as { id: string }[]).map((tag) => tag.id),
      row.data.tags,
    );
    assert.equal(await shop.record(catalog.product.slug, randomUUID()), null);
    assert.equal(await shop.record(catalog.product.slug, catalog.categories[0]!.id), null);
    assert.equal(await shop.record(catalog.product.slug, catalog.suppliers[0]!.id), null);
  });

  test('a query whose URL would be too long goes by POST and gets the same answer', async () => {
    const wanted = catalog.products.filter((_, i) => i % 2 === 1);
    const filter = { id: { $in: [...ids(wanted), ...Array.from({ length: 300 }, () => randomUUID())] as string[] } };
    sent = [];
    const page = await shop.records(catalog.product.slug, { filter, limit: 100 });
    assert.equal(sent.length, 1);
    assert.equal(sent[0]!.method, 'POST');
    assert.ok(sent[0]!.url.href.length < MAX_GET_URL_LENGTH);
    assert.equal(page.total, wanted.length);
    assert.deepEqual(ids(page.items), ids(wanted));
  });

  test('errors: unknown model, unknown workspace, bad filter, missing options', async () => {
    const unknownModel = await shop.records('no-such-model').catch((error: unknown) => error);
    assert.ok(unknownModel instanceof ContentServiceError);
    assert.equal(unknownModel.code, 'NOT_FOUND');
    assert.match(unknownModel.message, /^modelSlug: /);

    const hiddenModel = await shop.findOne(catalog.supplier.slug, { title: 'Hidden supplier' }).catch((error: unknown) => error);
    assert.ok(hiddenModel instanceof ContentServiceError);
    assert.equal(hiddenModel.code, 'NOT_FOUND');
    assert.equal(hiddenModel.message, unknownModel.message.replace('no-such-model', catalog.supplier.slug));

    const nowhere = createDeliveryClient({ baseUrl: server.url, org: 'acme', workspace: 'nowhere' });
    const unknownWorkspace = await nowhere.definitions().catch((error: unknown) => error);
    assert.ok(unknownWorkspace instanceof ContentServiceError);
    assert.equal(unknownWorkspace.code, 'NOT_FOUND');

    const badFilter = await shop.records(catalog.product.slug, { filter: { colour: 'red' } }).catch((error: unknown) => error);
    assert.ok(badFilter instanceof ContentServiceError);
    assert.equal(badFilter.code, 'BAD_USER_INPUT');
    assert.equal(badFilter.message, 'filter.colour: unknown field');
    assert.equal(badFilter.field, 'filter', 'field: the argument, as for every refusal');

    assert.throws(
      () => createDeliveryClient({ baseUrl: server.url, workspace: 'shop' }),
      (error: unknown) => error instanceof ContentServiceError && error.code === 'BAD_USER_INPUT' && error.field === 'org',
    );

    const unreachable = createDeliveryClient({ url: 'http://127.0.0.1:9/public/a/b/graphql', retries: 0 });
    const network = await unreachable.definitions().catch((error: unknown) => error);
    assert.ok(network instanceof ContentServiceError);
    assert.equal(network.code, 'NETWORK_ERROR');
  });
});

describe('preview', () => {
  interface Exchange {
    authorization: string | null;
    cacheControl: string | null;
    query: string;
  }

  /** A fetch that notes each request's Authorization and query and the answer's Cache-Control. */
  function recordingFetch(exchanges: Exchange[]): typeof fetch {
    return async (input, init) => {
      const response = await fetch(input, init);
      const url = new URL(input instanceof Request ? input.url : String(input));
      exchanges.push({
        authorization: new Headers(init?.headers).get('authorization'),
        cacheControl: response.headers.get('cache-control'),
        query: url.searchParams.get('query') ?? '',
      });
      return response;
    };
  }

  test('published copies without preview; working copies (draft, changed) with preview and a token; 401 without one', async () => {
    const owner = await bootstrapAdmin(server, { org: 'preview', workspace: 'site', email: 'owner@preview.test', role: 'owner' });
    const client = new ContentClient({ baseUrl: server.url, token: owner.token, workspaceId: owner.workspaceId });
    const model = await client.createModel({
      name: 'Post',
      slug: 'post',
      drafts: true,
      deliveryAccess: 'public',
      fields: [{ key: 'title', type: 'text', required: true }],
    });
    const live = await client.createRecord(model.id, { title: 'Live' });
    await client.publishRecords([live.id]);
    await client.patchRecord(live.id, { title: 'Live, edited' });
    const draft = await client.createRecord(model.id, { title: 'Draft' });
    const location = { baseUrl: server.url, org: 'preview', workspace: 'site' };

    const exchanges: Exchange[] = [];
    const site = createDeliveryClient({ ...location, fetch: recordingFetch(exchanges) });
    const published = await site.records('post');
    assert.deepEqual(
      published.items.map((item) => [item.id, item.status, item.data.title]),
      [[live.id, 'published', 'Live']],
    );
    assert.equal(await site.record('post', draft.id), null, 'a draft is not delivered');

    const preview = createDeliveryClient({ ...location, preview: true, token: owner.token, fetch: recordingFetch(exchanges) });
    const working = await preview.records('post');
    assert.deepEqual(
      working.items.map((item) => [item.id, item.status, item.data.title]),
      [
        [live.id, 'changed', 'Live, edited'],
        [draft.id, 'draft', 'Draft'],
      ],
    );
    assert.equal(working.total, 2);
    assert.deepEqual((await preview.record('post', draft.id))?.data, { title: 'Draft' });
    assert.deepEqual(
      (await preview.recordsByIds('post', [draft.id, live.id])).map((item) => item?.status),
      ['draft', 'changed'],
    );
    assert.equal((await preview.findOne('post', { title: 'Draft' }))?.id, draft.id);
    // One call may read published copies instead: sent as without preview, with no token.
    assert.deepEqual((await preview.record('post', live.id, { preview: false }))?.data, { title: 'Live' });

    const anonymous = [exchanges[0]!, exchanges[1]!, exchanges.at(-1)!];
    for (const exchange of anonymous) assert.deepEqual([exchange.authorization, /preview/.test(exchange.query)], [null, false]);
    const previews = exchanges.slice(2, -1);
    assert.equal(previews.length, 4);
    for (const exchange of previews) {
      assert.equal(exchange.authorization, `Bearer ${owner.token}`);
      assert.match(exchange.query, /\$preview: Boolean\)/);
      assert.match(exchange.query, /preview: \$preview\)/);
      assert.equal(exchange.cacheControl, 'private, no-store', 'no cache keeps a working copy');
    }

    // A call of its own may ask for preview too.
    assert.equal(
      (await createDeliveryClient({ ...location, token: owner.token }).record('post', draft.id, { preview: true }))?.status,
      'draft',
    );

    for (const options of [{ preview: true }, { preview: true, token: 'cs_wrong' }]) {
      const refused = await createDeliveryClient({ ...location, ...options })
        .records('post')
        .catch((error: unknown) => error);
      assert.ok(refused instanceof ContentServiceError, String(refused));
      assert.deepEqual([refused.code, refused.status, refused.message], ['UNAUTHENTICATED', 401, 'Not authorized']);
    }
  });
});
