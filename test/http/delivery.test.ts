// Delivery route: POST /public/{org}/{workspace}/graphql, no token, read only, public models only, CORS.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Admin, bootstrapAdmin, gql, request, uniqueSlug } from '../support/client.js';
import { startServer, type TestServer } from '../support/server.js';

let server: TestServer;
let owner: Admin;
let other: Admin; // acme/other
let deliveryUrl: string;
let publicModel: any;
let hiddenModel: any;

before(async () => {
  server = await startServer();
  owner = await bootstrapAdmin(server, { org: 'acme', workspace: 'main', email: 'owner@acme.test' });
  other = await bootstrapAdmin(server, { org: 'acme', workspace: 'other', email: 'other@acme.test' });
  deliveryUrl = server.deliveryUrl('acme', 'main');
  publicModel = await owner.createSimpleModel({ slug: uniqueSlug('pub'), name: 'Public', deliveryAccess: 'public' });
  hiddenModel = await owner.createSimpleModel({ slug: uniqueSlug('hidden'), name: 'Hidden', deliveryAccess: 'none' });
  await owner.importRows(
    publicModel.id,
    Array.from({ length: 25 }, (_, i) => ({ title: `pub ${i}` })),
  );
  await owner.createRecord(hiddenModel.id, { title: 'secret' });
});

after(async () => {
  await server?.dispose();
});

function deliver(query: string, variables?: Record<string, unknown>, headers: Record<string, string> = {}) {
  return gql(deliveryUrl, {}, query, variables, headers);
}

const RECORDS = `query($slug: String!, $limit: Int, $offset: Int, $sort: String) {
  public { model { records(modelSlug: $slug, limit: $limit, offset: $offset, sort: $sort) { total hasMore items { id data } } } }
}`;

describe('delivery route', () => {
  test('delivery: records of a public model are readable without a token', async () => {
    const response = await deliver(
      `{ public { model { definitions { slug } records(modelSlug: "${publicModel.slug}") { total hasMore items { id data } } } } }`,
    );
    assert.equal(response.status, 200, response.text);
    assert.equal(response.body.errors, undefined, response.text);
    const { definitions, records } = response.body.data.public.model;
    assert.ok(definitions.some((d: any) => d.slug === publicModel.slug));
    assert.equal(records.total, 25);
    assert.equal(records.hasMore, true);
    assert.equal(records.items.length, 20);
    assert.deepEqual(records.items[0].data, { title: 'pub 0' });
    // Same ids as the admin API.
    const adminIds = (await owner.list(publicModel.id)).items.map((r) => r.id);
    assert.deepEqual(
      records.items.map((r: any) => r.id),
      adminIds,
    );
  });

  test('delivery: definitions list public models only, with their fields', async () => {
    const response = await deliver(
      '{ public { model { definitions { slug name displayField fields { key type required } } } } }',
    );
    assert.equal(response.status, 200, response.text);
    const definitions = response.body.data.public.model.definitions;
    const pub = definitions.find((d: any) => d.slug === publicModel.slug);
    assert.deepEqual(pub, {
      slug: publicModel.slug,
      name: 'Public',
      displayField: 'title',
      fields: [
        { key: 'title', type: 'text', required: true },
        { key: 'note', type: 'text', required: false },
      ],
    });
    assert.equal(
      definitions.find((d: any) => d.slug === hiddenModel.slug),
      undefined,
    );
  });

  test('delivery: a model with deliveryAccess none is invisible — records give the same NOT_FOUND as a model that does not exist', async () => {
    const hidden = await deliver(RECORDS, { slug: hiddenModel.slug });
    const missingSlug = uniqueSlug('missing');
    const missing = await deliver(RECORDS, { slug: missingSlug });
    assert.equal(hidden.status, missing.status);
    assert.ok(Array.isArray(hidden.body.errors), hidden.text);
    assert.equal(hidden.body.errors[0].extensions?.code, 'NOT_FOUND');
    assert.equal(missing.body.errors[0].extensions?.code, 'NOT_FOUND');
    assert.equal(
      hidden.body.errors[0].message.replace(hiddenModel.slug, '<slug>'),
      missing.body.errors[0].message.replace(missingSlug, '<slug>'),
    );
    assert.ok(!hidden.text.includes('secret'));
    assert.equal(hidden.body.data?.public?.model?.records ?? null, null);
  });

  test('delivery: a hidden model is NOT_FOUND whatever the window asks (a bad limit, offset or sort tells nothing)', async () => {
    for (const window of [{ limit: -1 }, { offset: -1 }, { sort: 'nonsense' }, { offset: 5 }]) {
      const hidden = await deliver(RECORDS, { slug: hiddenModel.slug, ...window });
      assert.equal(hidden.body.errors?.[0]?.extensions?.code, 'NOT_FOUND', `${JSON.stringify(window)}: ${hidden.text}`);
      const missing = await deliver(RECORDS, { slug: uniqueSlug('missing'), ...window });
      assert.equal(missing.body.errors?.[0]?.extensions?.code, 'NOT_FOUND', `${JSON.stringify(window)}: ${missing.text}`);
    }
    const bad = await deliver(RECORDS, { slug: publicModel.slug, limit: -1 });
    assert.equal(bad.body.errors?.[0]?.extensions?.code, 'BAD_USER_INPUT', bad.text);
  });

  test('delivery: records take limit, offset and sort like the admin list', async () => {
    const page = (await deliver(RECORDS, { slug: publicModel.slug, limit: 10, offset: 20, sort: 'createdAt_asc' })).body.data
      .public.model.records;
    assert.equal(page.items.length, 5);
    assert.equal(page.hasMore, false);
    assert.deepEqual(
      page.items.map((r: any) => r.data.title),
      ['pub 20', 'pub 21', 'pub 22', 'pub 23', 'pub 24'],
    );
    const desc = (await deliver(RECORDS, { slug: publicModel.slug, limit: 2, sort: 'createdAt_desc' })).body.data.public.model
      .records;
    assert.deepEqual(
      desc.items.map((r: any) => r.data.title),
      ['pub 24', 'pub 23'],
    );
    const clamped = (await deliver(RECORDS, { slug: publicModel.slug, limit: 1000 })).body.data.public.model.records;
    assert.equal(clamped.items.length, 25);
    const negative = await deliver(RECORDS, { slug: publicModel.slug, limit: -1 });
    assert.equal(negative.body.errors?.[0]?.extensions?.code, 'BAD_USER_INPUT', negative.text);
  });

  test('delivery: createdBy and updatedBy are null', async () => {
    const response = await deliver(
      `{ public { model { records(modelSlug: "${publicModel.slug}", limit: 1) { items { id createdBy updatedBy createdAt } } } } }`,
    );
    assert.equal(response.status, 200, response.text);
    const [item] = response.body.data.public.model.records.items;
    assert.equal(item.createdBy, null);
    assert.equal(item.updatedBy, null);
    assert.ok(!Number.isNaN(Date.parse(item.createdAt)));
  });

  // GraphQL over HTTP: a validation error is 400 for application/graphql-response+json, 200 for application/json.
  test('delivery: a record mutation sent to the delivery route fails GraphQL validation (400 / 200 by media type), nothing written', async () => {
    const before = await owner.total(publicModel.id);
    const response = await deliver(
      'mutation($input: CreateModelRecordInput!) { record { create(input: $input) { id } } }',
      { input: { modelId: publicModel.id, data: { title: 'via delivery' } } },
      {
        authorization: `Bearer ${owner.token}`,
        'x-workspace-id': owner.workspaceId,
        accept: 'application/graphql-response+json',
      },
    );
    assert.equal(response.status, 400, response.text);
    assert.ok(Array.isArray(response.body.errors) && response.body.errors.length > 0, response.text);
    assert.equal(response.body.errors[0].extensions?.code, 'BAD_USER_INPUT');
    assert.equal(response.body.data, undefined);
    const asJson = await deliver('mutation($input: CreateModelRecordInput!) { record { create(input: $input) { id } } }', {
      input: { modelId: publicModel.id, data: { title: 'via delivery' } },
    });
    assert.equal(asJson.status, 200, asJson.text);
    assert.equal(asJson.body.errors[0].extensions?.code, 'BAD_USER_INPUT');
    assert.equal(asJson.body.data, undefined);
    assert.equal(await owner.total(publicModel.id), before);
  });

  test('delivery: every mutation (import, patch, delete, model.create) is refused (400 for application/graphql-response+json)', async () => {
    const [first] = (await owner.list(publicModel.id, { limit: 1 })).items;
    const mutations = [
      `mutation { record { import(input: { modelId: "${publicModel.id}", rows: [{ title: "x" }] }) { importedCount } } }`,
      `mutation { record { patch(input: { id: "${first!.id}", data: { title: "hacked" } }) { id } } }`,
      `mutation { record { delete(id: "${first!.id}") { id } } }`,
      `mutation { model { create(input: { name: "X", slug: "x", fields: [] }) { id } } }`,
      'mutation { __typename }',
    ];
    for (const mutation of mutations) {
      const response = await deliver(mutation, undefined, { accept: 'application/graphql-response+json' });
      assert.equal(response.status, 400, `${mutation} -> ${response.status} ${response.text}`);
      assert.ok(Array.isArray(response.body.errors), response.text);
    }
    assert.equal(await owner.total(publicModel.id), 25);
    assert.deepEqual((await owner.getRecord(first!.id)).data, first!.data);
  });

  test('delivery: the admin namespaces are not on the delivery route', async () => {
    const response = await deliver('{ model { list { id } } }', undefined, { accept: 'application/graphql-response+json' });
    assert.equal(response.status, 400, response.text);
    assert.ok(Array.isArray(response.body.errors));
  });

  test("delivery: another workspace's public models are not served on this workspace's route", async () => {
    const foreign = await other.createSimpleModel({ slug: uniqueSlug('foreign'), deliveryAccess: 'public' });
    await other.createRecord(foreign.id, { title: 'other workspace' });
    const here = await deliver(RECORDS, { slug: foreign.slug });
    assert.equal(here.body.errors?.[0]?.extensions?.code, 'NOT_FOUND', here.text);
    const there = await gql(server.deliveryUrl('acme', 'other'), {}, RECORDS, { slug: foreign.slug });
    assert.equal(there.status, 200, there.text);
    assert.equal(there.body.data.public.model.records.items[0].data.title, 'other workspace');
  });

  test('delivery: an unknown organisation or workspace serves nothing', async () => {
    for (const url of [server.deliveryUrl('nope', 'main'), server.deliveryUrl('acme', 'nope')]) {
      const response = await gql(url, {}, RECORDS, { slug: publicModel.slug });
      assert.ok(response.status !== 200 || Array.isArray(response.body?.errors), `${url}: ${response.status} ${response.text}`);
      assert.ok(!response.text.includes('pub 0'), response.text);
    }
  });

  test('delivery: changing deliveryAccess with model.update shows and hides a model', async () => {
    const model = await owner.createSimpleModel({ slug: uniqueSlug('toggle') });
    await owner.createRecord(model.id, { title: 'toggled' });
    const update = 'mutation($input: UpdateModelDefinitionInput!) { model { update(input: $input) { deliveryAccess } } }';
    assert.equal((await deliver(RECORDS, { slug: model.slug })).body.errors?.[0]?.extensions?.code, 'NOT_FOUND');
    assert.equal(
      (await owner.ok(update, { input: { id: model.id, deliveryAccess: 'public' } })).model.update.deliveryAccess,
      'public',
    );
    const shown = await deliver(RECORDS, { slug: model.slug });
    assert.equal(shown.body.data?.public.model.records.items[0].data.title, 'toggled', shown.text);
    await owner.ok(update, { input: { id: model.id, deliveryAccess: 'none' } });
    assert.equal((await deliver(RECORDS, { slug: model.slug })).body.errors?.[0]?.extensions?.code, 'NOT_FOUND');
  });

  test('delivery: a CORS preflight is answered with Access-Control-Allow-Origin', async () => {
    const response = await fetch(deliveryUrl, {
      method: 'OPTIONS',
      headers: {
        origin: 'https://shop.example.com',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'content-type',
      },
    });
    await response.arrayBuffer();
    assert.ok(response.status >= 200 && response.status < 300, `preflight status ${response.status}`);
    const allowOrigin = response.headers.get('access-control-allow-origin');
    assert.ok(allowOrigin === '*' || allowOrigin === 'https://shop.example.com', `allow-origin: ${allowOrigin}`);
    const allowMethods = response.headers.get('access-control-allow-methods') ?? '';
    assert.match(allowMethods, /POST/i);
    const allowHeaders = (response.headers.get('access-control-allow-headers') ?? '').toLowerCase();
    assert.ok(allowHeaders === '*' || allowHeaders.includes('content-type'), `allow-headers: ${allowHeaders}`);
  });

  test('delivery: responses carry the CORS header', async () => {
    const response = await deliver(RECORDS, { slug: publicModel.slug, limit: 1 }, { origin: 'https://shop.example.com' });
    assert.equal(response.status, 200);
    const allowOrigin = response.headers.get('access-control-allow-origin');
    assert.ok(allowOrigin === '*' || allowOrigin === 'https://shop.example.com', `allow-origin: ${allowOrigin}`);
    // Error responses too.
    const error = await deliver('mutation { __typename }', undefined, {
      origin: 'https://shop.example.com',
      accept: 'application/graphql-response+json',
    });
    assert.equal(error.status, 400);
    assert.ok(error.headers.get('access-control-allow-origin'), 'CORS header on a 400');
  });

  test('delivery: with CORS_ORIGINS a listed origin is echoed with Vary: Origin, another origin gets no allow-origin', async () => {
    const listed = await startServer({ env: { CORS_ORIGINS: 'https://shop.example.com,https://www.example.com' } });
    try {
      await listed.bootstrap({ org: 'acme', workspace: 'main', email: 'o@acme.test' });
      const url = listed.deliveryUrl('acme', 'main');
      const query = '{ public { model { definitions { slug } } } }';
      const allowed = await gql(url, {}, query, undefined, { origin: 'https://www.example.com' });
      assert.equal(allowed.status, 200, allowed.text);
      assert.equal(allowed.headers.get('access-control-allow-origin'), 'https://www.example.com');
      assert.match(allowed.headers.get('vary') ?? '', /origin/i);
      const refused = await gql(url, {}, query, undefined, { origin: 'https://evil.example' });
      assert.equal(refused.headers.get('access-control-allow-origin'), null);
      const preflight = await fetch(url, {
        method: 'OPTIONS',
        headers: { origin: 'https://shop.example.com', 'access-control-request-method': 'POST' },
      });
      await preflight.arrayBuffer();
      assert.equal(preflight.headers.get('access-control-allow-origin'), 'https://shop.example.com');
    } finally {
      await listed.dispose();
    }
  });

  test('delivery: malformed JSON on the delivery route is 400 with an errors body', async () => {
    const response = await request(deliveryUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"query": ',
    });
    assert.equal(response.status, 400);
    assert.equal(response.body.errors[0].extensions?.code, 'BAD_USER_INPUT');
  });
});
