// The asset store (docs/media.md), on both stores: rows by workspace, the list's search, filters, sorts and count,
// updates, usage through media fields' links, deletes refused while used or forced (the asset removed from the
// records that hold it, with their events), whether the content is still used, the asset events, and record writes
// linking an asset racing its delete from another store on the same database.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, describe, test } from 'node:test';
import type { FieldDefinition } from '../../src/domain/fields.js';
import { assetPayload, deletedAssetPayload } from '../../src/domain/webhook-events.js';
import { newId } from '../../src/ids.js';
import { ChecksOutdated } from '../../src/store/conflicts.js';
import { openStore } from '../../src/store/open-store.js';
import type { StoredRecord } from '../../src/domain/stored-record.js';
import type { AssetListQuery, NewAsset, NewRecord, RecordLink, Store, StoredAsset, WriteContext } from '../../src/store/store.js';
import { modelShape } from '../support/definitions.js';
import { storeTargets } from '../support/store-targets.js';
import { createStoreWebhook, ownedWorkspace } from '../support/workspaces.js';

const targets = await storeTargets('assets');

const sha = (text: string) => createHash('sha256').update(text).digest('hex');

function newAsset(workspaceId: string, extra: Partial<NewAsset> = {}): NewAsset {
  return {
    id: newId(),
    workspaceId,
    filename: 'photo.jpg',
    mimeType: 'image/jpeg',
    type: 'image',
    size: 1000,
    width: 640,
    height: 480,
    blurhash: 'LEHV6nWB2yk8pyo0adR*.7kCMdnj',
    sha256: sha(newId()),
    alt: null,
    tags: [],
    access: 'public',
    signingKey: 'k'.repeat(43),
    createdAt: Date.now(),
    userId: null,
    ...extra,
  };
}

const MEDIA_FIELDS: FieldDefinition[] = [
  { key: 'title', label: 'Title', type: 'text', required: false },
  { key: 'photo', label: 'Photo', type: 'media', required: false },
  { key: 'photos', label: 'Photos', type: 'media', required: false, multiple: true },
];

function newRecord(data: Record<string, unknown>): NewRecord {
  const links: RecordLink[] = [];
  if (typeof data.photo === 'string') links.push({ fieldKey: 'photo', targetId: data.photo });
  if (Array.isArray(data.photos)) for (const id of data.photos as string[]) links.push({ fieldKey: 'photos', targetId: id });
  return { id: newId(), data, dataText: JSON.stringify(data), sku: null, links };
}

async function world(store: Store) {
  const owner = await ownedWorkspace(store);
  const workspaceId = owner.workspace.id;
  const model = await store.models.create(workspaceId, newId(), modelShape('gallery', MEDIA_FIELDS));
  const context: WriteContext = { model, userId: null };
  return { owner, workspaceId, model, context };
}

async function turns(count: number): Promise<void> {
  for (let turn = 0; turn < count; turn++) await new Promise((resolve) => setImmediate(resolve));
}

const query = (extra: Partial<AssetListQuery> = {}): AssetListQuery => ({
  limit: 50,
  offset: 0,
  search: null,
  type: null,
  tags: null,
  sort: 'createdAt_desc',
  ...extra,
});

for (const target of targets) {
  describe(`assets on ${target.name}`, { skip: target.skip }, () => {
    const stores: Store[] = [];
    const open = async (name: string) => {
      const store = await openStore(target.url(name));
      stores.push(store);
      return store;
    };
    after(async () => {
      for (const store of stores) await store.close();
      await target.cleanup();
    });

    test('create, get and getMany: the workspace’s assets only, with their author’s email', async () => {
      const store = await open('rows');
      const { owner, workspaceId } = await world(store);
      const other = await ownedWorkspace(store);
      const made = newAsset(workspaceId, {
        alt: { en: 'A cat', de: 'Eine Katze' },
        tags: ['cats', 'pets'],
        userId: owner.actor.userId,
      });
      const created = await store.assets.create(made);
      const { userId: _userId, ...stored } = made;
      assert.deepEqual(created, {
        ...stored,
        focalPoint: null,
        usage: 0,
        updatedAt: made.createdAt,
        createdBy: 'owner@example.com',
      });
      assert.deepEqual(await store.assets.get(workspaceId, made.id), created);
      assert.equal(await store.assets.get(other.workspace.id, made.id), null, 'not of another workspace');
      const theirs = await store.assets.create(newAsset(other.workspace.id, { width: null, height: null, blurhash: null }));
      assert.equal(theirs.createdBy, null, 'no user');
      assert.equal(theirs.width, null);
      const many = await store.assets.getMany(workspaceId, [made.id, theirs.id, 'nope', made.id]);
      assert.deepEqual([...many.keys()], [made.id]);
      assert.deepEqual(many.get(made.id), created);
      assert.equal((await store.assets.getMany(workspaceId, [])).size, 0);
    });

    test('list: search in filename, tags and alt text, any case; type; every tag; sorts; total and offset', async () => {
      const store = await open('list');
      const { workspaceId } = await world(store);
      const other = await ownedWorkspace(store);
      const at = Date.now() - 10_000;
      const specs: Partial<NewAsset>[] = [
        { filename: 'Cat.png', size: 300, tags: ['animals'] },
        { filename: 'dog.jpg', size: 100, tags: ['animals', 'CATS and dogs'] },
        { filename: 'ärger.pdf', type: 'document', mimeType: 'application/pdf', size: 500, tags: ['docs'] },
        {
          filename: 'beach.webp',
          size: 200,
          alt: { en: 'A CATamaran', de: 'Ein Katamaran am Strand' },
          tags: ['animals', 'summer'],
        },
        { filename: 'song.mp3', type: 'audio', mimeType: 'audio/mpeg', size: 400 },
      ];
      const ids: string[] = [];
      for (const [index, spec] of specs.entries()) {
        ids.push((await store.assets.create(newAsset(workspaceId, { ...spec, createdAt: at + index }))).id);
      }
      await store.assets.create(newAsset(other.workspace.id, { filename: 'cat.png' }));
      const [cat, dog, anger, beach, song] = ids;
      const list = async (extra: Partial<AssetListQuery>) => {
        const found = await store.assets.list(workspaceId, query(extra));
        return { total: found.total, ids: found.items.map((asset) => asset.id) };
      };
      assert.deepEqual(await list({}), { total: 5, ids: [song, beach, anger, dog, cat] }, 'newest first');
      assert.deepEqual(await list({ search: 'cAt' }), { total: 3, ids: [beach, dog, cat] }, 'filename, tag, alt');
      assert.deepEqual(await list({ search: 'ÄRGER' }), { total: 1, ids: [anger] }, 'beyond A-Z');
      assert.deepEqual(await list({ search: 'strand' }), { total: 1, ids: [beach] });
      assert.deepEqual(await list({ search: 'nothing' }), { total: 0, ids: [] });
      assert.deepEqual(await list({ type: 'image' }), { total: 3, ids: [beach, dog, cat] });
      assert.deepEqual(await list({ type: 'image', search: 'dog' }), { total: 1, ids: [dog] });
      assert.deepEqual(await list({ tags: ['animals'] }), { total: 3, ids: [beach, dog, cat] });
      assert.deepEqual(await list({ tags: ['animals', 'summer'] }), { total: 1, ids: [beach] }, 'every tag');
      assert.deepEqual(await list({ tags: ['Animals'] }), { total: 0, ids: [] }, 'tags as they are');
      assert.deepEqual(await list({ tags: [] }), { total: 5, ids: [song, beach, anger, dog, cat] });
      assert.deepEqual((await list({ sort: 'createdAt_asc' })).ids, [cat, dog, anger, beach, song]);
      assert.deepEqual((await list({ sort: 'filename_asc' })).ids, [beach, cat, dog, song, anger], 'case folded');
      assert.deepEqual((await list({ sort: 'filename_desc' })).ids, [anger, song, dog, cat, beach]);
      assert.deepEqual((await list({ sort: 'size_asc' })).ids, [dog, beach, cat, song, anger]);
      assert.deepEqual((await list({ sort: 'size_desc' })).ids, [anger, song, cat, beach, dog]);
      assert.deepEqual(await list({ sort: 'size_asc', limit: 2, offset: 1 }), { total: 5, ids: [beach, cat] });
      assert.deepEqual(await list({ tags: ['animals'], limit: 1, offset: 2 }), { total: 3, ids: [cat] });
    });

    test('update: only the members given, focalPoint cleared by null; updatedAt and the content version move (and at a delete)', async () => {
      const store = await open('update');
      const { owner, workspaceId } = await world(store);
      const made = await store.assets.create(newAsset(workspaceId, { alt: { en: 'Old' }, tags: ['a'] }));
      const versionOf = async () => (await store.tenancy.findWorkspaceWithContentVersion(owner.orgSlug, 'main'))!.contentVersion;
      const before = await versionOf();
      const now = made.createdAt + 5_000;
      const focused = await store.assets.update(
        workspaceId,
        made.id,
        { focalPoint: { x: 0.25, y: 0.75 }, tags: ['b', 'c'] },
        now,
      );
      assert.deepEqual(focused, { ...made, focalPoint: { x: 0.25, y: 0.75 }, tags: ['b', 'c'], updatedAt: now });
      assert.notEqual(await versionOf(), before, 'the content version moved');
      const renamed = await store.assets.update(
        workspaceId,
        made.id,
        { filename: 'new.jpg', alt: null, access: 'private' },
        now + 1,
      );
      assert.deepEqual(renamed, { ...focused, filename: 'new.jpg', alt: null, access: 'private', updatedAt: now + 1 });
      const cleared = await store.assets.update(workspaceId, made.id, { focalPoint: null, alt: { de: 'Neu' } }, now + 2);
      assert.deepEqual(cleared, { ...renamed, focalPoint: null, alt: { de: 'Neu' }, updatedAt: now + 2 });
      assert.deepEqual(await store.assets.get(workspaceId, made.id), cleared);
      const touched = await store.assets.update(workspaceId, made.id, {}, now + 3);
      assert.deepEqual(touched, { ...cleared, updatedAt: now + 3 });
      const other = await ownedWorkspace(store);
      assert.equal(await store.assets.update(other.workspace.id, made.id, { filename: 'x' }, now), null, 'another workspace');
      assert.equal(await store.assets.update(workspaceId, 'nope', { filename: 'x' }, now), null);
      const beforeDelete = await versionOf();
      await store.assets.delete(workspaceId, made.id, false, null);
      assert.notEqual(await versionOf(), beforeDelete, 'a delete moves the content version too');
    });

    test('usage: the records whose media fields hold the asset; their deletes are not held up by it', async () => {
      const store = await open('usage');
      const { workspaceId, context } = await world(store);
      const asset = await store.assets.create(newAsset(workspaceId));
      const spare = await store.assets.create(newAsset(workspaceId));
      const one = await store.records.insert(context, newRecord({ title: 'one', photo: asset.id }));
      const both = await store.records.insert(context, newRecord({ photo: asset.id, photos: [spare.id, asset.id] }));
      assert.equal((await store.assets.get(workspaceId, asset.id))!.usage, 2, 'two records (one in two fields)');
      assert.equal((await store.assets.getMany(workspaceId, [spare.id])).get(spare.id)!.usage, 1);
      assert.equal((await store.assets.list(workspaceId, query())).items.find((item) => item.id === asset.id)!.usage, 2);
      const expected = [
        { recordId: one.id, modelSlug: 'gallery', fieldKey: 'photo' },
        { recordId: both.id, modelSlug: 'gallery', fieldKey: 'photo' },
        { recordId: both.id, modelSlug: 'gallery', fieldKey: 'photos' },
      ];
      assert.deepEqual(await store.assets.usesOf(workspaceId, asset.id, 10), expected);
      assert.deepEqual(await store.assets.usesOf(workspaceId, asset.id, 1), expected.slice(0, 1));
      assert.deepEqual(await store.publishing.unpublishedTargets([one.id, both.id]), [], 'an asset is no unpublished target');
      // A patch that drops the asset drops its link.
      await store.records.modify(workspaceId, one.id, null, () => newRecord({ title: 'one' }));
      assert.equal((await store.assets.get(workspaceId, asset.id))!.usage, 1);
      assert.deepEqual(await store.records.referencesTo(both.id), []);
      assert.equal(await store.records.delete(workspaceId, both.id, false), 'deleted', 'not held up by its assets');
      assert.equal((await store.assets.get(workspaceId, asset.id))!.usage, 0);
      assert.deepEqual(await store.assets.usesOf(workspaceId, asset.id, 10), []);
    });

    test('a record write linking an asset that is gone writes nothing (ChecksOutdated)', async () => {
      const store = await open('gone');
      const { workspaceId, context } = await world(store);
      const asset = await store.assets.create(newAsset(workspaceId));
      assert.ok('deleted' in (await store.assets.delete(workspaceId, asset.id, false, null))!);
      await assert.rejects(store.records.insert(context, newRecord({ photo: asset.id })), ChecksOutdated);
      await assert.rejects(store.records.insertMany(context, [newRecord({ photos: [asset.id] })]), ChecksOutdated);
      const kept = await store.records.insert(context, newRecord({ title: 'kept' }));
      await assert.rejects(
        store.records.modify(workspaceId, kept.id, null, () => newRecord({ photo: asset.id })),
        ChecksOutdated,
      );
      assert.equal((await store.models.get(workspaceId, context.model.id))!.recordCount, 1);
    });

    test('delete: refused while used; forced, the asset leaves the records that hold it, with their events', async () => {
      const store = await open('delete');
      const { workspaceId, context } = await world(store);
      const webhookId = newId();
      await createStoreWebhook(store, webhookId, workspaceId, 'https://example.com/hook');
      const asset = await store.assets.create(newAsset(workspaceId));
      const spare = await store.assets.create(newAsset(workspaceId));
      const single = await store.records.insert(context, newRecord({ title: 'single', photo: asset.id }));
      const multiple = await store.records.insert(context, newRecord({ title: 'many', photos: [spare.id, asset.id] }));
      const refused = await store.assets.delete(workspaceId, asset.id, false, null);
      assert.deepEqual(refused, {
        usedBy: [
          { recordId: single.id, modelSlug: 'gallery', fieldKey: 'photo' },
          { recordId: multiple.id, modelSlug: 'gallery', fieldKey: 'photos' },
        ].sort((a, b) => (a.recordId < b.recordId ? -1 : 1)),
      });
      assert.ok(await store.assets.get(workspaceId, asset.id), 'nothing changed');
      assert.equal((await store.records.get(workspaceId, single.id))!.revision, 1);

      const forced = await store.assets.delete(workspaceId, asset.id, true, null);
      assert.ok(forced && 'deleted' in forced);
      assert.equal(forced.deleted.id, asset.id);
      assert.equal(await store.assets.get(workspaceId, asset.id), null);
      const singleAfter = (await store.records.get(workspaceId, single.id))!;
      assert.deepEqual(singleAfter.data, { title: 'single' }, 'a single media field: gone');
      assert.equal(singleAfter.revision, 2);
      const multipleAfter = (await store.records.get(workspaceId, multiple.id))!;
      assert.deepEqual(multipleAfter.data, { title: 'many', photos: [spare.id] }, 'multiple: the array without it');
      assert.deepEqual(await store.assets.usesOf(workspaceId, asset.id, 10), []);
      assert.equal((await store.assets.get(workspaceId, spare.id))!.usage, 1, 'the other asset kept its link');
      assert.equal(await store.assets.delete(workspaceId, asset.id, true, null), null, 'gone');

      const { items } = await store.webhooks.deliveries(workspaceId, webhookId, { limit: 50, offset: 0, status: null });
      const types = items.map((delivery) => delivery.eventType).reverse();
      assert.deepEqual(types.slice(0, 4), ['asset.created', 'asset.created', 'record.created', 'record.created']);
      assert.deepEqual(types.slice(4), ['asset.deleted', 'record.updated', 'record.updated']);
    });

    test('contentStillUsed: another asset of the workspace has the same content', async () => {
      const store = await open('content');
      const { workspaceId } = await world(store);
      const other = await ownedWorkspace(store);
      const content = sha('the same bytes');
      const first = await store.assets.create(newAsset(workspaceId, { sha256: content }));
      const second = await store.assets.create(newAsset(workspaceId, { sha256: content }));
      const elsewhere = await store.assets.create(newAsset(other.workspace.id, { sha256: content }));
      assert.deepEqual(await store.assets.delete(workspaceId, first.id, false, null), { deleted: first, contentStillUsed: true });
      assert.deepEqual(await store.assets.delete(workspaceId, second.id, false, null), {
        deleted: second,
        contentStillUsed: false,
      });
      const last = await store.assets.delete(other.workspace.id, elsewhere.id, false, null);
      assert.deepEqual(last, { deleted: elsewhere, contentStillUsed: false });
    });

    test('asset events go to every webhook subscribed to their type, whatever its modelIds', async () => {
      const store = await open('events');
      const { workspaceId, model } = await world(store);
      const base = { workspaceId, url: 'https://example.com/hook', description: null, active: true, secret: 'whsec_AAAA' };
      const narrowed = await store.webhooks.create({
        ...base,
        id: newId(),
        events: ['asset.created', 'asset.updated', 'asset.deleted'],
        modelIds: [model.id],
        createdAt: Date.now(),
      });
      const records = await store.webhooks.create({
        ...base,
        id: newId(),
        events: ['record.created'],
        modelIds: null,
        createdAt: Date.now(),
      });
      const asset = await store.assets.create(newAsset(workspaceId));
      await store.assets.update(workspaceId, asset.id, { filename: 'renamed.jpg' }, Date.now());
      await store.assets.delete(workspaceId, asset.id, false, null);
      const typesOf = async (id: string) =>
        (await store.webhooks.deliveries(workspaceId, id, { limit: 10, offset: 0, status: null })).items
          .map((delivery) => delivery.eventType)
          .reverse();
      assert.deepEqual(await typesOf(narrowed.id), ['asset.created', 'asset.updated', 'asset.deleted']);
      assert.deepEqual(await typesOf(records.id), []);
    });

    for (const force of [false, true]) {
      test(`race: record writes linking an asset against its delete (force ${force}) from another store: no record holds a deleted asset`, async () => {
        const store = await open(`race_${force}`);
        const other = await openStore(target.url(`race_${force}`));
        stores.push(other);
        const { workspaceId, context } = await world(store);
        const ROUNDS = 60;
        const assets: StoredAsset[] = [];
        for (let index = 0; index < ROUNDS; index++) assets.push(await store.assets.create(newAsset(workspaceId)));
        const patched: StoredRecord[] = [];
        for (let index = 0; index < ROUNDS; index++) patched.push(await store.records.insert(context, newRecord({ title: 'p' })));
        const outcomes = { written: 0, refused: 0, deleted: 0, used: 0 };
        await Promise.all(
          assets.map(async (asset, index) => {
            const write = async () => {
              const data = index % 2 === 0 ? { photo: asset.id } : { photos: [asset.id] };
              if (index % 3 === 0) await store.records.insert(context, newRecord(data));
              else if (index % 3 === 1) await store.records.insertMany(context, [newRecord(data)]);
              else await store.records.modify(workspaceId, patched[index]!.id, null, () => newRecord(data));
            };
            // Each side after 0 to 2 turns of the event loop: on SQLite each store's writes of one turn share a
            // commit, so both orders come about.
            const [written, deleted] = await Promise.allSettled([
              turns(index % 3).then(write),
              turns(Math.floor(index / 3) % 3).then(() => other.assets.delete(workspaceId, asset.id, force, null)),
            ]);
            if (written.status === 'fulfilled') outcomes.written++;
            else if (written.reason instanceof ChecksOutdated) outcomes.refused++;
            else throw written.reason;
            if (deleted.status === 'rejected') throw deleted.reason;
            if (deleted.value && 'deleted' in deleted.value) outcomes.deleted++;
            else outcomes.used++;
          }),
        );
        // SQLite's order is the turns': both orders certainly came about (on PostgreSQL, most likely).
        if (target.name === 'SQLite') assert.ok(outcomes.written > 0 && outcomes.refused > 0, JSON.stringify(outcomes));
        assert.equal(outcomes.written + outcomes.refused, ROUNDS);
        const present = new Set(
          (
            await store.assets.getMany(
              workspaceId,
              assets.map((asset) => asset.id),
            )
          ).keys(),
        );
        assert.equal(present.size, ROUNDS - outcomes.deleted);
        const held: string[] = [];
        const all = await store.records.list(context.model.id, { limit: 1000, offset: 0, sort: 'createdAt_asc' });
        for (const record of all) {
          const data = record.data as { photo?: string; photos?: string[] };
          held.push(...(data.photo === undefined ? [] : [data.photo]), ...(data.photos ?? []));
        }
        for (const id of held) assert.ok(present.has(id), `a record holds ${id}, which is gone`);
        for (const asset of assets) {
          const uses = await store.assets.usesOf(workspaceId, asset.id, 10);
          if (!present.has(asset.id)) assert.deepEqual(uses, [], 'no link to a deleted asset');
          else if (!force) assert.equal(uses.length > 0, held.includes(asset.id), 'links and data agree');
        }
        if (!force) assert.equal(outcomes.used, held.length, 'each delete refused is for a record that holds the asset');
      });
    }
  });
}

test('assetPayload: the asset as the admin API shows it, with its path and ISO times; deleted: its id', () => {
  const asset = {
    ...newAsset('w 1', { id: 'a/1', filename: 'my photo.jpg', alt: { en: 'A' }, tags: ['t'], createdAt: 0 }),
    focalPoint: { x: 0.5, y: 0.5 },
    updatedAt: 1_000,
  };
  assert.deepEqual(JSON.parse(assetPayload(asset)), {
    asset: {
      id: 'a/1',
      filename: 'my photo.jpg',
      mimeType: 'image/jpeg',
      type: 'image',
      size: 1000,
      width: 640,
      height: 480,
      blurhash: asset.blurhash,
      sha256: asset.sha256,
      alt: { en: 'A' },
      tags: ['t'],
      focalPoint: { x: 0.5, y: 0.5 },
      access: 'public',
      url: '/assets/w%201/a%2F1/my%20photo.jpg',
      createdAt: '1970-01-01T00:00:00.000Z',
      updatedAt: '1970-01-01T00:00:01.000Z',
    },
  });
  assert.equal(deletedAssetPayload('a1'), '{"asset":{"id":"a1"}}');
});
