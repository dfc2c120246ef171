// Record history over the admin GraphQL API (docs/lifecycle.md): revision, history, diff, restore, get(asOf), and
// who may do which.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Admin, bootstrapAdmin, dataOf, expectError } from '../support/client.js';
import { startServer, type TestServer } from '../support/server.js';

let server: TestServer;
let owner: Admin;
let viewer: Admin;
let editor: Admin;
let product: any;

const HISTORY = `query ($id: ID!, $limit: Int, $offset: Int) { record { history(id: $id, limit: $limit, offset: $offset) {
  total hasMore items { revision operation data createdAt createdBy } } } }`;
const DIFF =
  'query ($id: ID!, $from: Int!, $to: Int) { record { diff(id: $id, from: $from, to: $to) { op path value oldValue } } }';
const RESTORE = 'mutation ($id: ID!, $revision: Int!) { record { restore(id: $id, revision: $revision) { id revision data } } }';
const AS_OF = 'query ($id: ID!, $asOf: DateTime) { record { get(id: $id, asOf: $asOf) { id revision data updatedAt } } }';

before(async () => {
  server = await startServer();
  owner = await bootstrapAdmin(server);
  const made = async (email: string, role: 'viewer' | 'editor') => {
    const { token } = await server.createToken({ workspaceId: owner.workspaceId, email, role });
    return new Admin(server, { token, workspaceId: owner.workspaceId });
  };
  viewer = await made('viewer@acme.test', 'viewer');
  editor = await made('editor@acme.test', 'editor');
  product = await owner.createProductModel();
});

after(async () => {
  await server?.dispose();
});

async function patch(admin: Admin, id: string, data: unknown): Promise<any> {
  return (
    await admin.ok('mutation ($input: PatchModelRecordInput!) { record { patch(input: $input) { revision } } }', {
      input: { id, data },
    })
  ).record.patch;
}

describe('record history', () => {
  test('every change makes a revision; history lists them newest first with their operation and author', async () => {
    const record = await owner.createRecord(product.id, { sku: 'H-1', title: 'Mug', price: 12 });
    assert.equal(
      (await owner.ok('query ($id: ID!) { record { get(id: $id) { revision } } }', { id: record.id })).record.get.revision,
      1,
    );
    assert.equal((await patch(editor, record.id, { price: 14 })).revision, 2);
    const { history } = (await viewer.ok(HISTORY, { id: record.id })).record;
    assert.equal(history.total, 2);
    assert.equal(history.hasMore, false);
    assert.deepEqual(
      history.items.map(({ revision, operation, data, createdBy }: any) => ({ revision, operation, data, createdBy })),
      [
        { revision: 2, operation: 'patch', data: { sku: 'H-1', title: 'Mug', price: 14 }, createdBy: 'editor@acme.test' },
        { revision: 1, operation: 'create', data: { sku: 'H-1', title: 'Mug', price: 12 }, createdBy: 'owner@acme.test' },
      ],
    );
    const page = (await viewer.ok(HISTORY, { id: record.id, limit: 1, offset: 0 })).record.history;
    assert.deepEqual([page.items.length, page.hasMore], [1, true]);
  });

  test('diff is an RFC 6902 patch from one revision to another, the newest by default', async () => {
    const record = await owner.createRecord(product.id, { sku: 'H-2', title: 'Plate', price: 3 });
    await owner.ok('mutation ($input: UpdateModelRecordInput!) { record { update(input: $input) { id } } }', {
      input: { id: record.id, data: { sku: 'H-2', title: 'Dish' } },
    });
    assert.deepEqual((await viewer.ok(DIFF, { id: record.id, from: 1 })).record.diff, [
      { op: 'remove', path: '/price', value: null, oldValue: 3 },
      { op: 'replace', path: '/title', value: 'Dish', oldValue: 'Plate' },
    ]);
    assert.deepEqual((await viewer.ok(DIFF, { id: record.id, from: 2, to: 1 })).record.diff, [
      { op: 'add', path: '/price', value: 3, oldValue: null },
      { op: 'replace', path: '/title', value: 'Plate', oldValue: 'Dish' },
    ]);
    const missing = expectError(await viewer.q(DIFF, { id: record.id, from: 5 }), 'NOT_FOUND');
    assert.equal(missing.message, `from: record ${record.id} has no revision 5`);
  });

  test('restore: an editor brings back old data as a new revision, a deleted record with its id; a viewer may not', async () => {
    const record = await owner.createRecord(product.id, { sku: 'H-3', title: 'Cup' });
    await patch(owner, record.id, { title: 'Tea cup' });
    const forbidden = expectError(await viewer.q(RESTORE, { id: record.id, revision: 1 }), 'FORBIDDEN', 403);
    assert.match(forbidden.message, /^Forbidden: viewer may not write records$/);
    const restored = dataOf(await editor.q(RESTORE, { id: record.id, revision: 1 })).record.restore;
    assert.deepEqual(restored, { id: record.id, revision: 3, data: { sku: 'H-3', title: 'Cup' } });
    await owner.ok('mutation ($id: ID!) { record { delete(id: $id) { deleted } } }', { id: record.id });
    assert.equal((await owner.ok(HISTORY, { id: record.id })).record.history.items[0].operation, 'delete');
    const back = dataOf(await editor.q(RESTORE, { id: record.id, revision: 2 })).record.restore;
    assert.deepEqual(back, { id: record.id, revision: 5, data: { sku: 'H-3', title: 'Tea cup' } });
    assert.equal((await owner.getRecord(record.id)).data.title, 'Tea cup');
  });

  test('get(asOf) reads the record as it was then; null before it existed; a bad time names asOf', async () => {
    const before = new Date(Date.now() - 60_000).toISOString();
    const record = await owner.createRecord(product.id, { sku: 'H-4', title: 'Jug' });
    await new Promise((resolve) => setTimeout(resolve, 5));
    const between = new Date().toISOString();
    await new Promise((resolve) => setTimeout(resolve, 5));
    await patch(owner, record.id, { title: 'Water jug' });
    assert.equal((await viewer.ok(AS_OF, { id: record.id, asOf: before })).record.get, null);
    const then = (await viewer.ok(AS_OF, { id: record.id, asOf: between })).record.get;
    assert.deepEqual([then.revision, then.data.title], [1, 'Jug']);
    const bad = expectError(await viewer.q(AS_OF, { id: record.id, asOf: 'soon' }), 'BAD_USER_INPUT');
    assert.equal(bad.message, 'asOf: expected an ISO 8601 date-time, got "soon"');
  });

  test("another workspace's record, or an unknown id, is NOT_FOUND naming id", async () => {
    const record = await owner.createRecord(product.id, { sku: 'H-5', title: 'Bowl' });
    const other = await bootstrapAdmin(server, {
      org: 'other-org',
      workspace: 'main',
      email: 'someone@other.test',
      role: 'owner',
    });
    for (const response of [await other.q(HISTORY, { id: record.id }), await owner.q(HISTORY, { id: 'no-such-id' })]) {
      assert.equal(expectError(response, 'NOT_FOUND').message, 'id: record not found');
    }
    assert.equal(
      expectError(await other.q(RESTORE, { id: record.id, revision: 1 }), 'NOT_FOUND').message,
      'id: record not found',
    );
  });
});
