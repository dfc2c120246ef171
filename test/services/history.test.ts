// Record history through the services, on both stores: revisions, their diff, restore (of a deleted record too),
// reads as of a time, and --history-keep.
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import jsonPatch from 'fast-json-patch';
import { HistoryService } from '../../src/services/history-service.js';
import { ModelService } from '../../src/services/model-service.js';
import { RecordService } from '../../src/services/record-service.js';
import { openStore } from '../../src/store/open-store.js';
import type { Store } from '../../src/store/store.js';
import { refusal, storeTargets } from '../support/store-targets.js';
import { ownedWorkspace, type OwnedWorkspace } from '../support/workspaces.js';

const targets = await storeTargets('record history');

interface World {
  store: Store;
  owner: OwnedWorkspace;
  records: RecordService;
  history: HistoryService;
  productModelId: string;
}

const PRODUCT = {
  name: 'Product',
  slug: 'product',
  fields: [
    { key: 'code', label: 'Code', type: 'text', required: true },
    { key: 'title', label: 'Title', type: 'text', required: true },
    { key: 'price', label: 'Price', type: 'number', required: false },
  ],
  product: { enabled: true, skuField: 'code' },
};

async function world(store: Store): Promise<World> {
  const owner = await ownedWorkspace(store);
  const model = await new ModelService(store).create(owner.actor, PRODUCT);
  const records = new RecordService(store);
  return { store, owner, records, history: new HistoryService(store, records), productModelId: model.id };
}

for (const target of targets) {
  describe(`record history on ${target.name}`, { skip: target.skip }, () => {
    const stores: Store[] = [];
    const open = async (name: string, historyKeep?: number) => {
      const store = await openStore(target.url(name), { historyKeep });
      stores.push(store);
      return world(store);
    };
    after(async () => {
      for (const store of stores) await store.close();
      await target.cleanup();
    });

    test('each change makes a revision, newest first, with its operation and author; the diff applies with a JSON Patch library', async () => {
      const { owner, records, history, productModelId } = await open('revisions');
      const { actor } = owner;
      const created = await records.create(actor, productModelId, { code: 'A-1', title: 'Mug', price: 12 });
      assert.equal(created.revision, 1);
      const patched = await records.patch(actor, created.id, { price: 14 });
      assert.equal(patched.revision, 2);
      const updated = await records.update(actor, created.id, { code: 'A-1', title: 'Big mug' });
      assert.equal(updated.revision, 3);
      const page = await history.history(actor.workspaceId, created.id, {});
      assert.equal(page.total, 3);
      assert.equal(page.hasMore, false);
      assert.deepEqual(
        page.items.map(({ revision, operation, data, createdBy }) => ({ revision, operation, data, createdBy })),
        [
          { revision: 3, operation: 'update', data: { code: 'A-1', title: 'Big mug' }, createdBy: 'owner@example.com' },
          { revision: 2, operation: 'patch', data: { code: 'A-1', title: 'Mug', price: 14 }, createdBy: 'owner@example.com' },
          { revision: 1, operation: 'create', data: { code: 'A-1', title: 'Mug', price: 12 }, createdBy: 'owner@example.com' },
        ],
      );
      const diff = await history.diff(actor.workspaceId, created.id, 1);
      assert.deepEqual(diff, [
        { op: 'remove', path: '/price', oldValue: 12 },
        { op: 'replace', path: '/title', value: 'Big mug', oldValue: 'Mug' },
      ]);
      const applied = jsonPatch.applyPatch({ code: 'A-1', title: 'Mug', price: 12 }, diff as jsonPatch.Operation[]).newDocument;
      assert.deepEqual(applied, updated.data);
      assert.deepEqual(await history.diff(actor.workspaceId, created.id, 2, 1), [
        { op: 'replace', path: '/price', value: 12, oldValue: 14 },
      ]);
      const second = await history.history(actor.workspaceId, created.id, { limit: 1, offset: 1 });
      assert.deepEqual(
        second.items.map((item) => item.revision),
        [2],
      );
      assert.equal(second.hasMore, true);
    });

    test('restore writes the old data as a new revision; unknown revisions and ids are NOT_FOUND naming the argument', async () => {
      const { owner, records, history, productModelId, store } = await open('restore');
      const { actor } = owner;
      const created = await records.create(actor, productModelId, { code: 'B-1', title: 'Plate' });
      await records.patch(actor, created.id, { title: 'Dish' });
      const restored = await history.restore(actor, created.id, 1);
      assert.equal(restored.revision, 3);
      assert.deepEqual(restored.data, { code: 'B-1', title: 'Plate' });
      assert.equal((await history.history(actor.workspaceId, created.id, {})).items[0]!.operation, 'restore');
      await assert.rejects(
        history.restore(actor, created.id, 9),
        refusal('NOT_FOUND', `revision: record ${created.id} has no revision 9`),
      );
      await assert.rejects(
        history.diff(actor.workspaceId, created.id, 7),
        refusal('NOT_FOUND', `from: record ${created.id} has no revision 7`),
      );
      await assert.rejects(history.history(actor.workspaceId, 'nope', {}), refusal('NOT_FOUND', 'id: record not found'));
      const other = await ownedWorkspace(store);
      await assert.rejects(history.history(other.workspace.id, created.id, {}), refusal('NOT_FOUND', 'id: record not found'));
    });

    test('a deleted record keeps its history and comes back with its id; its SKU taken meanwhile refuses it', async () => {
      const { owner, records, history, productModelId, store } = await open('deleted');
      const { actor } = owner;
      const created = await records.create(actor, productModelId, { code: 'C-1', title: 'Cup' });
      await records.patch(actor, created.id, { title: 'Tea cup' });
      await records.delete(actor, created.id, false);
      assert.equal(await store.records.get(actor.workspaceId, created.id), null);
      const page = await history.history(actor.workspaceId, created.id, {});
      assert.deepEqual(
        page.items.map(({ revision, operation }) => [revision, operation]),
        [
          [3, 'delete'],
          [2, 'patch'],
          [1, 'create'],
        ],
      );
      const back = await history.restore(actor, created.id, 2);
      assert.equal(back.id, created.id);
      assert.equal(back.revision, 4);
      assert.deepEqual((await store.records.get(actor.workspaceId, created.id))?.data, { code: 'C-1', title: 'Tea cup' });
      await records.delete(actor, created.id, false);
      await records.create(actor, productModelId, { code: 'C-1', title: 'Another cup' });
      await assert.rejects(
        history.restore(actor, created.id, 4),
        refusal('CONFLICT', 'code: A record with this SKU already exists'),
      );
    });

    test('restore checks the old data against the model as it is now, naming the field', async () => {
      const { owner, records, history, productModelId, store } = await open('model_changed');
      const { actor } = owner;
      const created = await records.create(actor, productModelId, { code: 'D-1', title: 'Bowl' });
      await records.patch(actor, created.id, { price: 3 });
      await records.patch(actor, created.id, { price: 4 });
      await new ModelService(store).update(actor, {
        id: productModelId,
        name: PRODUCT.name,
        product: PRODUCT.product,
        fields: [
          ...PRODUCT.fields.filter((field) => field.key !== 'price'),
          { key: 'price', label: 'Price', type: 'number', required: true },
        ],
      });
      await assert.rejects(history.restore(actor, created.id, 1), refusal('BAD_USER_INPUT', 'price: is required'));
    });

    test('asOf reads the revision current at a time; null before the record existed and after it was deleted', async () => {
      const { owner, records, history, productModelId } = await open('as_of');
      const { actor } = owner;
      const before = new Date(Date.now() - 1000).toISOString();
      const created = await records.create(actor, productModelId, { code: 'E-1', title: 'Jug' });
      await new Promise((resolve) => setTimeout(resolve, 5));
      const between = new Date().toISOString();
      await new Promise((resolve) => setTimeout(resolve, 5));
      await records.patch(actor, created.id, { title: 'Water jug' });
      assert.equal(await history.asOf(actor.workspaceId, created.id, before), null);
      const then = await history.asOf(actor.workspaceId, created.id, between);
      assert.deepEqual(then?.data, { code: 'E-1', title: 'Jug' });
      assert.equal(then?.revision, 1);
      assert.equal(then?.createdAt, created.createdAt);
      assert.deepEqual((await history.asOf(actor.workspaceId, created.id, new Date().toISOString()))?.data, {
        code: 'E-1',
        title: 'Water jug',
      });
      await records.delete(actor, created.id, false);
      assert.equal(await history.asOf(actor.workspaceId, created.id, new Date(Date.now() + 1000).toISOString()), null);
      await assert.rejects(
        history.asOf(actor.workspaceId, created.id, 'yesterday'),
        refusal('BAD_USER_INPUT', 'asOf: expected an ISO 8601 date-time, got "yesterday"'),
      );
    });

    test('--history-keep N keeps the newest N revisions; 0 keeps none and answers an empty history', async () => {
      const kept = await open('keep_2', 2);
      const created = await kept.records.create(kept.owner.actor, kept.productModelId, { code: 'F-1', title: 't0' });
      for (const title of ['t1', 't2', 't3']) await kept.records.patch(kept.owner.actor, created.id, { title });
      const page = await kept.history.history(kept.owner.actor.workspaceId, created.id, {});
      assert.deepEqual(
        page.items.map((item) => [item.revision, item.data.title]),
        [
          [4, 't3'],
          [3, 't2'],
        ],
      );
      assert.equal(page.total, 2);
      const none = await open('keep_0', 0);
      const plain = await none.records.create(none.owner.actor, none.productModelId, { code: 'G-1', title: 'x' });
      await none.records.patch(none.owner.actor, plain.id, { title: 'y' });
      assert.deepEqual(await none.history.history(none.owner.actor.workspaceId, plain.id, {}), {
        total: 0,
        hasMore: false,
        items: [],
      });
      assert.equal((await none.store.records.get(none.owner.actor.workspaceId, plain.id))?.revision, 2);
    });

    test('an import makes revision 1 of each row, as an import', async () => {
      const { owner, records, history, productModelId, store } = await open('import');
      const { actor } = owner;
      await records.import(actor, productModelId, [
        { code: 'H-1', title: 'one' },
        { code: 'H-2', title: 'two' },
      ]);
      const [first] = await store.records.list(productModelId, { limit: 1, offset: 0, sort: 'createdAt_asc' });
      const page = await history.history(actor.workspaceId, first!.id, {});
      assert.deepEqual(
        page.items.map(({ revision, operation }) => [revision, operation]),
        [[1, 'import']],
      );
    });
  });
}
