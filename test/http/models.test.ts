// Model definitions: model.create (every field type), slug uniqueness, model.get, model.update, model.delete.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { Admin, bootstrapAdmin, dataOf, expectError, MODEL_FIELDS, uniqueSlug } from '../support/client.js';
import { startServer, type TestServer } from '../support/server.js';

let server: TestServer;
let owner: Admin;
let other: Admin;

before(async () => {
  server = await startServer();
  owner = await bootstrapAdmin(server);
  other = await bootstrapAdmin(server, { org: 'acme', workspace: 'other', email: 'other@acme.test' });
});

after(async () => {
  await server?.dispose();
});

const UPDATE = `mutation($input: UpdateModelDefinitionInput!) { model { update(input: $input) { ${MODEL_FIELDS} } } }`;
const DELETE = 'mutation($id: ID!) { model { delete(id: $id) { id deleted } } }';

async function slugsOf(admin: Admin): Promise<string[]> {
  return (await admin.ok('{ model { list { slug } } }')).model.list.map((m: any) => m.slug);
}

describe('model.create', () => {
  test('model.create: every field type (text, number, boolean, date, relation hasOne/hasMany, translatable, object with sub-fields) is stored and read back', async () => {
    const target = await owner.createSimpleModel({ slug: uniqueSlug('category') });
    const slug = uniqueSlug('article');
    const created = await owner.createModel({
      name: 'Article',
      slug,
      displayField: 'title',
      description: 'All the field types',
      deliveryAccess: 'public',
      fields: [
        { key: 'title', label: 'Title', type: 'text', required: true },
        { key: 'rating', label: 'Rating', type: 'number' },
        { key: 'featured', label: 'Featured', type: 'boolean' },
        { key: 'publishedOn', label: 'Published on', type: 'date' },
        { key: 'category', label: 'Category', type: 'relation', relationTo: `model:${target.slug}`, relationType: 'hasOne' },
        { key: 'related', label: 'Related', type: 'relation', relationTo: `model:${target.slug}`, relationType: 'hasMany' },
        { key: 'name', label: 'Name', type: 'translatable' },
        {
          key: 'dimensions',
          label: 'Dimensions',
          type: 'object',
          fields: [
            { key: 'width', label: 'Width', type: 'number', required: true },
            { key: 'unit', label: 'Unit', type: 'text' },
          ],
        },
      ],
    });
    assert.equal(typeof created.id, 'string');
    assert.ok(created.id.length > 0);
    assert.equal(created.slug, slug);
    assert.equal(created.name, 'Article');
    assert.equal(created.description, 'All the field types');
    assert.equal(created.displayField, 'title');
    assert.equal(created.deliveryAccess, 'public');
    assert.equal(created.workspaceId, owner.workspaceId);
    assert.equal(created.recordCount, 0);
    assert.ok(!Number.isNaN(Date.parse(created.createdAt)));
    assert.ok(!Number.isNaN(Date.parse(created.updatedAt)));

    const read = await owner.getModel(created.id);
    assert.deepEqual(read, created);
    const byKey = Object.fromEntries(read.fields.map((f: any) => [f.key, f]));
    assert.deepEqual(
      read.fields.map((f: any) => f.key),
      ['title', 'rating', 'featured', 'publishedOn', 'category', 'related', 'name', 'dimensions'],
    );
    assert.equal(byKey.title.type, 'text');
    assert.equal(byKey.title.required, true);
    assert.equal(byKey.title.label, 'Title');
    assert.equal(byKey.rating.type, 'number');
    assert.equal(byKey.rating.required, false);
    assert.equal(byKey.featured.type, 'boolean');
    assert.equal(byKey.publishedOn.type, 'date');
    assert.equal(byKey.category.type, 'relation');
    assert.equal(byKey.category.relationTo, `model:${target.slug}`);
    assert.equal(byKey.category.relationType, 'hasOne');
    assert.equal(byKey.related.relationType, 'hasMany');
    assert.equal(byKey.name.type, 'translatable');
    assert.equal(byKey.dimensions.type, 'object');
    assert.deepEqual(
      byKey.dimensions.fields.map((f: any) => [f.key, f.type, f.required]),
      [
        ['width', 'number', true],
        ['unit', 'text', false],
      ],
    );

    // And a record using every type is accepted.
    const category = await owner.createRecord(target.id, { title: 'Balls' });
    const data = {
      title: 'Hello',
      rating: 4.5,
      featured: true,
      publishedOn: '2024-05-01',
      category: category.id,
      related: [category.id],
      name: { en: 'Ball', pl: 'Piłka' },
      dimensions: { width: 10, unit: 'cm' },
    };
    const record = await owner.createRecord(created.id, data);
    assert.deepEqual(record.data, data);
    assert.deepEqual((await owner.getRecord(record.id)).data, data);
  });

  test('model.create: a relation without relationType is hasOne', async () => {
    const target = await owner.createSimpleModel();
    const model = await owner.createModel({
      fields: [
        { key: 'title', type: 'text' },
        { key: 'link', type: 'relation', relationTo: `model:${target.slug}` },
      ],
    });
    assert.equal(model.fields[1].relationType, 'hasOne');
  });

  test('model.create: returns an id that model.list lists with its slug and name', async () => {
    const slug = uniqueSlug('listed');
    const response = await owner.q('mutation($input: CreateModelDefinitionInput!) { model { create(input: $input) { id } } }', {
      input: {
        name: 'Listed',
        slug,
        displayField: 'title',
        fields: [{ key: 'title', label: 'Title', type: 'text', required: true }],
      },
    });
    const { id } = dataOf(response).model.create;
    const list = (await owner.ok('{ model { list { id slug name } } }')).model.list;
    assert.deepEqual(
      list.find((m: any) => m.id === id),
      { id, slug, name: 'Listed' },
    );
  });

  test('model.create: displayField left out is the first field key', async () => {
    const model = await owner.createModel({
      fields: [
        { key: 'headline', type: 'text' },
        { key: 'body', type: 'text' },
      ],
    });
    assert.equal(model.displayField, 'headline');
  });

  test('model.create: deliveryAccess defaults to none', async () => {
    const model = await owner.createSimpleModel();
    assert.equal(model.deliveryAccess, 'none');
  });

  test('model.create: product settings are stored', async () => {
    const model = await owner.createProductModel();
    assert.deepEqual(model.product, { enabled: true, skuField: 'sku', priceField: 'price' });
  });

  test('model.create: a second create with the same slug is refused with CONFLICT, nothing written', async () => {
    const slug = uniqueSlug('dup');
    await owner.createSimpleModel({ slug, name: 'First' });
    const error = expectError(
      await owner.createModelRaw({ slug, name: 'Second', fields: [{ key: 'title', type: 'text' }] }),
      'CONFLICT',
    );
    assert.equal(error.message, 'slug: A model with this slug already exists');
    const list = (await owner.ok('{ model { list { slug name } } }')).model.list.filter((m: any) => m.slug === slug);
    assert.deepEqual(list, [{ slug, name: 'First' }]);
  });

  test('model.create: the slug is unique within the workspace only — another workspace may use it', async () => {
    const slug = uniqueSlug('shared');
    await owner.createSimpleModel({ slug });
    const model = await other.createSimpleModel({ slug });
    assert.equal(model.slug, slug);
  });

  test('model.create: an unknown field type is refused with BAD_USER_INPUT, nothing written', async () => {
    const slug = uniqueSlug('badtype');
    expectError(await owner.createModelRaw({ slug, fields: [{ key: 'title', type: 'banana' }] }), 'BAD_USER_INPUT');
    assert.ok(!(await slugsOf(owner)).includes(slug));
  });

  test('model.create: two fields with one key are refused with BAD_USER_INPUT', async () => {
    const slug = uniqueSlug('dupkey');
    expectError(
      await owner.createModelRaw({
        slug,
        fields: [
          { key: 'title', type: 'text' },
          { key: 'title', type: 'number' },
        ],
      }),
      'BAD_USER_INPUT',
    );
    assert.ok(!(await slugsOf(owner)).includes(slug));
  });

  test('model.create: a product skuField must name a text field and priceField a number field', async () => {
    const slug1 = uniqueSlug('badsku');
    expectError(
      await owner.createModelRaw({
        slug: slug1,
        fields: [
          { key: 'sku', type: 'number' },
          { key: 'price', type: 'number' },
        ],
        product: { enabled: true, skuField: 'sku', priceField: 'price' },
      }),
      'BAD_USER_INPUT',
    );
    const slug2 = uniqueSlug('badprice');
    expectError(
      await owner.createModelRaw({
        slug: slug2,
        fields: [
          { key: 'sku', type: 'text' },
          { key: 'price', type: 'text' },
        ],
        product: { enabled: true, skuField: 'sku', priceField: 'price' },
      }),
      'BAD_USER_INPUT',
    );
    const slug3 = uniqueSlug('missingsku');
    expectError(
      await owner.createModelRaw({
        slug: slug3,
        fields: [{ key: 'title', type: 'text' }],
        product: { enabled: true, skuField: 'sku' },
      }),
      'BAD_USER_INPUT',
    );
    const slugs = await slugsOf(owner);
    assert.ok(![slug1, slug2, slug3].some((s) => slugs.includes(s)));
  });

  test('model.create: a relation must name an existing model of the workspace as model:<slug>', async () => {
    const slug1 = uniqueSlug('dangling');
    expectError(
      await owner.createModelRaw({
        slug: slug1,
        fields: [
          { key: 'title', type: 'text' },
          { key: 'r', type: 'relation', relationTo: 'model:does-not-exist' },
        ],
      }),
      'BAD_USER_INPUT',
    );
    const target = await owner.createSimpleModel();
    const slug2 = uniqueSlug('badformat');
    expectError(
      await owner.createModelRaw({
        slug: slug2,
        fields: [
          { key: 'title', type: 'text' },
          { key: 'r', type: 'relation', relationTo: target.slug },
        ],
      }),
      'BAD_USER_INPUT',
    );
    const foreign = await other.createSimpleModel();
    const slug3 = uniqueSlug('foreignrel');
    expectError(
      await owner.createModelRaw({
        slug: slug3,
        fields: [
          { key: 'title', type: 'text' },
          { key: 'r', type: 'relation', relationTo: `model:${foreign.slug}` },
        ],
      }),
      'BAD_USER_INPUT',
    );
    const slugs = await slugsOf(owner);
    assert.ok(![slug1, slug2, slug3].some((s) => slugs.includes(s)));
  });

  test('model.create: an invalid deliveryAccess is refused with BAD_USER_INPUT', async () => {
    expectError(
      await owner.createModelRaw({ fields: [{ key: 'title', type: 'text' }], deliveryAccess: 'everyone' }),
      'BAD_USER_INPUT',
    );
  });
});

describe('model.get', () => {
  test('model.get: returns the definition by id', async () => {
    const model = await owner.createSimpleModel({ name: 'Gettable' });
    const read = await owner.getModel(model.id);
    assert.equal(read.id, model.id);
    assert.equal(read.name, 'Gettable');
    assert.deepEqual(
      read.fields.map((f: any) => f.key),
      ['title', 'note'],
    );
  });

  test('model.get: an unknown id returns null', async () => {
    assert.equal(await owner.getModel(randomUUID()), null);
  });

  test('model.get: a model of another workspace is null', async () => {
    const model = await other.createSimpleModel();
    assert.equal(await owner.getModel(model.id), null);
  });

  test('model.get: recordCount counts the records of the model', async () => {
    const model = await owner.createSimpleModel();
    await owner.importRows(model.id, [{ title: 'a' }, { title: 'b' }, { title: 'c' }]);
    assert.equal((await owner.getModel(model.id)).recordCount, 3);
  });
});

describe('model.update', () => {
  test('model.update: changes name and description, keeps the slug', async () => {
    const model = await owner.createSimpleModel({ name: 'Old' });
    const data = await owner.ok(UPDATE, { input: { id: model.id, name: 'New', description: 'changed' } });
    assert.equal(data.model.update.name, 'New');
    assert.equal(data.model.update.description, 'changed');
    assert.equal(data.model.update.slug, model.slug);
    const read = await owner.getModel(model.id);
    assert.equal(read.name, 'New');
    assert.equal(read.slug, model.slug);
  });

  test('model.update: the slug cannot be changed (not part of the update input)', async () => {
    const model = await owner.createSimpleModel();
    const response = await owner.q(UPDATE, { input: { id: model.id, slug: 'renamed' } });
    // GraphQL over HTTP: a request error (parse, validation, variables) is 200 with errors for application/json.
    assert.equal(response.status, 200, response.text);
    assert.equal(response.body.errors[0].extensions?.code, 'BAD_USER_INPUT', response.text);
    assert.equal(response.body.data, undefined);
    assert.equal((await owner.getModel(model.id)).slug, model.slug);
  });

  test('model.update: an optional field can be added to a model with records', async () => {
    const model = await owner.createSimpleModel();
    await owner.createRecord(model.id, { title: 'x' });
    const fields = [...model.fields.map(stripField), { key: 'extra', label: 'Extra', type: 'number' }];
    const updated = (await owner.ok(UPDATE, { input: { id: model.id, fields } })).model.update;
    assert.deepEqual(
      updated.fields.map((f: any) => f.key),
      ['title', 'note', 'extra'],
    );
    const record = await owner.createRecord(model.id, { title: 'y', extra: 5 });
    assert.equal(record.data.extra, 5);
  });

  test('model.update: a new required field is refused with CONFLICT naming the field when records lack it, nothing changed', async () => {
    const model = await owner.createSimpleModel();
    await owner.createRecord(model.id, { title: 'x' });
    const fields = [...model.fields.map(stripField), { key: 'mandatory', label: 'Mandatory', type: 'text', required: true }];
    const error = expectError(await owner.q(UPDATE, { input: { id: model.id, fields } }), 'CONFLICT');
    assert.match(error.message, /mandatory/);
    const read = await owner.getModel(model.id);
    assert.deepEqual(
      read.fields.map((f: any) => f.key),
      ['title', 'note'],
    );
  });

  test('model.update: a new required field is allowed when the model has no records', async () => {
    const model = await owner.createSimpleModel();
    const fields = [...model.fields.map(stripField), { key: 'mandatory', label: 'Mandatory', type: 'text', required: true }];
    const updated = (await owner.ok(UPDATE, { input: { id: model.id, fields } })).model.update;
    assert.equal(updated.fields[2].required, true);
    expectError(await owner.createRecordRaw(model.id, { title: 'no mandatory' }), 'BAD_USER_INPUT');
  });

  test('model.update: making an existing field required is refused with CONFLICT when a record lacks it', async () => {
    const model = await owner.createSimpleModel();
    await owner.createRecord(model.id, { title: 'without note' });
    const fields = model.fields.map(stripField).map((f: any) => (f.key === 'note' ? { ...f, required: true } : f));
    const error = expectError(await owner.q(UPDATE, { input: { id: model.id, fields } }), 'CONFLICT');
    assert.match(error.message, /note/);
    assert.equal((await owner.getModel(model.id)).fields[1].required, false);
  });

  test('model.update: a type change that stored records would violate is refused with CONFLICT naming the field', async () => {
    const model = await owner.createSimpleModel();
    await owner.createRecord(model.id, { title: 'x', note: 'text value' });
    const fields = model.fields.map(stripField).map((f: any) => (f.key === 'note' ? { ...f, type: 'number' } : f));
    const error = expectError(await owner.q(UPDATE, { input: { id: model.id, fields } }), 'CONFLICT');
    assert.match(error.message, /note/);
    assert.equal((await owner.getModel(model.id)).fields[1].type, 'text');
  });

  test('model.update: changing a relation target or cardinality is refused with CONFLICT while records hold values', async () => {
    const target = await owner.createSimpleModel();
    const target2 = await owner.createSimpleModel();
    const model = await owner.createModel({
      fields: [
        { key: 'title', type: 'text' },
        { key: 'link', type: 'relation', relationTo: `model:${target.slug}` },
      ],
    });
    const t = await owner.createRecord(target.id, { title: 't' });
    await owner.createRecord(model.id, { title: 'r', link: t.id });
    const fields = (patch: object) => [
      { key: 'title', type: 'text' },
      { key: 'link', type: 'relation', relationTo: `model:${target.slug}`, ...patch },
    ];
    assert.match(
      expectError(
        await owner.q(UPDATE, { input: { id: model.id, fields: fields({ relationTo: `model:${target2.slug}` }) } }),
        'CONFLICT',
      ).message,
      /link/,
    );
    assert.match(
      expectError(await owner.q(UPDATE, { input: { id: model.id, fields: fields({ relationType: 'hasMany' }) } }), 'CONFLICT')
        .message,
      /link/,
    );
    const read = await owner.getModel(model.id);
    assert.equal(read.fields[1].relationTo, `model:${target.slug}`);
    assert.equal(read.fields[1].relationType, 'hasOne');
  });

  test('model.update: turning on a product SKU field over duplicate values is refused with CONFLICT naming the field', async () => {
    const model = await owner.createModel({
      fields: [
        { key: 'code', type: 'text' },
        { key: 'title', type: 'text' },
      ],
    });
    await owner.importRows(model.id, [
      { code: 'A1', title: 'one' },
      { code: 'A1', title: 'two' },
    ]);
    const error = expectError(
      await owner.q(UPDATE, { input: { id: model.id, product: { enabled: true, skuField: 'code' } } }),
      'CONFLICT',
    );
    assert.match(error.message, /code/);
    const read = await owner.getModel(model.id);
    assert.ok(read.product === null || read.product.enabled === false, JSON.stringify(read.product));
  });

  test('model.update: removing a field removes its stored values from reads', async () => {
    const model = await owner.createSimpleModel();
    const record = await owner.createRecord(model.id, { title: 'keep', note: 'drop me' });
    const fields = model.fields.map(stripField).filter((f: any) => f.key !== 'note');
    const updated = (await owner.ok(UPDATE, { input: { id: model.id, fields } })).model.update;
    assert.deepEqual(
      updated.fields.map((f: any) => f.key),
      ['title'],
    );
    assert.deepEqual((await owner.getRecord(record.id)).data, { title: 'keep' });
    const listed = (await owner.list(model.id)).items.find((r) => r.id === record.id);
    assert.deepEqual(listed?.data, { title: 'keep' });
    // Writing the removed key is now an unknown field.
    const error = expectError(await owner.patchRaw(record.id, { note: 'again' }), 'BAD_USER_INPUT');
    assert.match(error.message, /^note: /);
    // Adding the field back does not bring the old value back.
    await owner.ok(UPDATE, { input: { id: model.id, fields: model.fields.map(stripField) } });
    assert.deepEqual((await owner.getRecord(record.id)).data, { title: 'keep' });
  });

  test('model.update: an unknown id is NOT_FOUND or null, never a created model', async () => {
    const response = await owner.q(UPDATE, { input: { id: randomUUID(), name: 'ghost' } });
    assert.equal(response.status, 200, response.text);
    if (response.body.errors) {
      assert.equal(response.body.errors[0].extensions.code, 'NOT_FOUND');
    } else {
      assert.equal(response.body.data.model.update, null);
    }
    const names = (await owner.ok('{ model { list { name } } }')).model.list.map((m: any) => m.name);
    assert.ok(!names.includes('ghost'));
  });
});

describe('model.delete', () => {
  test('model.delete: deletes an empty model and returns {id, deleted: true}', async () => {
    const model = await owner.createSimpleModel();
    const data = await owner.ok(DELETE, { id: model.id });
    assert.deepEqual(data.model.delete, { id: model.id, deleted: true });
    assert.equal(await owner.getModel(model.id), null);
    assert.ok(!(await slugsOf(owner)).includes(model.slug));
  });

  test('model.delete: the slug is free again after a delete', async () => {
    const model = await owner.createSimpleModel();
    await owner.ok(DELETE, { id: model.id });
    const again = await owner.createSimpleModel({ slug: model.slug });
    assert.notEqual(again.id, model.id);
  });

  test('model.delete: refused with CONFLICT while the model has records, nothing deleted', async () => {
    const model = await owner.createSimpleModel();
    const record = await owner.createRecord(model.id, { title: 'still here' });
    expectError(await owner.q(DELETE, { id: model.id }), 'CONFLICT');
    assert.equal((await owner.getModel(model.id)).id, model.id);
    assert.equal((await owner.getRecord(record.id)).id, record.id);
    // Once the records are gone the model can be deleted.
    dataOf(await owner.deleteRaw(record.id));
    assert.deepEqual((await owner.ok(DELETE, { id: model.id })).model.delete, { id: model.id, deleted: true });
  });

  test('model.delete: refused with CONFLICT while it is the relationTo target of another model', async () => {
    const target = await owner.createSimpleModel();
    const source = await owner.createModel({
      fields: [
        { key: 'title', type: 'text' },
        { key: 'ref', type: 'relation', relationTo: `model:${target.slug}` },
      ],
    });
    expectError(await owner.q(DELETE, { id: target.id }), 'CONFLICT');
    assert.equal((await owner.getModel(target.id)).id, target.id);
    // After the referencing model is gone, the target can go.
    await owner.ok(DELETE, { id: source.id });
    assert.deepEqual((await owner.ok(DELETE, { id: target.id })).model.delete, { id: target.id, deleted: true });
  });

  test('model.delete: a model whose only relation points at itself can be deleted', async () => {
    const slug = uniqueSlug('selfref');
    const model = await owner.createModel({
      slug,
      fields: [
        { key: 'title', type: 'text' },
        { key: 'parent', type: 'relation', relationTo: `model:${slug}` },
      ],
    });
    assert.deepEqual((await owner.ok(DELETE, { id: model.id })).model.delete, { id: model.id, deleted: true });
  });

  test('model.delete: an unknown id is NOT_FOUND', async () => {
    expectError(await owner.q(DELETE, { id: randomUUID() }), 'NOT_FOUND');
  });

  test('model.delete: a model of another workspace is NOT_FOUND and stays', async () => {
    const model = await other.createSimpleModel();
    expectError(await owner.q(DELETE, { id: model.id }), 'NOT_FOUND');
    assert.equal((await other.getModel(model.id)).id, model.id);
  });
});

/** A field definition as read back, reduced to input fields (drops nulls). */
function stripField(field: any): any {
  const out: any = {};
  for (const key of ['key', 'label', 'type', 'required', 'relationTo', 'relationType']) {
    if (field[key] !== null && field[key] !== undefined) out[key] = field[key];
  }
  if (Array.isArray(field.fields)) out.fields = field.fields.map(stripField);
  return out;
}
