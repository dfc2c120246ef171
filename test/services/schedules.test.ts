// Schedules through the services and the store, on both stores: the checks when one is made, carrying out what is
// due (all of it, or nothing when an id is gone), cancelling, and exactly once when two stores on one database ask
// at the same time.
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { ModelService } from '../../src/services/model-service.js';
import { RecordService } from '../../src/services/record-service.js';
import { ScheduleService } from '../../src/services/schedule-service.js';
import { openStore } from '../../src/store/open-store.js';
import type { Store } from '../../src/store/store.js';
import { refusal, storeTargets } from '../support/store-targets.js';
import { ownedWorkspace } from '../support/workspaces.js';

const targets = await storeTargets('schedules');

const NOW = Date.parse('2026-12-07T12:00:00.000Z');
const iso = (ms: number) => new Date(ms).toISOString();

async function world(store: Store) {
  const owner = await ownedWorkspace(store);
  const model = await new ModelService(store).create(owner.actor, {
    name: 'Page',
    slug: 'page',
    drafts: true,
    fields: [{ key: 'title', label: 'Title', type: 'text', required: true }],
  });
  const records = new RecordService(store);
  const schedules = new ScheduleService(store, () => NOW);
  const ids: string[] = [];
  for (const title of ['One', 'Two', 'Three']) ids.push((await records.create(owner.actor, model.id, { title })).id);
  return { store, actor: owner.actor, records, schedules, ids };
}

for (const target of targets) {
  describe(`schedules on ${target.name}`, { skip: target.skip }, () => {
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

    test('bad input is refused naming the input field', async () => {
      const { actor, schedules, ids } = await world(await open('refusals'));
      const at = iso(NOW + 60_000);
      await assert.rejects(
        schedules.schedule(actor, { ids, action: 'archive', at }),
        refusal('BAD_USER_INPUT', 'input.action: expected publish or unpublish, got "archive"'),
      );
      await assert.rejects(
        schedules.schedule(actor, { ids, action: 'publish', at: 'May 1, 2027' }),
        refusal('BAD_USER_INPUT', 'input.at: expected an ISO 8601 date-time, got "May 1, 2027"'),
        'only ISO 8601, not every text Date.parse reads',
      );
      await assert.rejects(
        schedules.schedule(actor, { ids, action: 'publish', at: iso(NOW - 1) }),
        refusal('BAD_USER_INPUT', 'input.at: must be in the future'),
      );
      await assert.rejects(
        schedules.schedule(actor, { ids, action: 'publish', at: '2040-01-01T00:00:00Z' }),
        refusal('BAD_USER_INPUT', 'input.at: at most 5 years ahead'),
      );
      await assert.rejects(
        schedules.schedule(actor, { ids: [ids[0]!, 'gone'], action: 'publish', at }),
        refusal('BAD_USER_INPUT', 'input.ids.1: record gone not found'),
      );
      await assert.rejects(
        schedules.list(actor.workspaceId, { status: 'late' }),
        refusal('BAD_USER_INPUT', 'status: expected pending, done, failed or cancelled, got "late"'),
      );
    });

    test('a due schedule publishes all of its records in one go; one not due yet waits; listed by status', async () => {
      const store = await open('due');
      const { actor, records, schedules, ids } = await world(store);
      const soon = await schedules.schedule(actor, { ids: ids.slice(0, 2), action: 'publish', at: iso(NOW + 1_000) });
      const later = await schedules.schedule(actor, { ids: [ids[2]!], action: 'publish', at: iso(NOW + 60_000) });
      assert.equal(soon.status, 'pending');
      assert.equal(soon.createdBy, 'owner@example.com');
      assert.deepEqual(await store.schedules.runDue(NOW + 999), []);
      const ran = await store.schedules.runDue(NOW + 1_000);
      assert.deepEqual(
        ran.map((schedule) => [schedule.id, schedule.status]),
        [[soon.id, 'done']],
      );
      assert.ok(ran[0]!.doneAt);
      const states = await Promise.all(ids.map(async (id) => (await records.get(actor.workspaceId, id))!.publishStatus));
      assert.deepEqual(states, ['published', 'published', 'draft']);
      assert.deepEqual(await store.schedules.runDue(NOW + 2_000), [], 'done once');
      const pending = await schedules.list(actor.workspaceId, { status: 'pending' });
      assert.deepEqual(
        pending.items.map((schedule) => schedule.id),
        [later.id],
      );
      assert.equal((await schedules.list(actor.workspaceId, {})).total, 2);
    });

    test('an id gone by then fails the schedule, naming it, and none of its records changes', async () => {
      const store = await open('failed');
      const { actor, records, schedules, ids } = await world(store);
      const schedule = await schedules.schedule(actor, { ids, action: 'publish', at: iso(NOW + 1_000) });
      await records.delete(actor, ids[1]!, false);
      const [ran] = await store.schedules.runDue(NOW + 1_000);
      assert.equal(ran!.id, schedule.id);
      assert.equal(ran!.status, 'failed');
      assert.equal(ran!.error, `ids: record ${ids[1]} no longer exists; nothing was changed`);
      for (const id of [ids[0]!, ids[2]!]) assert.equal((await records.get(actor.workspaceId, id))!.publishStatus, 'draft');
    });

    test('a pending schedule can be cancelled, and is then never carried out; a done one cannot', async () => {
      const store = await open('cancel');
      const { actor, records, schedules, ids } = await world(store);
      const cancelled = await schedules.schedule(actor, { ids, action: 'publish', at: iso(NOW + 1_000) });
      assert.equal((await schedules.cancel(actor, cancelled.id)).status, 'cancelled');
      assert.deepEqual(await store.schedules.runDue(NOW + 5_000), []);
      assert.equal((await records.get(actor.workspaceId, ids[0]!))!.publishStatus, 'draft');
      const done = await schedules.schedule(actor, { ids: [ids[0]!], action: 'publish', at: iso(NOW + 1_000) });
      await store.schedules.runDue(NOW + 5_000);
      await assert.rejects(
        schedules.cancel(actor, done.id),
        refusal('CONFLICT', 'id: the schedule is done; only a pending schedule can be cancelled'),
      );
      await assert.rejects(schedules.cancel(actor, 'nope'), refusal('NOT_FOUND', 'id: schedule not found'));
    });

    test('two stores on one database asking at once: each schedule is carried out exactly once', async () => {
      const store = await open('once');
      const other = await openStore(target.url('once'));
      stores.push(other);
      const { actor, schedules, ids } = await world(store);
      const made = [];
      for (let index = 0; index < 6; index++) {
        made.push(await schedules.schedule(actor, { ids: [ids[index % 3]!], action: 'publish', at: iso(NOW + 1_000 + index) }));
      }
      const [first, second] = await Promise.all([store.schedules.runDue(NOW + 10_000), other.schedules.runDue(NOW + 10_000)]);
      const carried = [...first, ...second].map((schedule) => schedule.id).sort();
      assert.deepEqual(carried, made.map((schedule) => schedule.id).sort());
      const all = await schedules.list(actor.workspaceId, { status: 'done' });
      assert.equal(all.total, 6);
    });
  });
}
