// record.create: validation (`<field key>: <reason>`), SKU uniqueness, price in major units; record.get.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { Admin, authHeaders, bootstrapAdmin, expectError, expectFieldError, request, uniqueSlug } from '../support/client.js';
import { startServer, type BootstrapResult, type TestServer } from '../support/server.js';

let server: TestServer;
let owner: Admin;
let ownerInfo: BootstrapResult;
let other: Admin;
let product: any;
let typed: any; // one field of every type
let target: any; // relation target

before(async () => {
  server = await startServer();
  ownerInfo = await server.bootstrap({ org: 'acme', workspace: 'main', email: 'owner@acme.test', role: 'owner' });
  owner = new Admin(server, { token: ownerInfo.token, workspaceId: ownerInfo.workspaceId });
  other = await bootstrapAdmin(server, { org: 'acme', workspace: 'other', email: 'other@acme.test' });
  product = await owner.createProductModel();
  target = await owner.createSimpleModel({ slug: uniqueSlug('target') });
  typed = await owner.createModel({
    slug: uniqueSlug('typed'),
    displayField: 'title',
    fields: [
      { key: 'title', type: 'text', required: true },
      { key: 'count', type: 'number' },
      { key: 'flag', type: 'boolean' },
      { key: 'day', type: 'date' },
      { key: 'one', type: 'relation', relationTo: `model:${target.slug}`, relationType: 'hasOne' },
      { key: 'many', type: 'relation', relationTo: `model:${target.slug}`, relationType: 'hasMany' },
      { key: 'name', type: 'translatable' },
      {
        key: 'dims',
        type: 'object',
        fields: [
          { key: 'width', type: 'number', required: true },
          { key: 'unit', type: 'text' },
        ],
      },
      { key: 'meta', type: 'object' },
    ],
  });
});

after(async () => {
  await server?.dispose();
});

const assertFieldError = expectFieldError;

async function assertRefusedWithNothingWritten(modelId: string, data: unknown, field: string): Promise<string> {
  const before = await owner.total(modelId);
  const message = assertFieldError(await owner.createRecordRaw(modelId, data), field);
  assert.equal(await owner.total(modelId), before, 'a refused create writes nothing');
  return message;
}

describe('record.create', () => {
  test('record.create: returns id and data, and the record carries modelId, workspaceId, timestamps and createdBy', async () => {
    const before = Date.now();
    const record = await owner.createRecord(product.id, { sku: 'CREATE-1', title: 'Ball', price: 10 });
    assert.equal(typeof record.id, 'string');
    assert.ok(record.id.length > 0);
    assert.deepEqual(record.data, { sku: 'CREATE-1', title: 'Ball', price: 10 });
    assert.equal(record.modelId, product.id);
    assert.equal(record.workspaceId, owner.workspaceId);
    assert.equal(record.createdBy, ownerInfo.userId);
    assert.equal(record.updatedBy, ownerInfo.userId);
    const created = Date.parse(record.createdAt);
    assert.ok(!Number.isNaN(created));
    assert.ok(created >= before - 5000 && created <= Date.now() + 5000, 'createdAt is now');
    assert.equal(record.updatedAt, record.createdAt);
    // DateTime is ISO 8601 with millisecond precision.
    assert.match(record.createdAt, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}(Z|[+-]\d{2}:\d{2})$/);
  });

  test('record.create: a missing required field is refused with a message naming the field (title: ...), nothing written', async () => {
    const message = await assertRefusedWithNothingWritten(product.id, { sku: 'NO-TITLE', price: 1 }, 'title');
    assert.match(message, /^title: /);
  });

  test('record.create: a required field set to null is the same as missing', async () => {
    await assertRefusedWithNothingWritten(product.id, { sku: 'NULL-TITLE', title: null }, 'title');
  });

  test('record.create: a null optional field is the same as leaving it out', async () => {
    const record = await owner.createRecord(typed.id, { title: 'nulls', count: null });
    assert.deepEqual(record.data, { title: 'nulls' });
  });

  test('record.create: a field error carries extensions.field', async () => {
    const error = expectError(await owner.createRecordRaw(product.id, { sku: 'EXT-1' }), 'BAD_USER_INPUT');
    assert.equal(error.extensions?.field, 'title');
  });

  test('record.create: a number field refuses the string "149.99" (strict JSON types)', async () => {
    await assertRefusedWithNothingWritten(product.id, { sku: 'STR-PRICE', title: 'x', price: '149.99' }, 'price');
  });

  test('record.create: each type refuses a value of another JSON type, naming the field', async () => {
    await assertRefusedWithNothingWritten(typed.id, { title: 5 }, 'title');
    await assertRefusedWithNothingWritten(typed.id, { title: 'x', count: '3' }, 'count');
    await assertRefusedWithNothingWritten(typed.id, { title: 'x', count: true }, 'count');
    await assertRefusedWithNothingWritten(typed.id, { title: 'x', flag: 'true' }, 'flag');
    await assertRefusedWithNothingWritten(typed.id, { title: 'x', flag: 1 }, 'flag');
    await assertRefusedWithNothingWritten(typed.id, { title: 'x', day: 'yesterday' }, 'day');
    await assertRefusedWithNothingWritten(typed.id, { title: 'x', day: 20240501 }, 'day');
    await assertRefusedWithNothingWritten(typed.id, { title: 'x', name: 'Ball' }, 'name');
    await assertRefusedWithNothingWritten(typed.id, { title: 'x', meta: [1, 2] }, 'meta');
    await assertRefusedWithNothingWritten(typed.id, { title: 'x', meta: 'text' }, 'meta');
    await assertRefusedWithNothingWritten(typed.id, { title: ['x'] }, 'title');
  });

  test('record.create: a date field accepts an ISO 8601 date and date-time', async () => {
    assert.equal((await owner.createRecord(typed.id, { title: 'd1', day: '2024-05-01' })).data.day, '2024-05-01');
    assert.equal(
      (await owner.createRecord(typed.id, { title: 'd2', day: '2024-05-01T10:20:30Z' })).data.day,
      '2024-05-01T10:20:30Z',
    );
    assert.equal(
      (await owner.createRecord(typed.id, { title: 'd3', day: '2024-05-01T10:20:30.123+02:00' })).data.day,
      '2024-05-01T10:20:30.123+02:00',
    );
  });

  test('record.create: an impossible calendar date is refused', async () => {
    await assertRefusedWithNothingWritten(typed.id, { title: 'x', day: '2024-13-45' }, 'day');
  });

  test('record.create: an unknown key is refused with `<key>: unknown field`', async () => {
    const before = await owner.total(product.id);
    const error = expectError(
      await owner.createRecordRaw(product.id, { sku: 'UNK-1', title: 'x', colour: 'red' }),
      'BAD_USER_INPUT',
    );
    assert.equal(error.message, 'colour: unknown field');
    assert.equal(await owner.total(product.id), before);
  });

  test('record.create: a string containing the NUL character is refused naming the field', async () => {
    await assertRefusedWithNothingWritten(product.id, { sku: 'NUL-1', title: 'bad\u0000title' }, 'title');
    await assertRefusedWithNothingWritten(product.id, { sku: 'NUL\u00002', title: 'x' }, 'sku');
  });

  test('record.create: a NUL character inside a translatable or object value is refused naming the field', async () => {
    const m1 = assertFieldError(await owner.createRecordRaw(typed.id, { title: 'x', name: { en: 'a\u0000b' } }), 'name');
    assert.ok(m1.length > 0);
    const before = await owner.total(typed.id);
    const response = await owner.createRecordRaw(typed.id, { title: 'x', meta: { inner: { deep: 'a\u0000b' } } });
    const message = assertFieldError(response, 'meta');
    assert.match(message, /NUL/i);
    assert.equal(await owner.total(typed.id), before);
  });

  test('record.create: data that is not a JSON object is refused with BAD_USER_INPUT, nothing written', async () => {
    const before = await owner.total(product.id);
    for (const data of ['a string', 42, [{ sku: 'ARR-1', title: 'x' }], true]) {
      const response = await owner.createRecordRaw(product.id, data);
      assert.ok(response.status === 200 || response.status === 400, `status ${response.status}: ${response.text}`);
      assert.ok(Array.isArray(response.body?.errors), response.text);
      assert.equal(response.body.errors[0].extensions?.code, 'BAD_USER_INPUT', response.text);
      assert.ok(!response.body.data?.record?.create, response.text);
    }
    // data: null is a GraphQL variable error (JSON! is non-null): 200 with errors for application/json.
    const nullResponse = await owner.createRecordRaw(product.id, null);
    assert.equal(nullResponse.status, 200, nullResponse.text);
    assert.equal(nullResponse.body.data, undefined);
    assert.equal(nullResponse.body.errors[0].extensions?.code, 'BAD_USER_INPUT');
    assert.equal(await owner.total(product.id), before);
  });

  test('record.create: data given inline as a GraphQL object literal is accepted', async () => {
    const response = await owner.q(
      `mutation { record { create(input: { modelId: "${product.id}", data: { sku: "INLINE-1", title: "Inline", price: 2.5 } }) { id data } } }`,
    );
    assert.equal(response.status, 200, response.text);
    assert.equal(response.body.errors, undefined, response.text);
    assert.deepEqual(response.body.data.record.create.data, { sku: 'INLINE-1', title: 'Inline', price: 2.5 });
  });

  test('record.create: keys __proto__, constructor and prototype are refused anywhere in data', async () => {
    for (const json of [
      `{"title":"x","__proto__":{"polluted":true}}`,
      `{"title":"x","constructor":"y"}`,
      `{"title":"x","meta":{"prototype":1}}`,
      `{"title":"x","meta":{"a":{"__proto__":{"polluted":true}}}}`,
      `{"title":"x","dims":{"width":1,"constructor":2}}`,
    ]) {
      const before = await owner.total(typed.id);
      // Send the raw JSON text so that __proto__ survives as an own key.
      const response = await request(server.adminUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...authHeaders(owner.credentials) },
        body: `{"query":"mutation($input: CreateModelRecordInput!) { record { create(input: $input) { id data } } }","variables":{"input":{"modelId":"${typed.id}","data":${json}}}}`,
      });
      const { text, body } = response;
      assert.ok(Array.isArray(body.errors), `${json} -> ${text}`);
      assert.equal(body.errors[0].extensions?.code, 'BAD_USER_INPUT', `${json} -> ${text}`);
      assert.match(body.errors[0].message, /key not allowed/, `${json} -> ${text}`);
      assert.equal(await owner.total(typed.id), before);
    }
    assert.equal(({} as any).polluted, undefined);
  });

  test('record.create: a __proto__ key inside a translatable value is refused as `<path>: key not allowed`', async () => {
    for (const json of [`{"title":"x","name":{"__proto__":"Ball"}}`, `{"title":"x","name":{"constructor":"Ball"}}`]) {
      const before = await owner.total(typed.id);
      // Send the raw JSON text so that __proto__ survives as an own key.
      const response = await request(server.adminUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...authHeaders(owner.credentials) },
        body: `{"query":"mutation($input: CreateModelRecordInput!) { record { create(input: $input) { id data } } }","variables":{"input":{"modelId":"${typed.id}","data":${json}}}}`,
      });
      const { text, body } = response;
      assert.ok(Array.isArray(body.errors), `${json} -> ${text}`);
      assert.equal(body.errors[0].extensions?.code, 'BAD_USER_INPUT', `${json} -> ${text}`);
      assert.match(body.errors[0].message, /key not allowed/, `${json} -> ${text}`);
      assert.equal(await owner.total(typed.id), before);
    }
    assert.equal(({} as any).polluted, undefined);
  });

  test('record.create: duplicate SKU is refused with exactly `sku: A record with this SKU already exists`, CONFLICT, nothing written', async () => {
    await owner.createRecord(product.id, { sku: 'DUP-1', title: 'first' });
    const before = await owner.total(product.id);
    const error = expectError(await owner.createRecordRaw(product.id, { sku: 'DUP-1', title: 'second' }), 'CONFLICT');
    assert.equal(error.message, 'sku: A record with this SKU already exists');
    assert.equal(await owner.total(product.id), before);
  });

  test("record.create: the duplicate SKU message names the model's own skuField key", async () => {
    const model = await owner.createModel({
      fields: [
        { key: 'articleNumber', type: 'text', required: true },
        { key: 'cost', type: 'number' },
      ],
      product: { enabled: true, skuField: 'articleNumber', priceField: 'cost' },
    });
    await owner.createRecord(model.id, { articleNumber: 'AN-1', cost: 1 });
    const error = expectError(await owner.createRecordRaw(model.id, { articleNumber: 'AN-1', cost: 2 }), 'CONFLICT');
    assert.equal(error.message, 'articleNumber: A record with this SKU already exists');
  });

  test('record.create: SKU uniqueness is per model — another product model may hold the same SKU', async () => {
    const second = await owner.createProductModel();
    await owner.createRecord(product.id, { sku: 'SHARED-SKU', title: 'in first' });
    const record = await owner.createRecord(second.id, { sku: 'SHARED-SKU', title: 'in second' });
    assert.equal(record.data.sku, 'SHARED-SKU');
  });

  test('record.create: SKUs are compared exactly (a different case is a different SKU)', async () => {
    await owner.createRecord(product.id, { sku: 'case-sku', title: 'lower' });
    const record = await owner.createRecord(product.id, { sku: 'CASE-SKU', title: 'upper' });
    assert.equal(record.data.sku, 'CASE-SKU');
  });

  test('record.create: in a product model records without a SKU are allowed when the SKU field is optional', async () => {
    const model = await owner.createModel({
      fields: [
        { key: 'sku', type: 'text' },
        { key: 'title', type: 'text' },
      ],
      product: { enabled: true, skuField: 'sku' },
    });
    await owner.createRecord(model.id, { title: 'no sku 1' });
    await owner.createRecord(model.id, { title: 'no sku 2' });
    assert.equal(await owner.total(model.id), 2);
  });

  test('record.create: a non-product model accepts duplicate values in every field (only the SKU can be unique)', async () => {
    const model = await owner.createModel({
      fields: [
        { key: 'sku', type: 'text' },
        { key: 'title', type: 'text' },
      ],
    });
    await owner.createRecord(model.id, { sku: 'SAME', title: 'same' });
    await owner.createRecord(model.id, { sku: 'SAME', title: 'same' });
    assert.equal(await owner.total(model.id), 2);
  });

  test('record.create: price is in major units — 149.99 is stored and read back as 149.99', async () => {
    const record = await owner.createRecord(product.id, { sku: 'PRICE-1', title: 'Pricey', price: 149.99 });
    assert.equal(record.data.price, 149.99);
    const read = await owner.getRecord(record.id);
    assert.equal(read.data.price, 149.99);
    assert.equal(typeof read.data.price, 'number');
    const listed = (await owner.listAll(product.id)).find((r) => r.id === record.id);
    assert.equal(listed?.data.price, 149.99);
  });

  test('record.create: numbers keep their JSON value (integers, negatives, 0.1)', async () => {
    for (const count of [0, -3, 0.1, 1e21, 123456789012]) {
      const record = await owner.createRecord(typed.id, { title: `n${count}`, count });
      assert.equal((await owner.getRecord(record.id)).data.count, count);
    }
  });

  test('record.create: a translatable field takes an object of locale code to string', async () => {
    const record = await owner.createRecord(typed.id, { title: 'tr', name: { en: 'Ball', pl: 'Piłka', 'pt-BR': 'Bola' } });
    assert.deepEqual(record.data.name, { en: 'Ball', pl: 'Piłka', 'pt-BR': 'Bola' });
    await assertRefusedWithNothingWritten(typed.id, { title: 'x', name: { en: 5 } }, 'name');
    await assertRefusedWithNothingWritten(typed.id, { title: 'x', name: { 'not a locale': 'x' } }, 'name');
    await assertRefusedWithNothingWritten(typed.id, { title: 'x', name: { EN: 'x' } }, 'name');
  });

  test('record.create: an object field with sub-fields is validated like a nested model', async () => {
    const record = await owner.createRecord(typed.id, { title: 'o', dims: { width: 3, unit: 'cm' } });
    assert.deepEqual(record.data.dims, { width: 3, unit: 'cm' });
    await assertRefusedWithNothingWritten(typed.id, { title: 'x', dims: { unit: 'cm' } }, 'dims');
    await assertRefusedWithNothingWritten(typed.id, { title: 'x', dims: { width: '3' } }, 'dims');
    await assertRefusedWithNothingWritten(typed.id, { title: 'x', dims: { width: 3, depth: 4 } }, 'dims');
  });

  test('record.create: an object field without sub-fields holds any JSON object', async () => {
    const meta = { a: 1, b: [1, 'two', { c: null }], d: { e: { f: true } } };
    const record = await owner.createRecord(typed.id, { title: 'meta', meta });
    assert.deepEqual(record.data.meta, meta);
    assert.deepEqual((await owner.getRecord(record.id)).data.meta, meta);
  });

  test('record.create: a hasOne relation takes the id of an existing record of the target model', async () => {
    const t = await owner.createRecord(target.id, { title: 'target' });
    const record = await owner.createRecord(typed.id, { title: 'rel', one: t.id });
    assert.equal(record.data.one, t.id);
    await assertRefusedWithNothingWritten(typed.id, { title: 'x', one: randomUUID() }, 'one');
    await assertRefusedWithNothingWritten(typed.id, { title: 'x', one: [t.id] }, 'one');
    // A record of another model is not a record of the target model.
    const wrongModel = await owner.createRecord(product.id, { sku: 'WRONG-MODEL', title: 'x' });
    await assertRefusedWithNothingWritten(typed.id, { title: 'x', one: wrongModel.id }, 'one');
  });

  test('record.create: a hasMany relation takes an array of ids of existing records of the target model', async () => {
    const a = await owner.createRecord(target.id, { title: 'a' });
    const b = await owner.createRecord(target.id, { title: 'b' });
    const record = await owner.createRecord(typed.id, { title: 'many', many: [a.id, b.id] });
    assert.deepEqual(record.data.many, [a.id, b.id]);
    await assertRefusedWithNothingWritten(typed.id, { title: 'x', many: a.id }, 'many');
    await assertRefusedWithNothingWritten(typed.id, { title: 'x', many: [a.id, randomUUID()] }, 'many');
  });

  test('record.create: a relation cannot point into another workspace', async () => {
    const foreignTarget = await other.createSimpleModel({ slug: target.slug });
    const foreign = await other.createRecord(foreignTarget.id, { title: 'foreign' });
    await assertRefusedWithNothingWritten(typed.id, { title: 'x', one: foreign.id }, 'one');
  });

  test('record.create: an unknown modelId is NOT_FOUND (modelId: model not found)', async () => {
    const error = expectError(await owner.createRecordRaw(randomUUID(), { title: 'x' }), 'NOT_FOUND');
    assert.equal(error.message, 'modelId: model not found');
  });

  test('record.create: a model of another workspace is NOT_FOUND, nothing written there', async () => {
    const foreign = await other.createSimpleModel();
    expectError(await owner.createRecordRaw(foreign.id, { title: 'x' }), 'NOT_FOUND');
    assert.equal(await other.total(foreign.id), 0);
  });

  test('record.create: large text values are stored unchanged', async () => {
    const long = 'x'.repeat(200_000) + 'é🙂';
    const record = await owner.createRecord(typed.id, { title: long });
    assert.equal((await owner.getRecord(record.id)).data.title, long);
  });
});

describe('record.get', () => {
  test('record.get: returns the stored record by id', async () => {
    const record = await owner.createRecord(product.id, { sku: 'GET-1', title: 'Get me', price: 3 });
    const read = await owner.getRecord(record.id);
    assert.deepEqual(read, record);
  });

  test('record.get: an unknown id returns null', async () => {
    assert.equal(await owner.getRecord(randomUUID()), null);
  });

  test('record.get: a malformed id returns null or BAD_USER_INPUT, never a record', async () => {
    const response = await owner.q('query($id: ID!) { record { get(id: $id) { id } } }', { id: 'not-an-id' });
    if (response.body?.errors) {
      assert.equal(response.body.errors[0].extensions?.code, 'BAD_USER_INPUT', response.text);
    } else {
      assert.equal(response.status, 200);
      assert.equal(response.body.data.record.get, null);
    }
  });

  test('record.get: a record of another workspace is null', async () => {
    const foreignModel = await other.createSimpleModel();
    const foreign = await other.createRecord(foreignModel.id, { title: 'foreign' });
    assert.equal(await owner.getRecord(foreign.id), null);
  });
});
