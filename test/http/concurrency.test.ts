// Concurrency: patches of different fields all land (also across two server processes on one database);
// SKU uniqueness holds under concurrent writers; slug uniqueness likewise.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Admin, bootstrapAdmin, dataOf, uniqueSlug, type GqlResponse } from '../support/client.js';
import { startServer, type TestServer } from '../support/server.js';

const FIELD_COUNT = 20;

let server: TestServer;
let second: TestServer; // a second process on the same database
let owner: Admin;
let ownerOnSecond: Admin;
let wide: any; // title + f0..f19 + name (translatable) + meta (object)
let product: any;

before(async () => {
  server = await startServer();
  second = await startServer({ dir: server.dir });
  owner = await bootstrapAdmin(server);
  ownerOnSecond = new Admin(second, owner.credentials);
  wide = await owner.createModel({
    slug: uniqueSlug('wide'),
    fields: [
      { key: 'title', type: 'text', required: true },
      ...Array.from({ length: FIELD_COUNT }, (_, i) => ({ key: `f${i}`, type: 'text' })),
      { key: 'name', type: 'translatable' },
      { key: 'meta', type: 'object' },
    ],
  });
  product = await owner.createProductModel();
});

after(async () => {
  await second?.stop();
  await server?.dispose();
});

function expectedFields(round: number): Record<string, string> {
  return Object.fromEntries(Array.from({ length: FIELD_COUNT }, (_, i) => [`f${i}`, `round ${round} value ${i}`]));
}

function outcome(responses: GqlResponse[]): { ok: number; conflicts: GqlResponse[]; other: GqlResponse[] } {
  const ok = responses.filter((r) => r.status === 200 && r.body.errors === undefined).length;
  const conflicts = responses.filter((r) => r.body?.errors?.[0]?.extensions?.code === 'CONFLICT');
  const other = responses.filter(
    (r) => !(r.status === 200 && r.body.errors === undefined) && r.body?.errors?.[0]?.extensions?.code !== 'CONFLICT',
  );
  return { ok, conflicts, other };
}

describe('concurrency', () => {
  test('concurrency: 20 concurrent patches of 20 different fields of one record all land', async () => {
    const record = await owner.createRecord(wide.id, { title: 'target' });
    for (let round = 0; round < 3; round++) {
      const values = expectedFields(round);
      const responses = await Promise.all(
        Object.entries(values).map(([key, value]) => owner.patchRaw(record.id, { [key]: value })),
      );
      for (const response of responses) dataOf(response);
      const stored = await owner.getRecord(record.id);
      assert.deepEqual(stored.data, { title: 'target', ...values }, `round ${round}`);
    }
  });

  test('concurrency: patches of different fields sent to two server processes on one database all land', async () => {
    const record = await owner.createRecord(wide.id, { title: 'two processes' });
    for (let round = 0; round < 3; round++) {
      const values = expectedFields(round);
      const responses = await Promise.all(
        Object.entries(values).map(([key, value], i) =>
          (i % 2 === 0 ? owner : ownerOnSecond).patchRaw(record.id, { [key]: value }),
        ),
      );
      for (const response of responses) dataOf(response);
      assert.deepEqual((await ownerOnSecond.getRecord(record.id)).data, { title: 'two processes', ...values }, `round ${round}`);
    }
  });

  test('concurrency: concurrent patches of different locales of one translatable field all land', async () => {
    const record = await owner.createRecord(wide.id, { title: 'locales', name: { en: 'Ball' } });
    const locales = ['pl', 'de', 'fr', 'es', 'it', 'nl', 'sv', 'pt-BR', 'cs', 'da'];
    const responses = await Promise.all(
      locales.map((locale, i) => (i % 2 ? owner : ownerOnSecond).patchRaw(record.id, { name: { [locale]: `ball-${locale}` } })),
    );
    for (const response of responses) dataOf(response);
    const expected = { en: 'Ball', ...Object.fromEntries(locales.map((l) => [l, `ball-${l}`])) };
    assert.deepEqual((await owner.getRecord(record.id)).data.name, expected);
  });

  test('concurrency: concurrent patches of different keys of one object field all land', async () => {
    const record = await owner.createRecord(wide.id, { title: 'object', meta: { keep: true } });
    const responses = await Promise.all(
      Array.from({ length: 15 }, (_, i) => owner.patchRaw(record.id, { meta: { [`k${i}`]: i } })),
    );
    for (const response of responses) dataOf(response);
    const expected = { keep: true, ...Object.fromEntries(Array.from({ length: 15 }, (_, i) => [`k${i}`, i])) };
    assert.deepEqual((await owner.getRecord(record.id)).data.meta, expected);
  });

  test('concurrency: when two writers change the same field, the last write wins (one of the values, never a mix)', async () => {
    const record = await owner.createRecord(wide.id, { title: 'same field' });
    const values = Array.from({ length: 10 }, (_, i) => `writer ${i}`);
    await Promise.all(values.map((value) => owner.patchRaw(record.id, { f0: value })));
    const stored = await owner.getRecord(record.id);
    assert.ok(values.includes(stored.data.f0), stored.data.f0);
  });

  test('concurrency: two concurrent creates with one SKU — exactly one succeeds, the other is CONFLICT', async () => {
    for (let i = 0; i < 10; i++) {
      const sku = `RACE-${i}`;
      const responses = await Promise.all([
        owner.createRecordRaw(product.id, { sku, title: 'a' }),
        owner.createRecordRaw(product.id, { sku, title: 'b' }),
      ]);
      const { ok, conflicts, other } = outcome(responses);
      assert.equal(other.length, 0, other.map((r) => r.text).join('\n'));
      assert.equal(ok, 1, `round ${i}: exactly one create succeeds`);
      assert.equal(conflicts.length, 1);
      assert.equal(conflicts[0]!.body.errors[0].message, 'sku: A record with this SKU already exists');
    }
    const stored = await owner.listAll(product.id);
    const raceSkus = stored.map((r) => r.data.sku).filter((s: string) => s.startsWith('RACE-'));
    assert.equal(raceSkus.length, 10);
    assert.equal(new Set(raceSkus).size, 10);
  });

  test('concurrency: ten concurrent creates with one SKU across two server processes store it once', async () => {
    const sku = 'RACE-MANY';
    const responses = await Promise.all(
      Array.from({ length: 10 }, (_, i) => (i % 2 ? owner : ownerOnSecond).createRecordRaw(product.id, { sku, title: `w${i}` })),
    );
    const { ok, conflicts, other } = outcome(responses);
    assert.equal(other.length, 0, other.map((r) => r.text).join('\n'));
    assert.equal(ok, 1);
    assert.equal(conflicts.length, 9);
    assert.equal((await owner.listAll(product.id)).filter((r) => r.data.sku === sku).length, 1);
  });

  test('concurrency: concurrent imports with overlapping SKUs store each SKU once and report the rest', async () => {
    const model = await owner.createProductModel();
    const rows = Array.from({ length: 50 }, (_, i) => ({ sku: `OV-${i}`, title: `t${i}` }));
    const results = await Promise.all([
      owner.importRows(model.id, rows),
      ownerOnSecond.importRows(model.id, rows),
      owner.importRows(model.id, [...rows].reverse()),
    ]);
    const imported = results.reduce((sum, r) => sum + r.importedCount, 0);
    const errors = results.reduce((sum, r) => sum + r.errors.length, 0);
    assert.equal(imported, 50);
    assert.equal(errors, 100);
    for (const result of results) {
      for (const error of result.errors) assert.equal(error.message, 'sku: A record with this SKU already exists');
    }
    const stored = await owner.listAll(model.id);
    assert.equal(stored.length, 50);
    assert.equal(new Set(stored.map((r) => r.data.sku)).size, 50);
  });

  test('concurrency: concurrent patches setting two records to one SKU — at most one succeeds', async () => {
    const model = await owner.createProductModel();
    const a = await owner.createRecord(model.id, { sku: 'PA', title: 'a' });
    const b = await owner.createRecord(model.id, { sku: 'PB', title: 'b' });
    const responses = await Promise.all([owner.patchRaw(a.id, { sku: 'SAME' }), ownerOnSecond.patchRaw(b.id, { sku: 'SAME' })]);
    const { ok, conflicts, other } = outcome(responses);
    assert.equal(other.length, 0, other.map((r) => r.text).join('\n'));
    assert.equal(ok, 1);
    assert.equal(conflicts.length, 1);
    const skus = (await owner.listAll(model.id)).map((r) => r.data.sku).sort();
    assert.equal(skus.filter((s: string) => s === 'SAME').length, 1);
  });

  test('concurrency: concurrent model creates with one slug — exactly one succeeds', async () => {
    const slug = uniqueSlug('race');
    const responses = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        (i % 2 ? owner : ownerOnSecond).createModelRaw({ slug, fields: [{ key: 'title', type: 'text' }] }),
      ),
    );
    const { ok, conflicts, other } = outcome(responses);
    assert.equal(other.length, 0, other.map((r) => r.text).join('\n'));
    assert.equal(ok, 1);
    assert.equal(conflicts.length, 5);
    const list = (await owner.ok('{ model { list { slug } } }')).model.list.filter((m: any) => m.slug === slug);
    assert.equal(list.length, 1);
  });

  test('concurrency: a delete racing patches leaves either the patched record or none, never an error other than NOT_FOUND', async () => {
    const record = await owner.createRecord(wide.id, { title: 'doomed' });
    const responses = await Promise.all([
      ...Array.from({ length: 5 }, (_, i) => owner.patchRaw(record.id, { [`f${i}`]: 'x' })),
      ownerOnSecond.deleteRaw(record.id),
      ...Array.from({ length: 5 }, (_, i) => ownerOnSecond.patchRaw(record.id, { [`f${i + 5}`]: 'y' })),
    ]);
    for (const response of responses) {
      assert.equal(response.status, 200, response.text);
      if (response.body.errors) assert.equal(response.body.errors[0].extensions.code, 'NOT_FOUND', response.text);
    }
    assert.equal(await owner.getRecord(record.id), null);
  });
});
