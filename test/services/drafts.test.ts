// Drafts and publishing through the services, on both stores: states, publish and unpublish all or nothing,
// discarding changes, what the delivery route's reader serves (pages, filters, counts, by id, populate), turning
// drafts on and off.
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { ModelService } from '../../src/services/model-service.js';
import { PublishingService } from '../../src/services/publishing-service.js';
import { RecordReader, type Reader } from '../../src/services/record-reader.js';
import { RecordService } from '../../src/services/record-service.js';
import { HistoryService } from '../../src/services/history-service.js';
import { openStore } from '../../src/store/open-store.js';
import type { Store } from '../../src/store/store.js';
import { readData } from '../../src/domain/record-shape.js';
import { refusal, storeTargets } from '../support/store-targets.js';
import { ownedWorkspace } from '../support/workspaces.js';

const targets = await storeTargets('drafts');

const AUTHOR = {
  name: 'Author',
  slug: 'author',
  deliveryAccess: 'public',
  drafts: true,
  fields: [{ key: 'name', label: 'Name', type: 'text', required: true }],
};
const ARTICLE = {
  name: 'Article',
  slug: 'article',
  deliveryAccess: 'public',
  drafts: true,
  fields: [
    { key: 'title', label: 'Title', type: 'text', required: true },
    { key: 'views', label: 'Views', type: 'number', required: false },
    { key: 'author', label: 'Author', type: 'relation', relationTo: 'model:author', relationType: 'hasOne', required: false },
  ],
};

async function world(store: Store) {
  const owner = await ownedWorkspace(store);
  const models = new ModelService(store);
  const author = await models.create(owner.actor, AUTHOR);
  const article = await models.create(owner.actor, ARTICLE);
  const records = new RecordService(store);
  const reader = new RecordReader(store, records);
  const publishing = new PublishingService(store, records);
  const served: Reader = { workspaceId: owner.actor.workspaceId, publicOnly: true, withData: true, served: true };
  const preview: Reader = { ...served, served: false };
  return { store, owner, actor: owner.actor, models, author, article, records, reader, publishing, served, preview };
}

const titles = (items: { data: unknown }[]) => items.map((item) => (readData(item as never) as { title: string }).title);

for (const target of targets) {
  describe(`drafts on ${target.name}`, { skip: target.skip }, () => {
    const stores: Store[] = [];
    const open = async (name: string) => {
      const store = await openStore(target.url(name));
      stores.push(store);
      return world(store);
    };
    after(async () => {
      for (const store of stores) await store.close();
      await target.cleanup();
    });

    test('a record is a draft until published, changed after an edit, published again when edited back', async () => {
      const { actor, article, records, publishing, store } = await open('states');
      const created = await records.create(actor, article.id, { title: 'Hello', views: 1 });
      assert.equal(created.publishStatus, 'draft');
      const [published] = (await publishing.publish(actor, [created.id])).records;
      assert.equal(published!.publishStatus, 'published');
      assert.equal(published!.publishedRevision, 1);
      assert.ok(published!.publishedAt);
      const edited = await records.patch(actor, created.id, { views: 2 });
      assert.equal(edited.publishStatus, 'changed');
      assert.equal(edited.publishedRevision, 1);
      const back = await records.patch(actor, created.id, { views: 1 });
      assert.equal(back.publishStatus, 'published', 'deep equality with the published copy');
      // Keys in another order are the same data.
      const reordered = await records.update(actor, created.id, { views: 1, title: 'Hello' });
      assert.equal(reordered.publishStatus, 'published');
      const copy = await store.published.get(actor.workspaceId, created.id);
      assert.deepEqual(readData(copy!), { title: 'Hello', views: 1 });
      const [unpublished] = (await publishing.unpublish(actor, [created.id])).records;
      assert.equal(unpublished!.publishStatus, 'draft');
      assert.equal(unpublished!.publishedRevision, null);
      assert.equal(await store.published.get(actor.workspaceId, created.id), null);
    });

    test('the delivery reader serves published copies only: pages, totals, filters, counts, by id; preview the working copies', async () => {
      const { actor, article, records, publishing, reader, served, preview, models } = await open('delivery');
      const one = await records.create(actor, article.id, { title: 'One', views: 10 });
      const two = await records.create(actor, article.id, { title: 'Two', views: 20 });
      await records.create(actor, article.id, { title: 'Three (draft)', views: 30 });
      await publishing.publish(actor, [one.id, two.id]);
      await records.patch(actor, two.id, { title: 'Two, edited', views: 5 });
      const fresh = (await models.get(actor.workspaceId, article.id))!;
      assert.equal(fresh.publishedCount, 2);
      const page = await reader.list(served, fresh, { sort: 'createdAt_asc' });
      assert.equal(page.total, 2);
      assert.deepEqual(titles(page.items), ['One', 'Two']);
      const filtered = await reader.list(served, fresh, { filter: { views: { $gte: 15 } } });
      assert.equal(filtered.total, 1, 'the published copy of Two has 20 views');
      assert.deepEqual(titles(filtered.items), ['Two']);
      const all = await reader.list(preview, fresh, { sort: 'createdAt_asc' });
      assert.equal(all.total, 3);
      assert.deepEqual(titles(all.items), ['One', 'Two, edited', 'Three (draft)']);
      const byIds = await reader.getMany(served, [two.id, 'missing', one.id], {}, fresh);
      assert.deepEqual(
        byIds.map((record) => record && (readData(record) as { title: string }).title),
        ['Two', null, 'One'],
      );
      // The model and its page read together (the route's first page) serve the same.
      const lookup = { key: { slug: 'article' }, visible: () => true, require: async () => fresh };
      const together = await reader.list(served, lookup, {});
      assert.equal(together.total, 2);
      assert.deepEqual(titles(together.items).sort(), ['One', 'Two']);
    });

    test('the admin list takes status: only the records in those states, counted; unknown states refused naming the position', async () => {
      const { actor, article, records, publishing, models } = await open('status');
      const one = await records.create(actor, article.id, { title: 'One' });
      const two = await records.create(actor, article.id, { title: 'Two' });
      await records.create(actor, article.id, { title: 'Three' });
      await publishing.publish(actor, [one.id, two.id]);
      await records.patch(actor, two.id, { views: 1 });
      const byStatus = async (status: string[]) => {
        const page = await records.list(actor.workspaceId, article.id, { status, sort: 'createdAt_asc' });
        return { total: page.total, titles: titles(page.items) };
      };
      assert.deepEqual(await byStatus(['draft']), { total: 1, titles: ['Three'] });
      assert.deepEqual(await byStatus(['changed']), { total: 1, titles: ['Two'] });
      assert.deepEqual(await byStatus(['published', 'changed']), { total: 2, titles: ['One', 'Two'] });
      await assert.rejects(
        byStatus(['published', 'live']),
        refusal('BAD_USER_INPUT', 'status.1: expected draft, published or changed, got "live"'),
      );
      const plain = await models.create(actor, {
        name: 'Plain',
        slug: 'plain',
        fields: [{ key: 't', label: 'T', type: 'text' }],
      });
      await records.create(actor, plain.id, { t: 'x' });
      assert.equal((await records.list(actor.workspaceId, plain.id, { status: ['published'] })).total, 1);
      assert.equal((await records.list(actor.workspaceId, plain.id, { status: ['draft', 'changed'] })).total, 0);
    });

    test('populate gives a target that is not published as null; publish answers the unpublished targets', async () => {
      const { actor, article, author, records, publishing, reader, served, models } = await open('populate');
      const ada = await records.create(actor, author.id, { name: 'Ada' });
      const post = await records.create(actor, article.id, { title: 'Post', author: ada.id });
      const result = await publishing.publish(actor, [post.id]);
      assert.deepEqual(result.unpublishedTargets, [ada.id]);
      const fresh = (await models.get(actor.workspaceId, article.id))!;
      const [before] = (await reader.list(served, fresh, { populate: ['author'] })).items;
      assert.equal((readData(before!) as { author: unknown }).author, null);
      assert.deepEqual((await publishing.publish(actor, [ada.id])).unpublishedTargets, []);
      const [afterPublish] = (await reader.list(served, fresh, { populate: ['author'] })).items;
      assert.equal((readData(afterPublish!) as { author: { data: { name: string } } }).author.data.name, 'Ada');
    });

    test("a hasMany filter on the delivery route reads the published copies' links, not the working copies'", async () => {
      const { actor, author, records, publishing, reader, served, preview, models } = await open('links');
      const shelf = await models.create(actor, {
        name: 'Shelf',
        slug: 'shelf',
        deliveryAccess: 'public',
        drafts: true,
        fields: [
          { key: 'name', label: 'Name', type: 'text', required: true },
          {
            key: 'authors',
            label: 'Authors',
            type: 'relation',
            relationTo: 'model:author',
            relationType: 'hasMany',
            required: false,
          },
        ],
      });
      const ada = await records.create(actor, author.id, { name: 'Ada' });
      const bob = await records.create(actor, author.id, { name: 'Bob' });
      const row = await records.create(actor, shelf.id, { name: 'Row', authors: [ada.id] });
      await publishing.publish(actor, [row.id, ada.id, bob.id]);
      await records.patch(actor, row.id, { authors: [bob.id] });
      const fresh = (await models.get(actor.workspaceId, shelf.id))!;
      const holding = async (who: Reader, id: string) =>
        (await reader.list(who, fresh, { filter: { authors: { $contains: id } } })).total;
      assert.equal(await holding(served, ada.id), 1, 'the published copy still holds Ada');
      assert.equal(await holding(served, bob.id), 0, 'only the working copy holds Bob');
      assert.equal(await holding(preview, bob.id), 1);
      assert.equal(await holding(preview, ada.id), 0);
      await publishing.publish(actor, [row.id]);
      assert.equal(await holding(served, ada.id), 0, 'published again: the links follow');
      assert.equal(await holding(served, bob.id), 1);
      await publishing.unpublish(actor, [row.id]);
      assert.equal(await holding(served, bob.id), 0);
    });

    test('publish is all or nothing: an unknown id is NOT_FOUND naming its position, and nothing is published', async () => {
      const { actor, article, records, publishing, store } = await open('all_or_nothing');
      const one = await records.create(actor, article.id, { title: 'One' });
      await assert.rejects(publishing.publish(actor, [one.id, 'nope']), refusal('NOT_FOUND', 'ids.1: record nope not found'));
      assert.equal(await store.published.get(actor.workspaceId, one.id), null);
      assert.equal((await records.get(actor.workspaceId, one.id))!.publishStatus, 'draft');
      const many = Array.from({ length: 1001 }, (_, index) => `id-${index}`);
      await assert.rejects(publishing.publish(actor, many), refusal('BAD_USER_INPUT', 'ids: at most 1000 ids, got 1001'));
    });

    test('discard changes writes the published copy back as a new revision; never published: CONFLICT', async () => {
      const { actor, article, records, publishing, store } = await open('discard');
      const draft = await records.create(actor, article.id, { title: 'Draft' });
      await assert.rejects(
        publishing.discardChanges(actor, draft.id),
        refusal('CONFLICT', 'id: the record has never been published (or was unpublished): there are no changes to discard'),
      );
      await publishing.publish(actor, [draft.id]);
      await records.patch(actor, draft.id, { title: 'Edited', views: 3 });
      const discarded = await publishing.discardChanges(actor, draft.id);
      assert.equal(discarded.publishStatus, 'published');
      assert.equal(discarded.revision, 3);
      assert.deepEqual(readData(discarded), { title: 'Draft' });
      const history = await new HistoryService(store, records).history(actor.workspaceId, draft.id, {});
      assert.deepEqual(
        history.items.map((item) => item.operation),
        ['discard', 'patch', 'create'],
      );
    });

    test('deleting a record removes its published copy and the count; a model without drafts is always published', async () => {
      const { actor, article, records, publishing, store, models } = await open('delete');
      const one = await records.create(actor, article.id, { title: 'One' });
      await publishing.publish(actor, [one.id]);
      await records.delete(actor, one.id, false);
      assert.equal(await store.published.get(actor.workspaceId, one.id), null);
      assert.equal((await models.get(actor.workspaceId, article.id))!.publishedCount, 0);
      const plain = await models.create(actor, {
        name: 'Plain',
        slug: 'plain',
        fields: [{ key: 't', label: 'T', type: 'text' }],
      });
      const live = await records.create(actor, plain.id, { t: 'x' });
      assert.equal(live.publishStatus, null);
      const [same] = (await publishing.publish(actor, [live.id])).records;
      assert.equal(same!.publishStatus, null, 'a no-op, answered as it is (published)');
    });

    test('turning drafts on publishes every record; off is refused while a record is not published as it is', async () => {
      const { actor, records, publishing, store, models } = await open('toggle');
      const plain = await models.create(actor, { name: 'Page', slug: 'page', fields: [{ key: 't', label: 'T', type: 'text' }] });
      const imported = await records.import(actor, plain.id, [{ t: 'a' }, { t: 'b' }]);
      assert.equal(imported.importedCount, 2);
      const on = await models.update(actor, { id: plain.id, drafts: true });
      assert.equal(on.drafts, true);
      assert.equal(on.publishedCount, 2);
      const page = await records.list(actor.workspaceId, plain.id, {});
      for (const record of page.items) assert.equal(record.publishStatus, 'published');
      const draft = await records.create(actor, plain.id, { t: 'c' });
      assert.equal(draft.publishStatus, 'draft');
      const more = await records.import(actor, plain.id, [{ t: 'd' }]);
      assert.equal(more.importedCount, 1);
      await assert.rejects(
        models.update(actor, { id: plain.id, drafts: false }),
        refusal('CONFLICT', 'drafts: 2 records are not published as they are; publish them or discard their changes first'),
      );
      await assert.rejects(
        models.update(actor, { id: plain.id, drafts: false }, { dryRun: true }),
        refusal('CONFLICT', 'drafts: 2 records are not published as they are; publish them or discard their changes first'),
        'a dry run refuses it as the update would',
      );
      const ids = (await records.list(actor.workspaceId, plain.id, {})).items.map((record) => record.id);
      await publishing.publish(actor, ids);
      const off = await models.update(actor, { id: plain.id, drafts: false });
      assert.equal(off.drafts, false);
      assert.equal(off.publishedCount, 0);
      assert.equal(await store.published.get(actor.workspaceId, draft.id), null);
      assert.equal((await records.get(actor.workspaceId, draft.id))!.publishStatus, null);
    });
  });
}
