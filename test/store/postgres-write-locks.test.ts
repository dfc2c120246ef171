// PostgreSQL: a record write and a model update or record delete under way in another transaction at the same time.
// Each first write below is stopped half-way by a second connection that holds the outbox lock exclusively: a write
// with a webhook to tell waits for that lock (to store its event) after its other statements, still holding its
// locks. The other write then starts, and must wait for the first one's locks and then see what it wrote, or find
// that the first one comes after it; then the outbox lock goes and both finish. Without the locks, both succeed and
// the records break the model's definition or link to a deleted record (docs/reliability.md).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { ServiceError } from '../../src/domain/errors.js';
import type { ModelDefinition } from '../../src/domain/fields.js';
import type { ModelDefinitionInput } from '../../src/domain/model-definition.js';
import { newId } from '../../src/ids.js';
import type { Actor } from '../../src/services/actor.js';
import { ModelService } from '../../src/services/model-service.js';
import { RecordService } from '../../src/services/record-service.js';
import { openStore } from '../../src/store/open-store.js';
import { parsePostgresUrl } from '../../src/store/postgres/index.js';
import { OUTBOX_LOCK_KEY } from '../../src/store/postgres/webhook-outbox.js';
import type { Store } from '../../src/store/store.js';
import { postgresTarget } from '../support/databases.js';
import { ownedWorkspace } from '../support/workspaces.js';

const postgres = await postgresTarget();
if ('failure' in postgres) {
  test('PostgreSQL write locks (CI=true requires PostgreSQL)', () => {
    assert.fail(postgres.failure);
  });
}
const target = 'failure' in postgres ? null : postgres;

/** How long to wait for a write to queue behind another's lock (a write that does not wait settles first). */
const QUEUE_WAIT_MS = 3_000;

interface Tracked<T> {
  promise: Promise<T>;
  settled: boolean;
}

function tracked<T>(promise: Promise<T>): Tracked<T> {
  const call: Tracked<T> = { promise, settled: false };
  promise.then(
    () => (call.settled = true),
    () => (call.settled = true),
  );
  return call;
}

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
const MISSING_TITLES = (n: number) => `title: cannot become required: ${n} stored records have no value`;

describe(
  'PostgreSQL: record writes against model updates and deletes under way',
  { skip: target === null || target.skip },
  () => {
    let store: Store;
    let models: ModelService;
    let records: RecordService;
    /** A workspace with a webhook for every event: each of its writes waits for the outbox lock. */
    let actor: Actor;
    /** A workspace whose webhook takes model events only: its record writes never wait for the outbox lock. */
    let quietActor: Actor;
    /** Holds the outbox lock; its own session, outside any transaction. */
    let holder: pg.Client;
    let holderPid: number;
    let modelCount = 0;

    before(async () => {
      const url = target!.url('write_locks');
      store = await openStore(url);
      models = new ModelService(store);
      records = new RecordService(store);
      actor = (await ownedWorkspace(store)).actor;
      quietActor = (await ownedWorkspace(store)).actor;
      await addWebhook(actor.workspaceId, ['*']);
      await addWebhook(quietActor.workspaceId, ['model.updated']);
      holder = new pg.Client({ connectionString: parsePostgresUrl(url).connectionString });
      await holder.connect();
      holderPid = (await holder.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
    });

    after(async () => {
      await holder.end();
      await store.close();
      await target!.cleanup();
    });

    async function addWebhook(workspaceId: string, events: string[]): Promise<void> {
      await store.webhooks.create({
        id: newId(),
        workspaceId,
        url: 'https://receiver.example/hook',
        events,
        modelIds: null,
        description: null,
        active: true,
        secret: 'whsec_test',
        createdAt: Date.now(),
      });
    }

    async function newModel(owner: Actor, fields: ModelDefinitionInput['fields'], slug = `note${++modelCount}`) {
      return models.create(owner, { name: slug, slug, fields });
    }

    /** Stops every write that stores an event at its outbox lock, until thaw. */
    async function freeze(): Promise<void> {
      await holder.query(`SELECT pg_advisory_lock(${OUTBOX_LOCK_KEY})`);
    }

    async function thaw(): Promise<void> {
      await holder.query('SELECT pg_advisory_unlock_all()');
    }

    /** The session of the call waiting for `pid`'s locks, once it waits; null if it settles or does not wait in time. */
    async function waitingFor(pid: number, call: Tracked<unknown>): Promise<number | null> {
      const deadline = Date.now() + QUEUE_WAIT_MS;
      while (!call.settled && Date.now() < deadline) {
        const { rows } = await holder.query<{ pid: number }>(
          'SELECT pid FROM pg_stat_activity WHERE $1 = ANY(pg_blocking_pids(pid))',
          [pid],
        );
        if (rows.length > 0) return rows[0]!.pid;
        await sleep(10);
      }
      return null;
    }

    /** Starts `write` and waits until it holds its locks and waits at the outbox (its session's pid). */
    async function halfDone<T>(write: () => Promise<T>): Promise<{ call: Tracked<T>; pid: number }> {
      await freeze();
      const call = tracked(write());
      const pid = await waitingFor(holderPid, call);
      assert.ok(pid !== null, 'the first write waits for the outbox lock');
      return { call, pid };
    }

    async function storedData(owner: Actor, model: ModelDefinition): Promise<unknown[]> {
      const page = await records.list(owner.workspaceId, model.id, { limit: 100, offset: 0 });
      return page.items.map((item) => item.data);
    }

    test('a create waits for a model update under way, then is checked against the new definition', async () => {
      const model = await newModel(quietActor, NOTE_FIELDS);
      const update = await halfDone(() => models.update(quietActor, { id: model.id, fields: TITLE_REQUIRED }));
      const creating = tracked(records.create(quietActor, model.id, { body: 'no title' }));
      const queued = await waitingFor(update.pid, creating);
      await thaw();
      await update.call.promise;
      expectRefusal(await refusal(creating.promise), 'BAD_USER_INPUT', 'title: is required');
      assert.ok(queued !== null, "the create waited for the update's lock on the model");
      assert.deepEqual(await storedData(quietActor, model), []);
    });

    test('a patch waits for a model update under way, then is checked against the new definition', async () => {
      const model = await newModel(quietActor, NOTE_FIELDS);
      const record = await records.create(quietActor, model.id, { title: 'kept', body: 'b' });
      const update = await halfDone(() => models.update(quietActor, { id: model.id, fields: TITLE_REQUIRED }));
      const patching = tracked(records.patch(quietActor, record.id, { title: null }));
      const queued = await waitingFor(update.pid, patching);
      await thaw();
      await update.call.promise;
      expectRefusal(await refusal(patching.promise), 'BAD_USER_INPUT', 'title: is required');
      assert.ok(queued !== null, "the patch waited for the update's lock on the definition");
      assert.deepEqual(await storedData(quietActor, model), [{ title: 'kept', body: 'b' }]);
    });

    test('a create under way that has not counted its record when a model update commits is undone and checked again', async () => {
      const model = await newModel(actor, NOTE_FIELDS);
      const create = await halfDone(() => records.create(actor, model.id, { body: 'no title' }));
      // The update does not wait for the create: it stops at the outbox lock itself, for its own event.
      const updating = tracked(models.update(actor, { id: model.id, fields: TITLE_REQUIRED }));
      assert.equal(await waitingFor(create.pid, updating), null, 'the update does not wait for the create');
      await thaw();
      await updating.promise;
      expectRefusal(await refusal(create.call.promise), 'BAD_USER_INPUT', 'title: is required');
      assert.deepEqual(await storedData(actor, model), []);
    });

    test('a model update waits for an import under way that has counted its records, then counts them', async () => {
      const model = await newModel(actor, NOTE_FIELDS);
      const importing = await halfDone(() => records.import(actor, model.id, [{ body: 'one' }, { title: 't', body: 'two' }]));
      const updating = tracked(models.update(actor, { id: model.id, fields: TITLE_REQUIRED }));
      const queued = await waitingFor(importing.pid, updating);
      await thaw();
      assert.deepEqual(await importing.call.promise, { importedCount: 2, errors: [] });
      expectRefusal(await refusal(updating.promise), 'CONFLICT', MISSING_TITLES(1));
      assert.ok(queued !== null, "the update waited for the import's lock on the model");
      assert.equal((await models.get(actor.workspaceId, model.id))!.fields[0]!.required, false);
    });

    test('a model update waits for a patch under way, then counts what it wrote', async () => {
      const model = await newModel(actor, NOTE_FIELDS);
      const record = await records.create(actor, model.id, { title: 'soon gone', body: 'b' });
      const patch = await halfDone(() => records.patch(actor, record.id, { title: null }));
      const updating = tracked(models.update(actor, { id: model.id, fields: TITLE_REQUIRED }));
      const queued = await waitingFor(patch.pid, updating);
      await thaw();
      await patch.call.promise;
      expectRefusal(await refusal(updating.promise), 'CONFLICT', MISSING_TITLES(1));
      assert.ok(queued !== null, "the update waited for the patch's lock on the definition");
    });

    describe('links', () => {
      let authors: ModelDefinition;
      let books: ModelDefinition;

      before(async () => {
        authors = await newModel(actor, [{ key: 'name', type: 'text' }], 'author');
        books = await newModel(
          actor,
          [
            { key: 'title', type: 'text' },
            { key: 'author', type: 'relation', relationTo: 'model:author' },
          ],
          'book',
        );
      });

      test('a create that links to a record waits for its delete under way, then is refused', async () => {
        const author = await records.create(actor, authors.id, { name: 'Ann' });
        const deletion = await halfDone(() => records.delete(actor, author.id, false));
        const creating = tracked(records.create(actor, books.id, { title: 'B', author: author.id }));
        const queued = await waitingFor(deletion.pid, creating);
        await thaw();
        assert.deepEqual(await deletion.call.promise, { id: author.id, deleted: true });
        expectRefusal(
          await refusal(creating.promise),
          'BAD_USER_INPUT',
          `author: no record with id "${author.id}" in model "author"`,
        );
        assert.ok(queued !== null, "the create waited for the delete's lock on the record");
        assert.deepEqual(await store.records.referencesTo(author.id), []);
        assert.deepEqual(await storedData(actor, books), []);
      });

      test('a delete waits for a create under way that links to the record, then sees the link', async () => {
        const author = await records.create(actor, authors.id, { name: 'Bo' });
        const create = await halfDone(() => records.create(actor, books.id, { title: 'C', author: author.id }));
        const deleting = tracked(records.delete(actor, author.id, false));
        const queued = await waitingFor(create.pid, deleting);
        await thaw();
        const book = await create.call.promise;
        expectRefusal(
          await refusal(deleting.promise),
          'CONFLICT',
          `id: record is referenced by field "author" of model "book" (record ${book.id}); delete with force: true to remove the references`,
        );
        assert.ok(queued !== null, "the delete waited for the create's lock on the record");
        assert.ok(await records.get(actor.workspaceId, author.id));
      });
    });
  },
);
