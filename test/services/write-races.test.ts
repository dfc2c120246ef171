// Record writes against concurrent model updates and record deletes, on every store (SQLite always, PostgreSQL when
// DATABASE_URL is set). Each race is played out deterministically: one service call is held at the store, after its
// checks and before its write (the window where the two can cross), while the other call runs to the end; then the
// held one goes on. Whatever the order, the stored records must fit the model's definition, no link may point at a
// deleted record, and the refused call gets the error the service gives for that data now (docs/reliability.md).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ServiceError } from '../../src/domain/errors.js';
import type { ModelDefinition } from '../../src/domain/fields.js';
import type { ModelDefinitionInput } from '../../src/domain/model-definition.js';
import type { Actor } from '../../src/services/actor.js';
import { ModelService } from '../../src/services/model-service.js';
import { RecordService } from '../../src/services/record-service.js';
import { openStore } from '../../src/store/open-store.js';
import type { Store } from '../../src/store/store.js';
import { postgresTarget, sqliteTarget } from '../support/databases.js';
import { ownedWorkspace } from '../support/workspaces.js';

const postgres = await postgresTarget();
if ('failure' in postgres) {
  test('PostgreSQL write races (CI=true requires PostgreSQL)', () => {
    assert.fail(postgres.failure);
  });
}
const targets = [sqliteTarget(), ...('failure' in postgres ? [] : [postgres])];

/** Holds the first call of `object[method]` before it runs, until `release`; later calls (a retry) go straight on. */
function holdFirstCall<T extends object>(object: T, method: keyof T & string) {
  const original = object[method] as (...args: unknown[]) => Promise<unknown>;
  let arrive!: () => void;
  const arrived = new Promise<void>((resolve) => (arrive = resolve));
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let held = false;
  Object.assign(object, {
    [method]: async (...args: unknown[]) => {
      if (!held) {
        held = true;
        arrive();
        await released;
      }
      return original.apply(object, args);
    },
  });
  return {
    /** Settles when the call is held: the caller's checks are made, its write not yet. */
    arrived,
    release,
    restore: () => Object.assign(object, { [method]: original }),
  };
}

/** The error a call settles with (it must fail). */
async function refusal(call: Promise<unknown>): Promise<ServiceError> {
  const error = await call.then(
    () => assert.fail('expected the call to be refused'),
    (failure: unknown) => failure,
  );
  assert.ok(error instanceof ServiceError, `expected a ServiceError, got ${String(error)}`);
  return error;
}

function expectRefusal(error: ServiceError, code: string, message: string): void {
  assert.deepEqual({ code: error.code, message: error.message }, { code, message });
}

const NOTE_FIELDS: ModelDefinitionInput['fields'] = [
  { key: 'title', type: 'text' },
  { key: 'body', type: 'text' },
];
const TITLE_REQUIRED: ModelDefinitionInput['fields'] = [
  { key: 'title', type: 'text', required: true },
  { key: 'body', type: 'text' },
];

for (const target of targets) {
  describe(`Write races on ${target.name}`, { skip: target.skip }, () => {
    let store: Store;
    let actor: Actor;
    let models: ModelService;
    let records: RecordService;
    let modelCount = 0;

    before(async () => {
      store = await openStore(target.url('write_races'));
      actor = (await ownedWorkspace(store)).actor;
      models = new ModelService(store);
      records = new RecordService(store);
    });

    after(async () => {
      await store.close();
      await target.cleanup();
    });

    async function newModel(fields: ModelDefinitionInput['fields'], slug = `note${++modelCount}`): Promise<ModelDefinition> {
      return models.create(actor, { name: slug, slug, fields });
    }

    async function storedData(model: ModelDefinition): Promise<unknown[]> {
      const page = await records.list(actor.workspaceId, model.id, { limit: 100, offset: 0 });
      return page.items.map((item) => item.data);
    }

    describe('model.update against record writes', () => {
      test('a create checked before a field became required is checked again: refused as a create would be now', async () => {
        const model = await newModel(NOTE_FIELDS);
        const insert = holdFirstCall(store.records, 'insert');
        try {
          const creating = records.create(actor, model.id, { body: 'no title' });
          await insert.arrived;
          await models.update(actor, { id: model.id, fields: TITLE_REQUIRED });
          insert.release();
          expectRefusal(await refusal(creating), 'BAD_USER_INPUT', 'title: is required');
        } finally {
          insert.restore();
        }
        assert.deepEqual(await storedData(model), []);
        await records.create(actor, model.id, { title: 'now with a title' });
        assert.deepEqual(await storedData(model), [{ title: 'now with a title' }]);
      });

      test("a create checked before a field's type changed is checked again against the new type", async () => {
        const model = await newModel([{ key: 'size', type: 'text' }]);
        const insert = holdFirstCall(store.records, 'insert');
        try {
          const creating = records.create(actor, model.id, { size: 'large' });
          await insert.arrived;
          await models.update(actor, { id: model.id, fields: [{ key: 'size', type: 'number' }] });
          insert.release();
          expectRefusal(await refusal(creating), 'BAD_USER_INPUT', 'size: expected a number');
        } finally {
          insert.restore();
        }
        assert.deepEqual(await storedData(model), []);
      });

      test('a model update checks the stored records in its own transaction: a create made after its reads is seen', async () => {
        const model = await newModel(NOTE_FIELDS);
        const update = holdFirstCall(store.models, 'update');
        try {
          const updating = models.update(actor, { id: model.id, fields: TITLE_REQUIRED });
          await update.arrived;
          await records.create(actor, model.id, { body: 'no title' });
          update.release();
          expectRefusal(await refusal(updating), 'CONFLICT', 'title: cannot become required: 1 stored records have no value');
        } finally {
          update.restore();
        }
        const stored = (await models.get(actor.workspaceId, model.id))!;
        assert.equal(stored.fields[0]!.required, false, 'the refused change is not stored');
        assert.equal(stored.updatedAt, model.updatedAt);
      });

      test('a type change checks the stored values in its transaction', async () => {
        const model = await newModel([{ key: 'size', type: 'text' }]);
        const update = holdFirstCall(store.models, 'update');
        try {
          const updating = models.update(actor, { id: model.id, fields: [{ key: 'size', type: 'number' }] });
          await update.arrived;
          await records.create(actor, model.id, { size: 'large' });
          update.release();
          expectRefusal(
            await refusal(updating),
            'CONFLICT',
            'size: cannot change the type or its settings while 1 records have a value',
          );
        } finally {
          update.restore();
        }
        assert.equal((await models.get(actor.workspaceId, model.id))!.fields[0]!.type, 'text');
      });

      test('two model updates planned on one definition: the later is planned again on the earlier one', async () => {
        const model = await newModel(NOTE_FIELDS);
        const update = holdFirstCall(store.models, 'update');
        try {
          const describing = models.update(actor, { id: model.id, description: 'notes' });
          await update.arrived;
          await models.update(actor, { id: model.id, fields: TITLE_REQUIRED });
          update.release();
          await describing;
        } finally {
          update.restore();
        }
        const stored = (await models.get(actor.workspaceId, model.id))!;
        assert.equal(stored.description, 'notes');
        assert.equal(stored.fields[0]!.required, true, 'the earlier change is kept, not overwritten by a stale plan');
      });

      test('a patch checked before a field became required is checked again: it cannot remove the value', async () => {
        const model = await newModel(NOTE_FIELDS);
        const record = await records.create(actor, model.id, { title: 'kept', body: 'b' });
        const modify = holdFirstCall(store.records, 'modify');
        try {
          const patching = records.patch(actor, record.id, { title: null });
          await modify.arrived;
          await models.update(actor, { id: model.id, fields: TITLE_REQUIRED });
          modify.release();
          expectRefusal(await refusal(patching), 'BAD_USER_INPUT', 'title: is required');
        } finally {
          modify.restore();
        }
        assert.deepEqual(await storedData(model), [{ title: 'kept', body: 'b' }]);
      });

      test('a record update (whole data) checked before a field became required is checked again', async () => {
        const model = await newModel(NOTE_FIELDS);
        const record = await records.create(actor, model.id, { title: 'kept' });
        const modify = holdFirstCall(store.records, 'modify');
        try {
          const updating = records.update(actor, record.id, { body: 'no title' });
          await modify.arrived;
          await models.update(actor, { id: model.id, fields: TITLE_REQUIRED });
          modify.release();
          expectRefusal(await refusal(updating), 'BAD_USER_INPUT', 'title: is required');
        } finally {
          modify.restore();
        }
        assert.deepEqual(await storedData(model), [{ title: 'kept' }]);
      });

      test('an import checked before a field became required is checked again, row by row', async () => {
        const model = await newModel(NOTE_FIELDS);
        const insertMany = holdFirstCall(store.records, 'insertMany');
        try {
          const importing = records.import(actor, model.id, [{ title: 'one' }, { body: 'no title' }, { title: 'three' }]);
          await insertMany.arrived;
          await models.update(actor, { id: model.id, fields: TITLE_REQUIRED });
          insertMany.release();
          assert.deepEqual(await importing, { importedCount: 2, errors: [{ row: 2, message: 'title: is required' }] });
        } finally {
          insertMany.restore();
        }
        assert.deepEqual(await storedData(model), [{ title: 'one' }, { title: 'three' }]);
      });
    });

    describe('record.delete against writes that link to the record', () => {
      let authors: ModelDefinition;
      let books: ModelDefinition;

      before(async () => {
        authors = await newModel([{ key: 'name', type: 'text' }], 'author');
        books = await newModel(
          [
            { key: 'title', type: 'text' },
            { key: 'author', type: 'relation', relationTo: 'model:author' },
          ],
          'book',
        );
      });

      async function linksTo(id: string): Promise<unknown[]> {
        return store.records.referencesTo(id);
      }

      test('a create checked while its relation target existed is refused when the target is deleted before it writes', async () => {
        const author = await records.create(actor, authors.id, { name: 'Ann' });
        const insert = holdFirstCall(store.records, 'insert');
        try {
          const creating = records.create(actor, books.id, { title: 'B', author: author.id });
          await insert.arrived;
          assert.deepEqual(await records.delete(actor, author.id, false), { id: author.id, deleted: true });
          insert.release();
          expectRefusal(await refusal(creating), 'BAD_USER_INPUT', `author: no record with id "${author.id}" in model "author"`);
        } finally {
          insert.restore();
        }
        assert.deepEqual(await linksTo(author.id), []);
        assert.deepEqual(await storedData(books), []);
      });

      test('a patch that adds a link is refused when the target is deleted before it writes', async () => {
        const author = await records.create(actor, authors.id, { name: 'Cy' });
        const book = await records.create(actor, books.id, { title: 'D' });
        const modify = holdFirstCall(store.records, 'modify');
        try {
          const patching = records.patch(actor, book.id, { author: author.id });
          await modify.arrived;
          await records.delete(actor, author.id, false);
          modify.release();
          expectRefusal(await refusal(patching), 'BAD_USER_INPUT', `author: no record with id "${author.id}" in model "author"`);
        } finally {
          modify.restore();
        }
        assert.deepEqual(await linksTo(author.id), []);
        assert.deepEqual((await records.get(actor.workspaceId, book.id))!.data, { title: 'D' });
        await records.delete(actor, book.id, false);
      });

      test('an import row that links to a record deleted before the import writes is refused, the others imported', async () => {
        const kept = await records.create(actor, authors.id, { name: 'Di' });
        const gone = await records.create(actor, authors.id, { name: 'Ed' });
        const insertMany = holdFirstCall(store.records, 'insertMany');
        try {
          const importing = records.import(actor, books.id, [
            { title: 'E', author: kept.id },
            { title: 'F', author: gone.id },
          ]);
          await insertMany.arrived;
          await records.delete(actor, gone.id, false);
          insertMany.release();
          assert.deepEqual(await importing, {
            importedCount: 1,
            errors: [{ row: 2, message: `author: no record with id "${gone.id}" in model "author"` }],
          });
        } finally {
          insertMany.restore();
        }
        assert.deepEqual(await linksTo(gone.id), []);
        assert.equal((await linksTo(kept.id)).length, 1);
        assert.deepEqual(await storedData(books), [{ title: 'E', author: kept.id }]);
      });
    });

    describe('model.delete against creates and model updates', () => {
      test('a delete checked while the model was empty is refused when a create lands before it writes', async () => {
        const model = await newModel(NOTE_FIELDS);
        const remove = holdFirstCall(store.models, 'delete');
        try {
          const deleting = models.delete(actor, model.id);
          await remove.arrived;
          await records.create(actor, model.id, { title: 'landed first' });
          remove.release();
          expectRefusal(await refusal(deleting), 'CONFLICT', `id: model "${model.slug}" still has 1 records; delete them first`);
        } finally {
          remove.restore();
        }
        assert.deepEqual(await storedData(model), [{ title: 'landed first' }]);
      });

      test('a create checked before the model was deleted is refused as model not found, and stores nothing', async () => {
        const model = await newModel(NOTE_FIELDS);
        const insert = holdFirstCall(store.records, 'insert');
        try {
          const creating = records.create(actor, model.id, { title: 'too late' });
          await insert.arrived;
          assert.deepEqual(await models.delete(actor, model.id), { id: model.id, deleted: true });
          insert.release();
          expectRefusal(await refusal(creating), 'NOT_FOUND', 'modelId: model not found');
        } finally {
          insert.restore();
        }
        assert.equal(await models.get(actor.workspaceId, model.id), null);
      });

      test('a delete checked before another model made it a relation target is refused', async () => {
        const target = await newModel(NOTE_FIELDS);
        const other = await newModel(NOTE_FIELDS);
        const remove = holdFirstCall(store.models, 'delete');
        try {
          const deleting = models.delete(actor, target.id);
          await remove.arrived;
          await models.update(actor, {
            id: other.id,
            fields: [
              { key: 'title', type: 'text' },
              { key: 'body', type: 'text' },
              { key: 'about', type: 'relation', relationTo: `model:${target.slug}` },
            ],
          });
          remove.release();
          expectRefusal(
            await refusal(deleting),
            'CONFLICT',
            `id: model "${target.slug}" is the relation target of model "${other.slug}"`,
          );
        } finally {
          remove.restore();
        }
        assert.ok(await models.get(actor.workspaceId, target.id));
      });
    });
  });
}
