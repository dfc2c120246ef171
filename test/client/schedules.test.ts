// Schedules in the SDK against a real server (which runs the schedule runner as `serve` does): scheduleRecords answers
// the pending schedule, the server carries it out at its time (waited for by polling listSchedules, with a deadline),
// refusals name the input field, cancelSchedule stops one and is refused once it is not pending. Each test has a
// workspace of its own, so the lists of schedules are its own.
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, test } from 'node:test';
import { ContentClient, ContentServiceError, type Schedule, type ScheduleStatus } from '../../src/client/index.js';
import { bootstrapAdmin, uniqueSlug } from '../support/client.js';
import { startServer, type TestServer } from '../support/server.js';

/** How far ahead the schedules of these tests are: enough for the call to arrive before it, little to wait. */
const LEAD_MS = 1200;
/** The longest wait for a schedule to be carried out (the runner looks every 500 ms; due within 2 s of `at`). */
const DEADLINE_MS = 10_000;
const POLL_MS = 100;

let server: TestServer;
let workspaces = 0;

before(async () => {
  server = await startServer();
});

after(async () => {
  await server?.dispose();
});

/** A client of a workspace of its own, and a model with drafts there. */
async function workspace(): Promise<{ client: ContentClient; modelId: string; email: string }> {
  workspaces += 1;
  const email = `owner${workspaces}@schedules.test`;
  const admin = await bootstrapAdmin(server, { org: `sched-${workspaces}`, workspace: 'main', email, role: 'owner' });
  const client = new ContentClient({ baseUrl: server.url, token: admin.token, workspaceId: admin.workspaceId });
  const model = await client.createModel({
    name: 'Page',
    slug: uniqueSlug('page'),
    drafts: true,
    fields: [{ key: 'title', type: 'text', required: true }],
  });
  return { client, modelId: model.id, email };
}

/** Polls listSchedules until the schedule has left `pending`; fails after DEADLINE_MS. */
async function settled(client: ContentClient, id: string): Promise<Schedule> {
  const deadline = Date.now() + DEADLINE_MS;
  for (;;) {
    const found = (await client.listSchedules({ limit: 100 })).items.find((item) => item.id === id);
    assert.ok(found, `schedule ${id} is listed`);
    if (found.status !== 'pending') return found;
    assert.ok(Date.now() < deadline, `schedule ${id} still pending ${DEADLINE_MS} ms after it was made`);
    await sleep(POLL_MS);
  }
}

async function refusal(call: Promise<unknown>): Promise<ContentServiceError> {
  const error = await call.then(
    () => assert.fail('expected a refusal'),
    (caught: unknown) => caught,
  );
  assert.ok(error instanceof ContentServiceError, String(error));
  return error;
}

describe('schedules', { concurrency: 4 }, () => {
  test('scheduleRecords: pending, then done at its time (listSchedules shows it); the records are published, then unpublished', async () => {
    const { client, modelId, email } = await workspace();
    const first = await client.createRecord(modelId, { title: 'A' });
    const second = await client.createRecord(modelId, { title: 'B' });
    const at = new Date(Date.now() + LEAD_MS);
    const made = await client.scheduleRecords({ ids: [second.id, first.id], action: 'publish', at });
    assert.deepEqual(
      [made.action, made.ids, made.status, made.error, made.doneAt, made.createdBy],
      ['publish', [second.id, first.id], 'pending', null, null, email],
    );
    assert.equal(Date.parse(made.at), at.getTime());
    assert.equal(typeof made.createdAt, 'string');
    const pending = await client.listSchedules({ status: 'pending' });
    assert.deepEqual([pending.total, pending.hasMore, pending.items.map((item) => item.id)], [1, false, [made.id]]);
    assert.equal((await client.getRecord(first.id))?.status, 'draft', 'nothing is published before its time');

    const done = await settled(client, made.id);
    assert.deepEqual([done.status, done.error], ['done', null]);
    assert.ok(done.doneAt !== null && Date.parse(done.doneAt) >= at.getTime(), `doneAt ${done.doneAt} is not before at`);
    for (const record of [first, second]) {
      assert.equal((await client.getRecord(record.id))?.status, 'published');
      assert.deepEqual((await client.getPublishedRecord(record.id))?.data, record.data);
    }
    assert.deepEqual(
      (await client.listSchedules({ status: 'done' })).items.map((item) => item.id),
      [made.id],
    );
    assert.equal((await client.listSchedules({ status: 'pending' })).total, 0);

    // `at` as an ISO string works the same.
    const unpublish = await client.scheduleRecords({
      ids: [first.id],
      action: 'unpublish',
      at: new Date(Date.now() + LEAD_MS).toISOString(),
    });
    assert.equal((await settled(client, unpublish.id)).status, 'done');
    assert.equal((await client.getRecord(first.id))?.status, 'draft');
    assert.equal(await client.getPublishedRecord(first.id), null);
    assert.equal((await client.getRecord(second.id))?.status, 'published');
    const page = await client.listSchedules({ limit: 1 });
    assert.deepEqual([page.total, page.hasMore, page.items.length], [2, true, 1]);
  });

  test('refusals name the input field (input.action, input.at, input.ids.<n>); nothing is scheduled', async () => {
    const { client, modelId } = await workspace();
    const record = await client.createRecord(modelId, { title: 'A' });
    const soon = new Date(Date.now() + 60_000);
    const cases: [() => Promise<unknown>, string, RegExp][] = [
      [
        () => client.scheduleRecords({ ids: [record.id], action: 'archive' as 'publish', at: soon }),
        'input.action',
        /publish or unpublish/,
      ],
      [
        () => client.scheduleRecords({ ids: [record.id], action: 'publish', at: new Date(Date.now() - 1000) }),
        'input.at',
        /future/,
      ],
      [
        () => client.scheduleRecords({ ids: [record.id], action: 'publish', at: new Date(Date.now() + 6 * 366 * 86_400_000) }),
        'input.at',
        /5 years/,
      ],
      [() => client.scheduleRecords({ ids: [record.id], action: 'publish', at: 'next tuesday' }), 'input.at', /ISO 8601/],
      [
        () => client.scheduleRecords({ ids: [record.id, 'no-such-record'], action: 'publish', at: soon }),
        'input.ids.1',
        /not found/,
      ],
      [() => client.scheduleRecords({ ids: [record.id], action: 'publish', at: new Date(Number.NaN) }), 'input.at', /valid Date/],
      [() => client.listSchedules({ status: 'soon' as ScheduleStatus }), 'status', /pending, done, failed or cancelled/],
    ];
    for (const [call, field, message] of cases) {
      const error = await refusal(call());
      assert.deepEqual([error.code, error.field], ['BAD_USER_INPUT', field], error.message);
      assert.match(error.message, message);
      assert.ok(error.message.startsWith(`${field}: `), error.message);
    }
    assert.equal((await client.listSchedules()).total, 0);
    assert.equal((await client.getRecord(record.id))?.status, 'draft');
  });

  test('cancelSchedule: a cancelled schedule does nothing at its time; cancelling one that is not pending is CONFLICT', async () => {
    const { client, modelId } = await workspace();
    const kept = await client.createRecord(modelId, { title: 'Stays a draft' });
    const other = await client.createRecord(modelId, { title: 'Published' });
    const cancelled = await client.scheduleRecords({ ids: [kept.id], action: 'publish', at: new Date(Date.now() + LEAD_MS) });
    // A later schedule: once it is done, the cancelled one's time has passed too.
    const later = await client.scheduleRecords({ ids: [other.id], action: 'publish', at: new Date(Date.now() + LEAD_MS + 300) });
    const answer = await client.cancelSchedule(cancelled.id);
    assert.deepEqual([answer.id, answer.status], [cancelled.id, 'cancelled']);

    assert.equal((await settled(client, later.id)).status, 'done');
    assert.equal((await client.getRecord(other.id))?.status, 'published');
    assert.equal((await client.getRecord(kept.id))?.status, 'draft', 'the cancelled schedule published nothing');
    const listed = await client.listSchedules({ status: 'cancelled' });
    assert.deepEqual([listed.total, listed.items[0]?.id, listed.items[0]?.status], [1, cancelled.id, 'cancelled']);

    for (const id of [cancelled.id, later.id]) {
      const error = await refusal(client.cancelSchedule(id));
      assert.deepEqual([error.code, error.field], ['CONFLICT', 'id']);
      assert.match(error.message, /only a pending schedule can be cancelled/);
    }
    const missing = await refusal(client.cancelSchedule('no-such-schedule'));
    assert.deepEqual([missing.code, missing.field], ['NOT_FOUND', 'id']);
  });
});
