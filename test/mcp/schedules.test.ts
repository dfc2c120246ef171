// The schedule tools as an agent uses them, over stdio and over Streamable HTTP, against a real server that runs the
// schedule runner as `serve` does: schedule answers the pending schedule, list_schedules shows it done after its
// time (polled, with a deadline), the records are published; cancel_schedule stops another one; list_records by status.
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, test } from 'node:test';
import { bootstrapAdmin, uniqueSlug, type Admin } from '../support/client.js';
import { startServer, type TestServer } from '../support/server.js';
import { connect, ok, refused, type McpSession, type Mode } from './support.js';

const LEAD_MS = 1200;
const DEADLINE_MS = 10_000;
const POLL_MS = 100;

let server: TestServer;

before(async () => {
  server = await startServer();
});

after(async () => {
  await server?.dispose();
});

for (const mode of ['stdio', 'http'] as Mode[]) {
  describe(`schedule tools over ${mode}`, () => {
    let owner: Admin;
    let session: McpSession;

    before(async () => {
      owner = await bootstrapAdmin(server, {
        org: `sched-${mode}`,
        workspace: 'main',
        email: `owner@sched-${mode}.test`,
        role: 'owner',
      });
      session = await connect(mode, server, owner.credentials);
    });

    after(async () => {
      await session?.close();
    });

    /** Polls list_schedules until the schedule has left pending; fails after DEADLINE_MS. */
    async function settled(id: string): Promise<any> {
      const deadline = Date.now() + DEADLINE_MS;
      for (;;) {
        const found = (await ok(session, 'list_schedules', { limit: 100 })).items.find((item: any) => item.id === id);
        assert.ok(found, `schedule ${id} is listed`);
        if (found.status !== 'pending') return found;
        assert.ok(Date.now() < deadline, `schedule ${id} still pending ${DEADLINE_MS} ms after it was made`);
        await sleep(POLL_MS);
      }
    }

    test('schedule, then list_schedules until done: the records are published; cancel_schedule; list_records by status', async () => {
      const slug = uniqueSlug('page');
      await ok(session, 'create_model', {
        name: 'Page',
        slug,
        drafts: true,
        fields: [{ key: 'title', type: 'text', required: true }],
      });
      const first = (await ok(session, 'create_record', { modelSlug: slug, data: { title: 'A' } })).created;
      const second = (await ok(session, 'create_record', { modelSlug: slug, data: { title: 'B' } })).created;
      const kept = (await ok(session, 'create_record', { modelSlug: slug, data: { title: 'C' } })).created;

      const at = new Date(Date.now() + LEAD_MS).toISOString();
      const made = await ok(session, 'schedule', { ids: [first, second], action: 'publish', at });
      assert.deepEqual(
        [made.action, made.ids, made.status, made.error, made.doneAt, made.createdBy],
        ['publish', [first, second], 'pending', null, null, `owner@sched-${mode}.test`],
      );
      assert.equal(Date.parse(made.at), Date.parse(at));
      const cancelled = await ok(session, 'schedule', { ids: [kept], action: 'publish', at });
      assert.equal((await ok(session, 'cancel_schedule', { id: cancelled.id })).status, 'cancelled');
      assert.match(
        await refused(session, 'cancel_schedule', { id: cancelled.id }),
        /^id: the schedule is cancelled; only a pending schedule can be cancelled/,
      );
      const pending = await ok(session, 'list_schedules', { status: 'pending' });
      assert.deepEqual([pending.total, pending.items.map((item: any) => item.id)], [1, [made.id]]);

      assert.equal((await settled(made.id)).status, 'done');
      for (const id of [first, second]) assert.equal((await ok(session, 'get_record', { id })).status, 'published');
      assert.equal((await ok(session, 'get_record', { id: kept })).status, 'draft', 'the cancelled schedule did nothing');
      assert.match(await refused(session, 'cancel_schedule', { id: made.id }), /^id: the schedule is done/);

      const drafts = await ok(session, 'list_records', { modelSlug: slug, status: ['draft', 'changed'] });
      assert.deepEqual([drafts.total, drafts.items.map((item: any) => item.id)], [1, [kept]]);
      const live = await ok(session, 'list_records', { modelSlug: slug, status: ['published'] });
      assert.deepEqual(live.items.map((item: any) => item.id).sort(), [first, second].sort());
    });
  });
}
