// record.list: limit/offset, total and hasMore, sorts, paging, creation order.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { Admin, bootstrapAdmin, dataOf, expectError } from '../support/client.js';
import { startServer, type TestServer } from '../support/server.js';

let server: TestServer;
let owner: Admin;

after(async () => {
  await server?.dispose();
});

const SORTS = ['createdAt_asc', 'createdAt_desc', 'updatedAt_asc', 'updatedAt_desc'];

/** A model with `count` records imported in one call; titles `r0`, `r1`, … in row order. */
async function modelWith(count: number): Promise<string> {
  const model = await owner.createSimpleModel();
  for (let start = 0; start < count; start += 1000) {
    const rows = Array.from({ length: Math.min(1000, count - start) }, (_, i) => ({ title: `r${start + i}` }));
    const result = await owner.importRows(model.id, rows);
    assert.equal(result.errors.length, 0);
  }
  return model.id;
}

let m25: string;
let m40: string;
let m120: string;

before(async () => {
  server = await startServer();
  owner = await bootstrapAdmin(server);
  [m25, m40, m120] = await Promise.all([modelWith(25), modelWith(40), modelWith(120)]);
});

describe('record.list limits', () => {
  test('record.list: limit defaults to 20', async () => {
    const page = await owner.list(m25);
    assert.equal(page.items.length, 20);
    assert.equal(page.total, 25);
    assert.equal(page.hasMore, true);
  });

  test('record.list: a limit above 100 is clamped to 100', async () => {
    const page = await owner.list(m120, { limit: 500 });
    assert.equal(page.items.length, 100);
    assert.equal(page.total, 120);
    assert.equal(page.hasMore, true);
    assert.equal((await owner.list(m120, { limit: 101 })).items.length, 100);
    assert.equal((await owner.list(m120, { limit: 100 })).items.length, 100);
  });

  test('record.list: a limit up to 100 is honoured', async () => {
    assert.equal((await owner.list(m120, { limit: 1 })).items.length, 1);
    assert.equal((await owner.list(m120, { limit: 37 })).items.length, 37);
  });

  test('record.list: a negative limit is BAD_USER_INPUT', async () => {
    expectError(await owner.listRaw(m25, { limit: -1 }), 'BAD_USER_INPUT');
  });

  test('record.list: a negative offset is BAD_USER_INPUT', async () => {
    expectError(await owner.listRaw(m25, { offset: -5 }), 'BAD_USER_INPUT');
  });

  test('record.list: limit 0 returns no items, the exact total and hasMore by the formula', async () => {
    const page = await owner.list(m25, { limit: 0 });
    assert.deepEqual(page.items, []);
    assert.equal(page.total, 25);
    assert.equal(page.hasMore, true);
  });

  test('record.list: total is exact and counts the records of the model only', async () => {
    assert.equal((await owner.list(m25, { limit: 1 })).total, 25);
    assert.equal((await owner.list(m40, { limit: 1 })).total, 40);
    assert.equal((await owner.list(m120, { limit: 5, offset: 100 })).total, 120);
    const empty = await owner.createSimpleModel();
    assert.deepEqual(await owner.list(empty.id), { total: 0, hasMore: false, items: [] });
  });

  test('record.list: total follows creates and deletes', async () => {
    const model = await owner.createSimpleModel();
    const a = await owner.createRecord(model.id, { title: 'a' });
    await owner.createRecord(model.id, { title: 'b' });
    assert.equal(await owner.total(model.id), 2);
    dataOf(await owner.deleteRaw(a.id));
    assert.equal(await owner.total(model.id), 1);
  });

  test('record.list: hasMore is offset + items.length < total', async () => {
    assert.equal((await owner.list(m25, { limit: 10, offset: 0 })).hasMore, true);
    assert.equal((await owner.list(m25, { limit: 10, offset: 10 })).hasMore, true);
    const last = await owner.list(m25, { limit: 10, offset: 20 });
    assert.equal(last.items.length, 5);
    assert.equal(last.hasMore, false);
  });

  test('record.list: hasMore is false when the last page is exactly full', async () => {
    const last = await owner.list(m40, { limit: 20, offset: 20 });
    assert.equal(last.items.length, 20);
    assert.equal(last.total, 40);
    assert.equal(last.hasMore, false);
    const whole = await owner.list(m40, { limit: 40 });
    assert.equal(whole.items.length, 40);
    assert.equal(whole.hasMore, false);
  });

  test('record.list: an offset past the end gives no items and hasMore false', async () => {
    const page = await owner.list(m25, { offset: 25 });
    assert.deepEqual(page.items, []);
    assert.equal(page.total, 25);
    assert.equal(page.hasMore, false);
    assert.deepEqual((await owner.list(m25, { offset: 1000 })).items, []);
  });

  test('record.list: paging by increasing offset until hasMore is false sees every record exactly once, in every sort', async () => {
    for (const sort of SORTS) {
      const seen: string[] = [];
      let pages = 0;
      for (let offset = 0; ; offset += 7) {
        const page = await owner.list(m120, { limit: 7, offset, sort });
        seen.push(...page.items.map((r) => r.id));
        pages += 1;
        if (!page.hasMore) break;
        assert.ok(pages < 100, 'paging terminates');
      }
      assert.equal(seen.length, 120, sort);
      assert.equal(new Set(seen).size, 120, `${sort}: no record seen twice`);
      assert.equal(pages, Math.ceil(120 / 7), sort);
    }
  });
});

describe('record.list sorts', () => {
  test('record.list: the default sort is createdAt_asc', async () => {
    const byDefault = (await owner.list(m40, { limit: 40 })).items.map((r) => r.id);
    const asc = (await owner.list(m40, { limit: 40, sort: 'createdAt_asc' })).items.map((r) => r.id);
    assert.deepEqual(byDefault, asc);
  });

  test('record.list: createdAt_asc is exact creation order even for records created within one millisecond (one import)', async () => {
    const model = await modelWith(300);
    const titles: string[] = [];
    for (let offset = 0; offset < 300; offset += 100) {
      titles.push(...(await owner.list(model, { limit: 100, offset, sort: 'createdAt_asc' })).items.map((r) => r.data.title));
    }
    assert.deepEqual(
      titles,
      Array.from({ length: 300 }, (_, i) => `r${i}`),
    );
    // Timestamps never go backwards in that order.
    const items = (await owner.list(model, { limit: 100 })).items;
    for (let i = 1; i < items.length; i++) {
      assert.ok(Date.parse(items[i]!.createdAt) >= Date.parse(items[i - 1]!.createdAt));
    }
  });

  test('record.list: record ids are time-ordered — sorting them gives creation order', async () => {
    const ids = (await owner.list(m120, { limit: 100 })).items.map((r) => r.id);
    assert.deepEqual([...ids].sort(), ids);
  });

  test('record.list: createdAt_desc is the reverse of creation order', async () => {
    const titles = (await owner.list(m40, { limit: 40, sort: 'createdAt_desc' })).items.map((r) => r.data.title);
    assert.deepEqual(
      titles,
      Array.from({ length: 40 }, (_, i) => `r${39 - i}`),
    );
  });

  test('record.list: createdAt_asc follows creation order across single creates', async () => {
    const model = await owner.createSimpleModel();
    const ids: string[] = [];
    for (let i = 0; i < 15; i++) ids.push((await owner.createRecord(model.id, { title: `c${i}` })).id);
    assert.deepEqual(
      (await owner.list(model.id, { sort: 'createdAt_asc' })).items.map((r) => r.id),
      ids,
    );
    assert.deepEqual(
      (await owner.list(model.id, { sort: 'createdAt_desc' })).items.map((r) => r.id),
      [...ids].reverse(),
    );
  });

  test('record.list: updatedAt_asc and updatedAt_desc order by the last change', async () => {
    const model = await owner.createSimpleModel();
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await owner.createRecord(model.id, { title: `u${i}` })).id);
    // Touch records 3, then 0, then 2: they become the most recently updated, in that order.
    for (const index of [3, 0, 2]) {
      await sleep(3);
      dataOf(await owner.patchRaw(ids[index]!, { note: 'touched' }));
    }
    const expectedAsc = [ids[1], ids[4], ids[3], ids[0], ids[2]];
    assert.deepEqual(
      (await owner.list(model.id, { sort: 'updatedAt_asc' })).items.map((r) => r.id),
      expectedAsc,
    );
    assert.deepEqual(
      (await owner.list(model.id, { sort: 'updatedAt_desc' })).items.map((r) => r.id),
      [...expectedAsc].reverse(),
    );
    // createdAt order is unchanged by the patches.
    assert.deepEqual(
      (await owner.list(model.id)).items.map((r) => r.id),
      ids,
    );
  });

  // title_asc, createdAt and -createdAt are sorts since delivery.md (sort by field, short forms).
  test('record.list: an unknown sort is an error naming the allowed values', async () => {
    for (const sort of ['colour_asc', 'title_up', 'CREATEDAT_ASC', '', '-']) {
      const response = await owner.listRaw(m25, { sort });
      const error = expectError(response, 'BAD_USER_INPUT');
      for (const allowed of SORTS) assert.ok(error.message.includes(allowed), `"${error.message}" names ${allowed}`);
    }
  });
});

describe('record.list errors', () => {
  test('record.list: an unknown modelId is NOT_FOUND (modelId: model not found)', async () => {
    const error = expectError(await owner.listRaw(randomUUID()), 'NOT_FOUND');
    assert.equal(error.message, 'modelId: model not found');
  });

  test('record.list: a model of another workspace is NOT_FOUND', async () => {
    const other = await bootstrapAdmin(server, { org: 'acme', workspace: 'other', email: 'o@acme.test' });
    const foreign = await other.createSimpleModel();
    await other.createRecord(foreign.id, { title: 'secret' });
    expectError(await owner.listRaw(foreign.id), 'NOT_FOUND');
    expectError(await owner.listRaw(foreign.id, { limit: -1 }), 'NOT_FOUND');
  });

  test('record.list: a model that is not there is NOT_FOUND before a bad limit, offset or sort', async () => {
    for (const window of [{ limit: -1 }, { offset: -1 }, { sort: 'nonsense' }, { offset: 20 }]) {
      const error = expectError(await owner.listRaw(randomUUID(), window), 'NOT_FOUND');
      assert.equal(error.message, 'modelId: model not found');
    }
  });

  test('record.list: a limit that is not an Int is a GraphQL validation error (200 for application/json, 400 for application/graphql-response+json)', async () => {
    const query = 'query($id: ID!) { record { list(modelId: $id, limit: "ten") { total } } }';
    const response = await owner.q(query, { id: m25 });
    assert.equal(response.status, 200, response.text);
    assert.equal(response.body.data, undefined);
    assert.equal((await owner.q(query, { id: m25 }, { accept: 'application/graphql-response+json' })).status, 400);
    assert.equal(response.body.errors[0].extensions?.code, 'BAD_USER_INPUT');
  });
});
