// Schedules in a real `serve` (docs/lifecycle.md), on SQLite and on PostgreSQL: a schedule is carried out within 2 s
// of its time; the server killed with SIGKILL around the time of a scheduled publish of 1000 records leaves all of
// them published or none (read straight from the database while no server runs), and after a restart the schedule
// is carried out (done) exactly once.
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, describe, test } from 'node:test';
import Database from 'better-sqlite3';
import pg from 'pg';
import { Admin, bootstrapAdmin, uniqueSlug } from '../support/client.js';
import { postgresTarget, sqliteTarget, type Target } from '../support/databases.js';
import { parsePostgresUrl } from '../../src/store/postgres/index.js';
import { startServer, type TestServer } from '../support/server.js';
import { waitFor } from '../support/wait-for.js';

const RECORDS = 1000;
const CYCLES = Number(process.env.CRASH_CYCLES ?? 3);

const postgres = await postgresTarget();
if ('failure' in postgres) {
  test('scheduled publish on PostgreSQL (CI=true requires PostgreSQL)', () => assert.fail(postgres.failure));
}
const targets: Target[] = [sqliteTarget(), ...('failure' in postgres ? [] : [postgres])];

const SCHEDULE = 'mutation ($input: ScheduleInput!) { record { schedule(input: $input) { id at status } } }';
const SCHEDULES = 'query { record { schedules(limit: 100) { items { id at status doneAt error } } } }';

/** How many records of the model are published, and the schedule's status, read beside the server. */
async function readState(
  databaseUrl: string,
  modelId: string,
  scheduleId: string,
): Promise<{ published: number; status: string }> {
  const published = `SELECT count(*) AS n FROM records WHERE model_id = '${modelId}' AND publish_status = 'published'`;
  const status = `SELECT status FROM schedules WHERE id = '${scheduleId}'`;
  if (!databaseUrl.startsWith('postgres')) {
    const db = new Database(databaseUrl.replace(/^sqlite:/, ''), { readonly: true });
    try {
      const count = (db.prepare(published).get() as { n: number }).n;
      return { published: count, status: (db.prepare(status).get() as { status: string }).status };
    } finally {
      db.close();
    }
  }
  const { connectionString, schema } = parsePostgresUrl(databaseUrl);
  const client = new pg.Client({ connectionString });
  await client.connect();
  try {
    await client.query(`SET search_path TO "${schema}"`);
    const count = Number((await client.query<{ n: string }>(published)).rows[0]!.n);
    return { published: count, status: (await client.query<{ status: string }>(status)).rows[0]!.status };
  } finally {
    await client.end();
  }
}

async function draftsModel(admin: Admin): Promise<{ id: string; ids: string[] }> {
  const model = await admin.createModel({
    slug: uniqueSlug('launch'),
    name: 'Launch',
    drafts: true,
    fields: [{ key: 'title', label: 'Title', type: 'text', required: true }],
  });
  await admin.importRows(
    model.id,
    Array.from({ length: RECORDS }, (_, index) => ({ title: `item ${index}` })),
  );
  const ids = (await admin.listAll(model.id)).map((record: { id: string }) => record.id);
  assert.equal(ids.length, RECORDS);
  return { id: model.id, ids };
}

for (const target of targets) {
  describe(`scheduled publish on ${target.name}`, { skip: target.skip }, () => {
    const servers: TestServer[] = [];
    after(async () => {
      for (const server of servers) await server.dispose();
      await target.cleanup();
    });

    test('a running server carries a schedule out within 2 s of its time', async () => {
      const databaseUrl = target.name === 'SQLite' ? undefined : target.url('schedule_on_time');
      const server = await startServer({ process: true, ...(databaseUrl ? { databaseUrl } : {}) });
      servers.push(server);
      const admin = new Admin(server, (await bootstrapAdmin(server)).credentials);
      const { ids } = await draftsModel(admin);
      const at = new Date(Date.now() + 1_500).toISOString();
      const made = (await admin.ok(SCHEDULE, { input: { ids: ids.slice(0, 10), action: 'publish', at } })).record.schedule;
      let doneAt = '';
      await waitFor(
        async () => {
          const items = (await admin.ok(SCHEDULES)).record.schedules.items as { id: string; status: string; doneAt: string }[];
          const found = items.find((item) => item.id === made.id);
          doneAt = found?.doneAt ?? '';
          return found?.status === 'done';
        },
        { timeoutMs: 10_000, message: 'the schedule done' },
      );
      const late = Date.parse(doneAt) - Date.parse(at);
      assert.ok(late >= 0 && late < 2_000, `done ${late} ms after its time`);
    });

    test(`kill -9 around a scheduled publish of ${RECORDS} records, ${CYCLES} times: all or none, then done once after a restart`, async () => {
      const databaseUrl = target.name === 'SQLite' ? undefined : target.url('schedule_crash');
      const dir = mkdtempSync(join(tmpdir(), 'cs-schedule-crash-'));
      let server = await startServer({ process: true, dir, ...(databaseUrl ? { databaseUrl } : {}) });
      servers.push(server);
      const credentials = (await bootstrapAdmin(server)).credentials;
      const outcomes: string[] = [];
      for (let cycle = 0; cycle < CYCLES; cycle++) {
        const admin = new Admin(server, credentials);
        const model = await draftsModel(admin);
        const at = Date.now() + 1_000;
        const made = (await admin.ok(SCHEDULE, { input: { ids: model.ids, action: 'publish', at: new Date(at).toISOString() } }))
          .record.schedule;
        // Killed at a point that differs from cycle to cycle, around the schedule's time.
        await sleep(Math.max(0, at - Date.now()) + 300 + cycle * 150);
        server.kill('SIGKILL');
        assert.equal((await server.stop()).signal, 'SIGKILL');
        const state = await readState(server.databaseUrl, model.id, made.id);
        assert.ok(
          (state.published === 0 && state.status === 'pending') || (state.published === RECORDS && state.status === 'done'),
          `all or none: ${state.published} of ${RECORDS} published, schedule ${state.status}`,
        );
        outcomes.push(state.status);
        server = await startServer({ process: true, dir, ...(databaseUrl ? { databaseUrl } : {}) });
        servers.push(server);
        const restarted = new Admin(server, credentials);
        await waitFor(
          async () => {
            const items = (await restarted.ok(SCHEDULES)).record.schedules.items as { id: string; status: string }[];
            return items.find((item) => item.id === made.id)?.status === 'done';
          },
          { timeoutMs: 10_000, message: 'the schedule done after the restart' },
        );
        const after = await readState(server.databaseUrl, model.id, made.id);
        assert.deepEqual(after, { published: RECORDS, status: 'done' });
      }
      console.log(`# scheduled publish (${target.name}): at the kill, the schedule was ${outcomes.join(', ')}`);
    });
  });
}
