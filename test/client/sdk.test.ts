// The SDK against a real server process: typed operations, one error type, listAll paging, import batching with
// row numbers mapped back, and sync (twice = no change, only changed fields patched, prune).
import assert from 'node:assert/strict';
import { createServer, type AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { ContentClient, ContentServiceError, MAX_PUBLISH_IDS } from '../../src/client/index.js';
import { Admin, bootstrapAdmin, uniqueSlug } from '../support/client.js';
import { startServer, type TestServer } from '../support/server.js';

let server: TestServer;
let admin: Admin;
let client: ContentClient;

before(async () => {
  server = await startServer();
  admin = await bootstrapAdmin(server);
  client = new ContentClient({ baseUrl: server.url, token: admin.token, workspaceId: admin.workspaceId });
});

after(async () => {
  await server?.dispose();
});

describe('operations', () => {
  test('models and records round the API: create, get, list, patch, update, delete', async () => {
    const model = await client.createModel({
      name: 'Article',
      slug: uniqueSlug('article'),
      fields: [
        { key: 'title', type: 'text', required: true },
        { key: 'name', type: 'translatable' },
      ],
    });
    assert.ok((await client.listModels()).some((m) => m.id === model.id));
    assert.equal((await client.findModel(model.slug)).id, model.id);
    assert.equal((await client.getModel(model.id))?.slug, model.slug);
    const record = await client.createRecord(model.id, { title: 'A', name: { en: 'A', pl: 'A-pl' } });
    assert.deepEqual((await client.getRecord(record.id))?.data, { title: 'A', name: { en: 'A', pl: 'A-pl' } });
    const patched = await client.patchRecord(record.id, { name: { pl: null, de: 'A-de' } });
    assert.deepEqual(patched?.data, { title: 'A', name: { en: 'A', de: 'A-de' } });
    const updated = await client.updateRecord(record.id, { title: 'B' });
    assert.deepEqual(updated?.data, { title: 'B' });
    const page = await client.listRecords(model.id, { limit: 10 });
    assert.equal(page.total, 1);
    assert.deepEqual(await client.deleteRecord(record.id), { id: record.id, deleted: true });
    assert.equal(await client.getRecord(record.id), null);
  });

  test("model definitions carry icon, color and each field's indexed", async () => {
    const model = await client.createModel({
      name: 'Brand',
      slug: uniqueSlug('brand'),
      icon: '🏷️',
      color: '#ff8800',
      fields: [
        { key: 'code', type: 'text', indexed: true },
        { key: 'title', type: 'text' },
      ],
    });
    for (const read of [model, await client.getModel(model.id), await client.findModel(model.slug)]) {
      assert.equal(read?.icon, '🏷️');
      assert.equal(read?.color, '#ff8800');
      assert.deepEqual(
        read?.fields.map((field) => [field.key, field.indexed]),
        [
          ['code', true],
          ['title', false],
        ],
      );
    }
    const updated = await client.updateModel({ id: model.id, color: '#000' });
    assert.equal(updated?.color, '#000');
  });

  test('errors: one type with code, field, status and requestId', async () => {
    const model = await admin.createProductModel();
    await client.createRecord(model.id, { sku: 'S-1', title: 'one' });
    const duplicate = await client.createRecord(model.id, { sku: 'S-1', title: 'again' }).catch((error: unknown) => error);
    assert.ok(duplicate instanceof ContentServiceError);
    assert.equal(duplicate.code, 'CONFLICT');
    assert.equal(duplicate.field, 'sku');
    assert.equal(duplicate.status, 200);
    assert.ok(duplicate.requestId, 'requestId from x-request-id');

    const invalid = await client.createRecord(model.id, { sku: 'S-2', title: 'x', price: '12' }).catch((error: unknown) => error);
    assert.ok(invalid instanceof ContentServiceError);
    assert.equal(invalid.code, 'BAD_USER_INPUT');
    assert.equal(invalid.field, 'price');

    const stranger = new ContentClient({ baseUrl: server.url, token: 'cs_wrong', workspaceId: admin.workspaceId });
    const denied = await stranger.listModels().catch((error: unknown) => error);
    assert.ok(denied instanceof ContentServiceError);
    assert.equal(denied.code, 'UNAUTHENTICATED');
    assert.equal(denied.status, 401);
    assert.equal(denied.message, 'Not authorized');

    const unreachable = new ContentClient({ baseUrl: 'http://127.0.0.1:9', token: 't', workspaceId: 'w' });
    const network = await unreachable.createRecord(model.id, { sku: 'S-3', title: 'x' }).catch((error: unknown) => error);
    assert.ok(network instanceof ContentServiceError);
    assert.equal(network.code, 'NETWORK_ERROR');
    assert.equal(network.outcomeUnknown, true);

    const closedPort = await portNobodyListensOn();
    const refusedClient = new ContentClient({ baseUrl: `http://127.0.0.1:${closedPort}`, token: 't', workspaceId: 'w' });
    const refused = await refusedClient.listModels().catch((error: unknown) => error);
    assert.ok(refused instanceof ContentServiceError);
    assert.equal(refused.code, 'NETWORK_ERROR');
    assert.equal(
      refused.message,
      `Could not connect to http://127.0.0.1:${closedPort}/graphql (connection refused). Is the service running there? Start it with \`content-service serve\` (or \`npm start\` in its folder), or give its address with --url or CONTENT_SERVICE_URL.`,
    );
    assert.equal(network.status, undefined);

    const controller = new AbortController();
    controller.abort();
    const aborted = await client.listModels(controller.signal).catch((error: unknown) => error);
    assert.ok(aborted instanceof ContentServiceError);
    assert.equal(aborted.code, 'ABORTED');
  });
});

describe('listAll', () => {
  test('pages with offset until hasMore is false, in creation order', async () => {
    const model = await admin.createSimpleModel();
    const rows = Array.from({ length: 250 }, (_, i) => ({ title: `t${i}` }));
    await admin.importRows(model.id, rows);
    const seen: string[] = [];
    for await (const record of client.listAll(model.id, { pageSize: 100 })) seen.push(record.data.title as string);
    assert.deepEqual(
      seen,
      rows.map((row) => row.title),
    );
  });
});

describe('importRows', () => {
  test('2500 rows go in calls of at most 1000; row errors carry the caller row number', async () => {
    const model = await admin.createProductModel();
    const rows = Array.from({ length: 2500 }, (_, i) => ({ sku: `P-${i + 1}`, title: `Product ${i + 1}`, price: i + 0.5 }));
    rows[4] = { ...rows[4]!, price: 'cheap' as unknown as number }; // row 5
    rows[1499] = { ...rows[1499]!, sku: 'P-1' }; // row 1500: repeats row 1's SKU
    rows[2399] = { sku: 'P-2400', price: 1 } as (typeof rows)[number]; // row 2400: no title
    let calls = 0;
    const counting = new ContentClient({
      baseUrl: server.url,
      token: admin.token,
      workspaceId: admin.workspaceId,
      fetch: (input, init) => {
        const body = JSON.parse(String(init?.body)) as { variables?: { input?: { rows?: unknown[] } } };
        const size = body.variables?.input?.rows?.length;
        if (size !== undefined) {
          calls += 1;
          assert.ok(size <= 1000, `a call of ${size} rows`);
        }
        return fetch(input, init);
      },
    });
    const summary = await counting.importRows(model, rows);
    assert.equal(calls, 3);
    assert.equal(summary.total, 2500);
    assert.equal(summary.created, 2497);
    assert.equal(summary.failed, 3);
    assert.equal(summary.ok, false);
    assert.deepEqual(
      summary.errors.map((error) => [error.row, error.field]),
      [
        [5, 'price'],
        [1500, 'sku'],
        [2400, 'title'],
      ],
    );
    assert.equal(summary.errors[1]!.message, 'sku: A record with this SKU already exists');
    assert.deepEqual(summary.errors[0]!.item, rows[4]);
    assert.equal(await admin.total(model.id), 2497);
  });

  test('a row that toData rejects is reported and not sent', async () => {
    const model = await admin.createSimpleModel();
    const summary = await client.importRows(model, ['a', '', 'c'], {
      toData: (text) => {
        if (text === '') throw new Error('title: empty');
        return { title: text };
      },
    });
    assert.equal(summary.created, 2);
    assert.deepEqual(
      summary.errors.map((e) => [e.row, e.message]),
      [[2, 'title: empty']],
    );
    assert.equal(await admin.total(model.id), 2);
  });
});

describe('sync', () => {
  const fields = [
    { key: 'code', type: 'text', required: true },
    { key: 'title', type: 'text', required: true },
    { key: 'price', type: 'number' },
    { key: 'name', type: 'translatable' },
    { key: 'meta', type: 'object' },
    { key: 'active', type: 'boolean' },
  ];
  const input = (n: number) =>
    Array.from({ length: n }, (_, i) => ({
      code: `C-${i}`,
      title: `Item ${i}`,
      price: i * 1.25,
      name: { pl: `pl ${i}`, en: `en ${i}` },
      meta: { z: 1, a: { y: [1, 2], b: 'x' } },
      active: i % 2 === 0,
    }));

  test('twice = no change the second time; changed fields only are patched', async () => {
    const model = await admin.createSimpleModel({ fields });
    const first = await client.sync(model.slug, input(150), { key: 'code' });
    assert.deepEqual(
      [first.created, first.updated, first.unchanged, first.deleted, first.failed, first.ok],
      [150, 0, 0, 0, 0, true],
    );
    const before = await admin.listAll(model.id);

    const second = await client.sync(model.slug, input(150), { key: 'code' });
    assert.deepEqual(
      [second.created, second.updated, second.unchanged, second.deleted, second.failed, second.ok],
      [0, 0, 150, 0, 0, true],
    );
    const afterSecond = await admin.listAll(model.id);
    assert.deepEqual(afterSecond, before, 'nothing written by the second run');

    // Change three rows (one field each), send keys in another order: 3 updated, only those fields patched.
    const changed = input(150).reverse();
    const byCode = (code: string) => changed.find((row) => row.code === code)!;
    byCode('C-3').price = 99;
    byCode('C-7').name = { en: 'en 7', pl: 'zmienione' };
    byCode('C-9').meta = { a: { b: 'x', y: [2, 1] }, z: 1 };
    const patched: Record<string, unknown>[] = [];
    const spy = new ContentClient({
      baseUrl: server.url,
      token: admin.token,
      workspaceId: admin.workspaceId,
      fetch: (url, init) => {
        const body = JSON.parse(String(init?.body)) as {
          query: string;
          variables: { input?: { data?: Record<string, unknown> } };
        };
        if (body.query.includes('patch(')) patched.push(body.variables.input!.data!);
        return fetch(url, init);
      },
    });
    const third = await spy.sync(model, changed, { key: 'code' });
    assert.deepEqual([third.created, third.updated, third.unchanged], [0, 3, 147]);
    assert.deepEqual(
      patched.sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b))),
      [{ meta: { a: { y: [2, 1] } } }, { name: { pl: 'zmienione' } }, { price: 99 }],
    );
    const total = await admin.total(model.id);
    assert.equal(total, 150);
  });

  test('prune deletes what is not in the input; a repeated input key fails that row', async () => {
    const model = await admin.createSimpleModel({ fields });
    await client.sync(model, input(10), { key: 'code' });
    const stored = await admin.importRows(model.id, [{ code: 'C-1', title: 'duplicate stored by a plain import' }]);
    assert.equal(stored.importedCount, 1);
    const rows = input(6);
    rows.push({ ...input(2)[1]!, title: 'repeated key' });
    const summary = await client.sync(model, rows, { key: 'code', prune: true });
    assert.equal(summary.failed, 1);
    assert.equal(summary.errors[0]!.row, 7);
    assert.match(summary.errors[0]!.message, /^code: .*also on input row 2/);
    assert.equal(summary.unchanged, 6);
    assert.equal(summary.duplicateKeysInStore, 1);
    assert.equal(summary.deleted, 4 + 1, 'C-6..C-9 and the stored duplicate of C-1');
    const codes = (await admin.listAll(model.id)).map((record) => record.data.code).sort();
    assert.deepEqual(codes, ['C-0', 'C-1', 'C-2', 'C-3', 'C-4', 'C-5']);
  });

  test('dry run writes nothing and tells what would happen', async () => {
    const model = await admin.createSimpleModel({ fields });
    await client.sync(model, input(5), { key: 'code' });
    const rows = input(7);
    rows[0]!.title = 'changed';
    const summary = await client.sync(model, rows, { key: 'code', dryRun: true });
    assert.deepEqual([summary.created, summary.updated, summary.unchanged, summary.dryRun], [2, 1, 4, true]);
    assert.equal(await admin.total(model.id), 5);
  });
});

/** A port that was free a moment ago: a connection to it is refused. */
async function portNobodyListensOn(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('history', () => {
  test('recordHistory, diffRecord (a patch fast-json-patch applies), restoreRecord, getRecordAsOf', async () => {
    const { default: jsonPatch } = await import('fast-json-patch');
    const model = await client.createModel({
      name: 'Note',
      slug: uniqueSlug('note'),
      fields: [
        { key: 'title', type: 'text', required: true },
        { key: 'body', type: 'text' },
      ],
    });
    const record = await client.createRecord(model.id, { title: 'A', body: 'first' });
    assert.equal(record.revision, 1);
    const between = new Date();
    await new Promise((resolve) => setTimeout(resolve, 5));
    const patched = await client.patchRecord(record.id, { title: 'B', body: null });
    assert.equal(patched?.revision, 2);
    const history = await client.recordHistory(record.id);
    assert.deepEqual(
      history.items.map(({ revision, operation }) => [revision, operation]),
      [
        [2, 'patch'],
        [1, 'create'],
      ],
    );
    const diff = await client.diffRecord(record.id, 1);
    assert.deepEqual(diff, [
      { op: 'remove', path: '/body', oldValue: 'first' },
      { op: 'replace', path: '/title', value: 'B', oldValue: 'A' },
    ]);
    assert.deepEqual(jsonPatch.applyPatch({ title: 'A', body: 'first' }, diff as never).newDocument, patched?.data);
    assert.deepEqual((await client.getRecordAsOf(record.id, between))?.data, { title: 'A', body: 'first' });
    const restored = await client.restoreRecord(record.id, 1);
    assert.deepEqual([restored.revision, restored.data], [3, { title: 'A', body: 'first' }]);
    await assert.rejects(client.restoreRecord(record.id, 9), (error: unknown) => {
      assert.ok(error instanceof ContentServiceError);
      assert.equal(error.code, 'NOT_FOUND');
      return true;
    });
  });
});

describe('drafts and publishing', () => {
  test('drafts on a model; status fields; publishRecords, unpublishRecords, discardChanges, getPublishedRecord; list by status', async () => {
    const category = await client.createModel({
      name: 'Shelf',
      slug: uniqueSlug('shelf'),
      drafts: true,
      fields: [{ key: 'title', type: 'text', required: true }],
    });
    const model = await client.createModel({
      name: 'Page',
      slug: uniqueSlug('page'),
      drafts: true,
      fields: [
        { key: 'title', type: 'text', required: true },
        { key: 'shelf', type: 'relation', relationTo: `model:${category.slug}` },
      ],
    });
    assert.equal(model.drafts, true);
    assert.equal((await client.getModel(model.id))?.drafts, true);
    const shelf = await client.createRecord(category.id, { title: 'Top' });
    const record = await client.createRecord(model.id, { title: 'A', shelf: shelf.id });
    assert.deepEqual(
      [record.status, record.publishedAt, record.publishedRevision, record.hasUnpublishedChanges],
      ['draft', null, null, false],
    );
    assert.equal(await client.getPublishedRecord(record.id), null);

    const published = await client.publishRecords([record.id]);
    assert.deepEqual(
      published.records.map(({ id, status, publishedRevision }) => [id, status, publishedRevision]),
      [[record.id, 'published', 1]],
    );
    assert.equal(typeof published.records[0]!.publishedAt, 'string');
    assert.deepEqual(published.unpublishedTargets, [shelf.id], 'the shelf it points at is not published');

    const patched = await client.patchRecord(record.id, { title: 'B' });
    assert.deepEqual([patched?.status, patched?.hasUnpublishedChanges, patched?.publishedRevision], ['changed', true, 1]);
    assert.deepEqual((await client.getPublishedRecord(record.id))?.data, { title: 'A', shelf: shelf.id });
    const second = await client.createRecord(model.id, { title: 'C' });
    const changed = await client.listRecords(model.id, { status: ['changed'] });
    assert.deepEqual([changed.total, changed.items.map((item) => item.id)], [1, [record.id]]);
    const notPublished = [];
    for await (const item of client.listAll(model.id, { status: ['draft', 'changed'] })) notPublished.push(item.id);
    assert.deepEqual(notPublished, [record.id, second.id]);

    const discarded = await client.discardChanges(record.id);
    assert.deepEqual([discarded.status, discarded.data.title, discarded.revision], ['published', 'A', 3]);
    await assert.rejects(client.discardChanges(second.id), (error: unknown) => {
      assert.ok(error instanceof ContentServiceError);
      assert.equal(error.code, 'CONFLICT');
      return true;
    });

    const unpublished = await client.unpublishRecords([record.id]);
    assert.deepEqual(
      unpublished.records.map(({ status, publishedAt }) => [status, publishedAt]),
      [['draft', null]],
    );
    assert.deepEqual(unpublished.unpublishedTargets, []);
    assert.equal(await client.getPublishedRecord(record.id), null);
    await assert.rejects(client.updateModel({ id: model.id, drafts: false }), (error: unknown) => {
      assert.ok(error instanceof ContentServiceError);
      assert.equal(error.code, 'CONFLICT');
      return true;
    });
  });

  test('publishRecords is all or nothing: an unknown id is NOT_FOUND naming ids.<position>, nothing is published', async () => {
    const model = await client.createModel({
      name: 'Memo',
      slug: uniqueSlug('memo'),
      drafts: true,
      fields: [{ key: 'title', type: 'text', required: true }],
    });
    const record = await client.createRecord(model.id, { title: 'A' });
    await assert.rejects(client.publishRecords([record.id, 'no-such-record']), (error: unknown) => {
      assert.ok(error instanceof ContentServiceError);
      assert.equal(error.code, 'NOT_FOUND');
      assert.equal(error.field, 'ids.1');
      return true;
    });
    assert.equal((await client.getRecord(record.id))?.status, 'draft');
    assert.equal(await client.getPublishedRecord(record.id), null);
  });

  test('more than 1000 ids are refused before anything is sent, not split into calls (a split run is not all or nothing)', async () => {
    let requests = 0;
    const counting = new ContentClient({
      baseUrl: server.url,
      token: admin.token,
      workspaceId: admin.workspaceId,
      fetch: (input, init) => {
        requests += 1;
        return fetch(input, init);
      },
    });
    const ids = Array.from({ length: MAX_PUBLISH_IDS + 1 }, (_, index) => `id-${index}`);
    for (const call of [() => counting.publishRecords(ids), () => counting.unpublishRecords(ids)]) {
      await assert.rejects(call(), (error: unknown) => {
        assert.ok(error instanceof ContentServiceError);
        assert.equal(error.code, 'BAD_USER_INPUT');
        assert.equal(error.field, 'ids');
        assert.match(error.message, /^ids: at most 1000 ids per (publish|unpublish)Records call, got 1001; nothing was sent/);
        return true;
      });
    }
    assert.equal(requests, 0, 'no request went to the server');
    assert.equal(MAX_PUBLISH_IDS, 1000);
  });

  test('a model without drafts: every record reads published, and publishing it is a no-op answered as published', async () => {
    const model = await client.createModel({
      name: 'Live',
      slug: uniqueSlug('live'),
      fields: [{ key: 'title', type: 'text', required: true }],
    });
    assert.equal(model.drafts, false);
    const record = await client.createRecord(model.id, { title: 'A' });
    assert.deepEqual([record.status, record.hasUnpublishedChanges], ['published', false]);
    const result = await client.publishRecords([record.id]);
    assert.deepEqual(
      result.records.map(({ status, revision }) => [status, revision]),
      [['published', 1]],
    );
    assert.deepEqual((await client.getPublishedRecord(record.id))?.data, { title: 'A' });
  });
});
