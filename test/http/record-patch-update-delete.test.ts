// record.patch (JSON merge patch, RFC 7386), record.update (replace), record.delete (references, force).
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { Admin, bootstrapAdmin, dataOf, expectError, expectFieldError, uniqueSlug } from '../support/client.js';
import { startServer, type TestServer } from '../support/server.js';

let server: TestServer;
let owner: Admin;
let editor: Admin;
let editorUserId: string;
let model: any; // title (required), note, count, name (translatable), meta (object), dims (object with sub-fields), tags
let product: any;

before(async () => {
  server = await startServer();
  owner = await bootstrapAdmin(server);
  const e = await server.createToken({ workspaceId: owner.workspaceId, email: 'editor@acme.test', role: 'editor' });
  editor = new Admin(server, { token: e.token, workspaceId: owner.workspaceId });
  editorUserId = e.userId;
  model = await owner.createModel({
    slug: uniqueSlug('doc'),
    displayField: 'title',
    fields: [
      { key: 'title', type: 'text', required: true },
      { key: 'note', type: 'text' },
      { key: 'count', type: 'number' },
      { key: 'name', type: 'translatable' },
      { key: 'meta', type: 'object' },
      {
        key: 'dims',
        type: 'object',
        fields: [
          { key: 'width', type: 'number', required: true },
          { key: 'unit', type: 'text' },
        ],
      },
    ],
  });
  product = await owner.createProductModel();
});

after(async () => {
  await server?.dispose();
});

function patched(response: Awaited<ReturnType<Admin['patchRaw']>>): any {
  return dataOf(response).record.patch;
}

function updated(response: Awaited<ReturnType<Admin['updateRaw']>>): any {
  return dataOf(response).record.update;
}

describe('record.patch', () => {
  test('record.patch: a field left out keeps its stored value', async () => {
    const record = await owner.createRecord(model.id, { title: 'T', note: 'N', count: 1 });
    const result = patched(await owner.patchRaw(record.id, { count: 2 }));
    assert.deepEqual(result.data, { title: 'T', note: 'N', count: 2 });
    assert.deepEqual((await owner.getRecord(record.id)).data, { title: 'T', note: 'N', count: 2 });
  });

  test('record.patch: a field set to null is removed', async () => {
    const record = await owner.createRecord(model.id, { title: 'T', note: 'N', count: 1 });
    const result = patched(await owner.patchRaw(record.id, { note: null }));
    assert.deepEqual(result.data, { title: 'T', count: 1 });
    assert.deepEqual((await owner.getRecord(record.id)).data, { title: 'T', count: 1 });
  });

  test('record.patch: null on a required field is refused naming the field, nothing changed', async () => {
    const record = await owner.createRecord(model.id, { title: 'T', note: 'N' });
    expectFieldError(await owner.patchRaw(record.id, { title: null, note: 'changed' }), 'title');
    assert.deepEqual((await owner.getRecord(record.id)).data, { title: 'T', note: 'N' });
  });

  test('record.patch: a translatable field given an object is merged key by key', async () => {
    const record = await owner.createRecord(model.id, { title: 'T', name: { en: 'Ball', pl: 'Piłka' } });
    const result = patched(await owner.patchRaw(record.id, { name: { de: 'Ball', en: 'Football' } }));
    assert.deepEqual(result.data.name, { en: 'Football', pl: 'Piłka', de: 'Ball' });
  });

  test('record.patch: null inside a translatable object removes that locale only', async () => {
    const record = await owner.createRecord(model.id, { title: 'T', name: { en: 'Ball', pl: 'Piłka' } });
    const result = patched(await owner.patchRaw(record.id, { name: { pl: null } }));
    assert.deepEqual(result.data, { title: 'T', name: { en: 'Ball' } });
  });

  test('record.patch: an object field given an object is merged recursively (RFC 7386), null inside removing a key', async () => {
    const record = await owner.createRecord(model.id, {
      title: 'T',
      meta: { a: { b: 1, c: 2 }, keep: 'yes', list: [1, 2, 3], gone: true },
    });
    const result = patched(
      await owner.patchRaw(record.id, { meta: { a: { c: null, d: 3 }, list: [9], gone: null, added: { x: 1 } } }),
    );
    assert.deepEqual(result.data.meta, { a: { b: 1, d: 3 }, keep: 'yes', list: [9], added: { x: 1 } });
    assert.deepEqual((await owner.getRecord(record.id)).data.meta, result.data.meta);
  });

  test('record.patch: a field that had no value given an object takes the object without the null members', async () => {
    const record = await owner.createRecord(model.id, { title: 'T' });
    const result = patched(await owner.patchRaw(record.id, { meta: { a: 1, b: null } }));
    assert.deepEqual(result.data.meta, { a: 1 });
  });

  test('record.patch: an object field with sub-fields is merged and the result validated', async () => {
    const record = await owner.createRecord(model.id, { title: 'T', dims: { width: 3, unit: 'cm' } });
    const result = patched(await owner.patchRaw(record.id, { dims: { unit: 'mm' } }));
    assert.deepEqual(result.data.dims, { width: 3, unit: 'mm' });
    // Removing the required sub-field is refused and changes nothing.
    expectFieldError(await owner.patchRaw(record.id, { dims: { width: null } }), 'dims');
    assert.deepEqual((await owner.getRecord(record.id)).data.dims, { width: 3, unit: 'mm' });
  });

  test('record.patch: returns the full stored data object after the patch', async () => {
    const record = await owner.createRecord(model.id, { title: 'T', note: 'N', count: 5, name: { en: 'x' } });
    const result = patched(await owner.patchRaw(record.id, { count: 6 }));
    assert.equal(result.id, record.id);
    assert.deepEqual(result.data, { title: 'T', note: 'N', count: 6, name: { en: 'x' } });
  });

  test('record.patch: an empty patch changes nothing and returns the full data', async () => {
    const record = await owner.createRecord(model.id, { title: 'T', note: 'N' });
    const result = patched(await owner.patchRaw(record.id, {}));
    assert.deepEqual(result.data, { title: 'T', note: 'N' });
  });

  test('record.patch: values are validated like record.create, naming the field, nothing changed', async () => {
    const record = await owner.createRecord(model.id, { title: 'T', count: 1 });
    expectFieldError(await owner.patchRaw(record.id, { count: '2' }), 'count');
    assert.equal(
      expectError(await owner.patchRaw(record.id, { colour: 'red' }), 'BAD_USER_INPUT').message,
      'colour: unknown field',
    );
    expectFieldError(await owner.patchRaw(record.id, { note: 'a\u0000b' }), 'note');
    expectFieldError(await owner.patchRaw(record.id, { name: 'not an object' }), 'name');
    expectFieldError(await owner.patchRaw(record.id, { name: { en: 1 } }), 'name');
    assert.deepEqual((await owner.getRecord(record.id)).data, { title: 'T', count: 1 });
  });

  test('record.patch: data that is not an object is refused with BAD_USER_INPUT', async () => {
    const record = await owner.createRecord(model.id, { title: 'T' });
    for (const data of ['x', [1], 3]) {
      const response = await owner.patchRaw(record.id, data);
      assert.ok(response.status === 200 || response.status === 400, response.text);
      assert.equal(response.body.errors?.[0]?.extensions?.code, 'BAD_USER_INPUT', response.text);
    }
    assert.deepEqual((await owner.getRecord(record.id)).data, { title: 'T' });
  });

  test('record.patch: changing a SKU to one already stored is CONFLICT with the SKU message', async () => {
    await owner.createRecord(product.id, { sku: 'PA-1', title: 'a' });
    const b = await owner.createRecord(product.id, { sku: 'PA-2', title: 'b' });
    const error = expectError(await owner.patchRaw(b.id, { sku: 'PA-1' }), 'CONFLICT');
    assert.equal(error.message, 'sku: A record with this SKU already exists');
    assert.equal((await owner.getRecord(b.id)).data.sku, 'PA-2');
    // Patching a record with its own SKU is not a conflict.
    assert.equal(patched(await owner.patchRaw(b.id, { sku: 'PA-2', title: 'b2' })).data.title, 'b2');
  });

  test('record.patch: updatedAt moves forward, createdAt stays, updatedBy is the patching user', async () => {
    const record = await owner.createRecord(model.id, { title: 'T' });
    await sleep(5);
    const result = patched(await editor.patchRaw(record.id, { note: 'by editor' }));
    assert.equal(result.createdAt, record.createdAt);
    assert.ok(Date.parse(result.updatedAt) > Date.parse(record.updatedAt), `${result.updatedAt} > ${record.updatedAt}`);
    assert.equal(result.createdBy, record.createdBy);
    assert.equal(result.updatedBy, editorUserId);
  });

  test('record.patch: a refused patch leaves updatedAt and updatedBy unchanged', async () => {
    const record = await owner.createRecord(model.id, { title: 'T' });
    await sleep(5);
    expectFieldError(await editor.patchRaw(record.id, { count: 'nope' }), 'count');
    const read = await owner.getRecord(record.id);
    assert.equal(read.updatedAt, record.updatedAt);
    assert.equal(read.updatedBy, record.updatedBy);
  });

  test('record.patch: an unknown id is NOT_FOUND (id: record not found)', async () => {
    const error = expectError(await owner.patchRaw(randomUUID(), { title: 'x' }), 'NOT_FOUND');
    assert.equal(error.message, 'id: record not found');
  });
});

describe('record.update', () => {
  test('record.update: replaces the whole data object — every field not sent is removed', async () => {
    const record = await owner.createRecord(model.id, { title: 'T', note: 'N', count: 1, name: { en: 'x' } });
    const result = updated(await owner.updateRaw(record.id, { title: 'New', count: 2 }));
    assert.equal(result.id, record.id);
    assert.deepEqual(result.data, { title: 'New', count: 2 });
    assert.deepEqual((await owner.getRecord(record.id)).data, { title: 'New', count: 2 });
  });

  test('record.update: a translatable or object value is replaced, not merged', async () => {
    const record = await owner.createRecord(model.id, { title: 'T', name: { en: 'a', pl: 'b' }, meta: { x: 1, y: 2 } });
    const result = updated(await owner.updateRaw(record.id, { title: 'T', name: { de: 'c' }, meta: { z: 3 } }));
    assert.deepEqual(result.data, { title: 'T', name: { de: 'c' }, meta: { z: 3 } });
  });

  test('record.update: a field set to null is the same as leaving it out', async () => {
    const record = await owner.createRecord(model.id, { title: 'T', note: 'N' });
    const result = updated(await owner.updateRaw(record.id, { title: 'T', note: null }));
    assert.deepEqual(result.data, { title: 'T' });
  });

  test('record.update: a missing required field is refused naming the field, nothing changed', async () => {
    const record = await owner.createRecord(model.id, { title: 'T', note: 'N' });
    expectFieldError(await owner.updateRaw(record.id, { note: 'only note' }), 'title');
    assert.deepEqual((await owner.getRecord(record.id)).data, { title: 'T', note: 'N' });
  });

  test('record.update: values are validated like record.create', async () => {
    const record = await owner.createRecord(model.id, { title: 'T' });
    expectFieldError(await owner.updateRaw(record.id, { title: 'T', count: '1' }), 'count');
    assert.equal(
      expectError(await owner.updateRaw(record.id, { title: 'T', zzz: 1 }), 'BAD_USER_INPUT').message,
      'zzz: unknown field',
    );
    assert.deepEqual((await owner.getRecord(record.id)).data, { title: 'T' });
  });

  test('record.update: changing a SKU to one already stored is CONFLICT with the SKU message', async () => {
    await owner.createRecord(product.id, { sku: 'UP-1', title: 'a' });
    const b = await owner.createRecord(product.id, { sku: 'UP-2', title: 'b' });
    const error = expectError(await owner.updateRaw(b.id, { sku: 'UP-1', title: 'b' }), 'CONFLICT');
    assert.equal(error.message, 'sku: A record with this SKU already exists');
    assert.deepEqual((await owner.getRecord(b.id)).data, { sku: 'UP-2', title: 'b' });
  });

  test('record.update: an unknown id is NOT_FOUND (id: record not found)', async () => {
    const error = expectError(await owner.updateRaw(randomUUID(), { title: 'x' }), 'NOT_FOUND');
    assert.equal(error.message, 'id: record not found');
  });
});

describe('record.delete', () => {
  let target: any;
  let referrer: any; // hasOne `main` and hasMany `extras` to target

  before(async () => {
    target = await owner.createSimpleModel({ slug: uniqueSlug('target') });
    referrer = await owner.createModel({
      slug: uniqueSlug('referrer'),
      fields: [
        { key: 'title', type: 'text', required: true },
        { key: 'main', type: 'relation', relationTo: `model:${target.slug}`, relationType: 'hasOne' },
        { key: 'extras', type: 'relation', relationTo: `model:${target.slug}`, relationType: 'hasMany' },
      ],
    });
  });

  test('record.delete: removes the record and returns {id, deleted: true}', async () => {
    const record = await owner.createRecord(model.id, { title: 'bye' });
    const before = await owner.total(model.id);
    const response = await owner.deleteRaw(record.id);
    assert.deepEqual(dataOf(response).record.delete, { id: record.id, deleted: true });
    assert.equal(await owner.getRecord(record.id), null);
    assert.equal(await owner.total(model.id), before - 1);
    assert.ok(!(await owner.listAll(model.id)).some((r) => r.id === record.id));
  });

  test('record.delete: an unknown id is NOT_FOUND (id: record not found), also on a second delete', async () => {
    const error = expectError(await owner.deleteRaw(randomUUID()), 'NOT_FOUND');
    assert.equal(error.message, 'id: record not found');
    const record = await owner.createRecord(model.id, { title: 'twice' });
    dataOf(await owner.deleteRaw(record.id));
    expectError(await owner.deleteRaw(record.id), 'NOT_FOUND');
  });

  test('record.delete: patch and update of a deleted record are NOT_FOUND', async () => {
    const record = await owner.createRecord(model.id, { title: 'gone' });
    dataOf(await owner.deleteRaw(record.id));
    expectError(await owner.patchRaw(record.id, { note: 'x' }), 'NOT_FOUND');
    expectError(await owner.updateRaw(record.id, { title: 'x' }), 'NOT_FOUND');
    assert.equal(await owner.getRecord(record.id), null);
  });

  test('record.delete: the SKU of a deleted record can be used again', async () => {
    const record = await owner.createRecord(product.id, { sku: 'DEL-1', title: 'a' });
    dataOf(await owner.deleteRaw(record.id));
    const again = await owner.createRecord(product.id, { sku: 'DEL-1', title: 'b' });
    assert.equal(again.data.sku, 'DEL-1');
  });

  test('record.delete: refused with CONFLICT naming the referencing model slug and field while a hasOne relation points at it', async () => {
    const t = await owner.createRecord(target.id, { title: 'referenced' });
    const r = await owner.createRecord(referrer.id, { title: 'ref', main: t.id });
    const error = expectError(await owner.deleteRaw(t.id), 'CONFLICT');
    assert.ok(error.message.includes(referrer.slug), `message names the model slug: ${error.message}`);
    assert.ok(error.message.includes('main'), `message names the field: ${error.message}`);
    assert.equal((await owner.getRecord(t.id)).id, t.id);
    assert.equal((await owner.getRecord(r.id)).data.main, t.id);
  });

  test('record.delete: refused with CONFLICT naming the model and field while a hasMany relation points at it', async () => {
    const t = await owner.createRecord(target.id, { title: 'referenced many' });
    await owner.createRecord(referrer.id, { title: 'ref', extras: [t.id] });
    const error = expectError(await owner.deleteRaw(t.id), 'CONFLICT');
    assert.ok(error.message.includes(referrer.slug), error.message);
    assert.ok(error.message.includes('extras'), error.message);
    assert.equal((await owner.getRecord(t.id)).id, t.id);
  });

  test('record.delete: force:false behaves like no force', async () => {
    const t = await owner.createRecord(target.id, { title: 'referenced' });
    await owner.createRecord(referrer.id, { title: 'ref', main: t.id });
    expectError(await owner.deleteRaw(t.id, false), 'CONFLICT');
    assert.equal((await owner.getRecord(t.id)).id, t.id);
  });

  test('record.delete: force:true deletes and removes the dangling references (hasOne field removed, hasMany loses the id)', async () => {
    const t = await owner.createRecord(target.id, { title: 'doomed' });
    const keep = await owner.createRecord(target.id, { title: 'kept' });
    const one = await owner.createRecord(referrer.id, { title: 'one', main: t.id, extras: [keep.id] });
    const many = await owner.createRecord(referrer.id, { title: 'many', main: keep.id, extras: [keep.id, t.id] });
    const response = await owner.deleteRaw(t.id, true);
    assert.deepEqual(dataOf(response).record.delete, { id: t.id, deleted: true });
    assert.equal(await owner.getRecord(t.id), null);
    assert.deepEqual((await owner.getRecord(one.id)).data, { title: 'one', extras: [keep.id] });
    assert.deepEqual((await owner.getRecord(many.id)).data, { title: 'many', main: keep.id, extras: [keep.id] });
    // The referencing records stay writable (no dangling id refused on the next patch).
    assert.equal(patched(await owner.patchRaw(many.id, { title: 'many2' })).data.title, 'many2');
  });

  test('record.delete: a relation between records of the same model blocks the delete', async () => {
    const slug = uniqueSlug('tree');
    const tree = await owner.createModel({
      slug,
      fields: [
        { key: 'title', type: 'text' },
        { key: 'parent', type: 'relation', relationTo: `model:${slug}` },
      ],
    });
    const parent = await owner.createRecord(tree.id, { title: 'parent' });
    await owner.createRecord(tree.id, { title: 'child', parent: parent.id });
    const error = expectError(await owner.deleteRaw(parent.id), 'CONFLICT');
    assert.ok(error.message.includes(slug) && error.message.includes('parent'), error.message);
  });

  test('record.delete: a self reference never blocks a delete', async () => {
    const slug = uniqueSlug('selfref');
    const tree = await owner.createModel({
      slug,
      fields: [
        { key: 'title', type: 'text' },
        { key: 'parent', type: 'relation', relationTo: `model:${slug}` },
      ],
    });
    const record = await owner.createRecord(tree.id, { title: 'me' });
    assert.equal(patched(await owner.patchRaw(record.id, { parent: record.id })).data.parent, record.id);
    assert.deepEqual(dataOf(await owner.deleteRaw(record.id)).record.delete, { id: record.id, deleted: true });
  });

  test('record.delete: after the referencing record is gone the target can be deleted without force', async () => {
    const t = await owner.createRecord(target.id, { title: 'later' });
    const r = await owner.createRecord(referrer.id, { title: 'ref', main: t.id });
    expectError(await owner.deleteRaw(t.id), 'CONFLICT');
    dataOf(await owner.deleteRaw(r.id));
    assert.deepEqual(dataOf(await owner.deleteRaw(t.id)).record.delete, { id: t.id, deleted: true });
  });

  test('record.delete: removing the reference with a patch unblocks the delete', async () => {
    const t = await owner.createRecord(target.id, { title: 'later' });
    const r = await owner.createRecord(referrer.id, { title: 'ref', extras: [t.id] });
    patched(await owner.patchRaw(r.id, { extras: [] }));
    assert.deepEqual(dataOf(await owner.deleteRaw(t.id)).record.delete, { id: t.id, deleted: true });
  });
});
