// A model's icon and color (../shared/spec/delivery.md: optional model settings, shown by the delivery route's
// definitions): model.create and model.update take them, null or "" clears them, bad values are refused naming
// the setting. Black-box over HTTP.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Admin, bootstrapAdmin, expectError, gql, uniqueSlug } from '../support/client.js';
import { startServer, type TestServer } from '../support/server.js';

let server: TestServer;
let owner: Admin;

const CREATE = 'mutation($input: CreateModelDefinitionInput!) { model { create(input: $input) { id icon color } } }';
const UPDATE = 'mutation($input: UpdateModelDefinitionInput!) { model { update(input: $input) { id icon color name } } }';
const FIELDS = [{ key: 'name', type: 'text' }];

before(async () => {
  server = await startServer();
  owner = await bootstrapAdmin(server, { org: 'acme', workspace: 'main', email: 'owner@acme.test' });
});

after(async () => {
  await server?.dispose();
});

function create(extra: Record<string, unknown>) {
  return owner.q(CREATE, { input: { name: 'Model', slug: uniqueSlug('icon'), fields: FIELDS, ...extra } });
}

test('model icon and color: optional, null when not given', async () => {
  const model = (await owner.ok(CREATE, { input: { name: 'Plain', slug: uniqueSlug('plain'), fields: FIELDS } })).model.create;
  assert.equal(model.icon, null);
  assert.equal(model.color, null);
});

test('model icon and color: create and update take them; an update keeps what it does not name; null or "" clears', async () => {
  const model = (
    await owner.ok(CREATE, {
      input: { name: 'Shop', slug: uniqueSlug('shop'), fields: FIELDS, icon: 'shopping-cart', color: '#1E90FF' },
    })
  ).model.create;
  assert.deepEqual({ icon: model.icon, color: model.color }, { icon: 'shopping-cart', color: '#1E90FF' });
  const renamed = (await owner.ok(UPDATE, { input: { id: model.id, name: 'Shop 2' } })).model.update;
  assert.deepEqual(renamed, { id: model.id, icon: 'shopping-cart', color: '#1E90FF', name: 'Shop 2' });
  const emoji = (await owner.ok(UPDATE, { input: { id: model.id, icon: '🛒', color: '#abc' } })).model.update;
  assert.deepEqual({ icon: emoji.icon, color: emoji.color }, { icon: '🛒', color: '#abc' });
  const cleared = (await owner.ok(UPDATE, { input: { id: model.id, icon: null, color: '' } })).model.update;
  assert.deepEqual({ icon: cleared.icon, color: cleared.color }, { icon: null, color: null });
  const read = (await owner.ok('query($id: ID!) { model { get(id: $id) { icon color } } }', { id: model.id })).model.get;
  assert.deepEqual(read, { icon: null, color: null });
});

test('model icon and color: every CSS hex form is a color', async () => {
  for (const color of ['#fff', '#ffff', '#00ff7f', '#00ff7f80']) {
    assert.equal(
      (await owner.ok(CREATE, { input: { name: 'C', slug: uniqueSlug('c'), fields: FIELDS, color } })).model.create.color,
      color,
    );
  }
});

test('model icon and color: a color that is not a CSS hex colour is refused naming it', async () => {
  for (const color of ['red', 'fff', '#ff', '#fffff', '#ggg', 'rgb(0,0,0)', '#1e90ff ', '#1e90ff80ff']) {
    const error = expectError(await create({ color }), 'BAD_USER_INPUT');
    assert.equal(error.message, 'color: must be a CSS hex colour: #rgb, #rgba, #rrggbb or #rrggbbaa (such as #1e90ff)', color);
  }
});

test('model icon and color: an icon over 64 characters is refused naming it', async () => {
  assert.equal(
    (await owner.ok(CREATE, { input: { name: 'I', slug: uniqueSlug('i'), fields: FIELDS, icon: 'x'.repeat(64) } })).model.create
      .icon.length,
    64,
  );
  const error = expectError(await create({ icon: 'x'.repeat(65) }), 'BAD_USER_INPUT');
  assert.equal(error.message, 'icon: must be at most 64 characters');
});

test('model icon and color: the delivery route shows them for public models', async () => {
  const slug = uniqueSlug('pub');
  await owner.ok(CREATE, {
    input: { name: 'Pub', slug, fields: FIELDS, icon: '📦', color: '#123456', deliveryAccess: 'public' },
  });
  const response = await gql(server.deliveryUrl('acme', 'main'), {}, '{ public { model { definitions { slug icon color } } } }');
  const definitions = response.body.data.public.model.definitions;
  assert.deepEqual(
    definitions.find((definition: any) => definition.slug === slug),
    { slug, icon: '📦', color: '#123456' },
  );
});
