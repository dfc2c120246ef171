// The records of one model, the model a bound parameter, after indexed fields were defined on a store already open
// (a fresh database whose first indexed field comes later: the case a new user meets). On SQLite a statement compiled
// before any field index existed once kept the first model's partial index for every model bound after it: reads by
// id gave null, counts 0, relation targets "not found". SQLite always; PostgreSQL when DATABASE_URL is set.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import Database from 'better-sqlite3';
import type { ModelDefinition } from '../../src/domain/fields.js';
import { readData } from '../../src/domain/record-shape.js';
import { newId } from '../../src/ids.js';
import { openStore } from '../../src/store/open-store.js';
import { IDS_OF_BOUND_MODEL } from '../../src/store/sqlite/model-scope.js';
import type { NewRecord, Store } from '../../src/store/store.js';
import { postgresTarget, sqliteTarget } from '../support/databases.js';
import { field, modelShape } from '../support/definitions.js';
import { ownedWorkspace } from '../support/workspaces.js';

const postgres = await postgresTarget();
if ('failure' in postgres) {
  test('model scope on PostgreSQL (CI=true requires PostgreSQL)', () => {
    assert.fail(postgres.failure);
  });
}
const targets = [sqliteTarget(), ...('failure' in postgres ? [] : [postgres])];

function record(data: Record<string, unknown>): NewRecord {
  return { id: newId(), data, dataText: JSON.stringify(data), sku: null, links: [] };
}

const FIELDS = [field('title', 'text', { indexed: true }), field('note', 'text')];

test('SQLite: no statement of the store binds the model as `model_id = ?` (model-scope.ts says why)', () => {
  const directory = fileURLToPath(new URL('../../src/store/sqlite/', import.meta.url));
  const offending = readdirSync(directory)
    .filter((name) => name.endsWith('.ts') && name !== 'model-scope.ts')
    .flatMap((name) =>
      readFileSync(join(directory, name), 'utf8')
        .split('\n')
        .map((line, index) => ({ where: `${name}:${index + 1}`, line }))
        .filter(({ line }) => /\bmodel_id\s*=\s*\?/.test(line) && !line.trimStart().startsWith('//')),
    );
  assert.deepEqual(offending, []);
});

for (const target of targets) {
  describe(`the records of one model on ${target.name}`, { skip: target.skip }, () => {
    let store: Store;
    let url: string;
    let workspaceId: string;
    const models: ModelDefinition[] = [];
    const ids = new Map<string, string[]>();

    async function modelWithRecords(slug: string, indexed: boolean): Promise<ModelDefinition> {
      const fields = indexed ? FIELDS : FIELDS.map((definition) => ({ ...definition, indexed: false }));
      const model = await store.models.create(workspaceId, newId(), modelShape(slug, fields));
      const rows = [1, 2, 3].map((index) => record({ title: `${slug} ${index}`, note: 'kept' }));
      await store.records.insertMany({ model, userId: null }, rows);
      ids.set(
        model.id,
        rows.map((row) => row.id),
      );
      return model;
    }

    /** Every read and count of a model's records the stores run with the model bound. */
    async function readsOf(model: ModelDefinition) {
      const own = ids.get(model.id)!;
      const byId = await store.records.getMany(workspaceId, own, { modelId: model.id });
      const kept = await store.records.getMany(workspaceId, own, { modelId: model.id, shared: true });
      const existing = await store.records.existingIds(model.id, own);
      const created = await store.records.list(model.id, { limit: 10, offset: 0, sort: 'createdAt_asc' });
      const updated = await store.records.list(model.id, { limit: 10, offset: 0, sort: 'updatedAt_desc' });
      return {
        byId: Array.isArray(byId) ? byId.length : byId,
        kept: Array.isArray(kept) ? kept.length : kept,
        existing: existing.size,
        created: created.length,
        updated: updated.length,
        withNote: await store.models.countRecordsWithValue(model.id, 'note'),
      };
    }
    const ALL_THREE = { byId: 3, kept: 3, existing: 3, created: 3, updated: 3, withNote: 3 };

    before(async () => {
      url = target.url(`model_scope_${randomBytes(3).toString('hex')}`);
      store = await openStore(url);
      workspaceId = (await ownedWorkspace(store, 'acme')).workspace.id;
      // Every statement compiled once while no field index exists.
      const plain = await modelWithRecords('plain', false);
      assert.deepEqual(await readsOf(plain), ALL_THREE);
      models.push(plain, await modelWithRecords('first', true), await modelWithRecords('second', true));
    });

    after(async () => {
      await store?.close();
      await target.cleanup();
    });

    test(`${target.name}: each model's records read whole, whichever model was read before it`, async () => {
      // An indexed model first: the first statement compiled after the indexes came is compiled for it.
      const [plain, first, second] = models as [ModelDefinition, ModelDefinition, ModelDefinition];
      for (const model of [first, second, plain, second, first]) {
        assert.deepEqual(await readsOf(model), ALL_THREE, model.slug);
      }
    });

    test(`${target.name}: a model update removes a field from that model's records, after another model's update`, async () => {
      for (const model of models.slice(1)) {
        const shape = modelShape(model.slug, FIELDS.slice(0, 1));
        await store.models.update(model, { shape, removedFieldKeys: ['note'], skuFieldChanged: null });
        assert.equal(await store.models.countRecordsWithValue(model.id, 'note'), 0, model.slug);
        const [first] = await store.records.list(model.id, { limit: 1, offset: 0, sort: 'createdAt_asc' });
        assert.equal(first && 'note' in readData(first), false, model.slug);
      }
      assert.equal(await store.models.countRecordsWithValue(models[0]!.id, 'note'), 3, 'the plain model keeps its notes');
    });

    if (target.name === 'SQLite') {
      test('SQLite: records by id of a model are found by primary key, not by reading the whole model', () => {
        const db = new Database(url.slice('sqlite:'.length), { readonly: true });
        try {
          const plan = db
            .prepare(`EXPLAIN QUERY PLAN SELECT id FROM records WHERE workspace_id = ? AND ${IDS_OF_BOUND_MODEL}`)
            .all(workspaceId, JSON.stringify(ids.get(models[1]!.id)), models[1]!.id) as { detail: string }[];
          const search = plan.map((row) => row.detail).find((detail) => detail.startsWith('SEARCH records'));
          assert.match(search ?? '', /sqlite_autoindex_records_1 \(id=\?\)/, plan.map((row) => row.detail).join('\n'));
        } finally {
          db.close();
        }
      });
    }
  });
}
