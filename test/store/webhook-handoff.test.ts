// On SQLite new deliveries reach the worker in memory when their write commits (src/store/sqlite/webhooks.ts):
// a claim hands over exactly the committed ones, in event order, and never one whose write rolled back.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import Database from 'better-sqlite3';
import { migrate } from '../../src/store/sqlite/migrations.js';
import { SqliteOutbox } from '../../src/store/sqlite/webhook-outbox.js';
import { SqliteWebhookStore } from '../../src/store/sqlite/webhooks.js';
import { WriteGroup } from '../../src/store/sqlite/write-group.js';

const WORKSPACE = 'ws-1';
const WEBHOOK = 'wh-1';

async function setup() {
  const db = new Database(':memory:');
  migrate(db);
  db.prepare("INSERT INTO organisations (id, slug, created_at) VALUES ('org-1', 'org', 0)").run();
  db.prepare(`INSERT INTO workspaces (id, org_id, slug, created_at) VALUES (?, 'org-1', 'main', 0)`).run(WORKSPACE);
  db.prepare(
    `INSERT INTO webhooks (id, workspace_id, url, events, model_ids, description, active, secret, created_at, updated_at)
     VALUES (?, ?, 'http://127.0.0.1:9/hook', '["*"]', NULL, NULL, 1, 'whsec_AAAA', 0, 0)`,
  ).run(WEBHOOK, WORKSPACE);
  const outbox = new SqliteOutbox(db);
  const group = new WriteGroup(db, { onCommit: () => outbox.committed() });
  const store = new SqliteWebhookStore(db, outbox, group);
  await store.releaseClaims(); // as the worker does when it starts: from now on committed deliveries are kept
  let claims = 0;
  const write = (name: string) =>
    outbox.store({
      id: name,
      workspaceId: WORKSPACE,
      type: 'record.created',
      modelId: null,
      modelSlug: null,
      payload: '{}',
      createdAt: 0,
    });
  const claim = async () =>
    (
      await store.claimDue({
        token: `t${claims++}`,
        holder: 'test',
        inHand: [],
        now: Date.now(),
        leaseUntil: Date.now() + 60_000,
        limit: 32,
      })
    ).map((delivery) => delivery.event.id);
  return { db, outbox, group, store, write, claim };
}

test('webhook handoff: a group with a rolled-back write hands over only the committed events, in order', async () => {
  const { group, write, claim } = await setup();
  assert.deepEqual(await claim(), []);
  const outcomes = await Promise.allSettled([
    group.run(() => write('e1')),
    group.run(() => {
      write('e2');
      throw new Error('refused after its event was stored');
    }),
    group.run(() => write('e3')),
  ]);
  assert.deepEqual(
    outcomes.map((outcome) => outcome.status),
    ['fulfilled', 'rejected', 'fulfilled'],
  );
  assert.deepEqual(await claim(), ['e1', 'e3']);
  // Claimed once: the next claim has nothing, and a new commit brings only its own event.
  assert.deepEqual(await claim(), []);
  await group.run(() => write('e4'));
  assert.deepEqual(await claim(), ['e4']);
});

test('webhook handoff: a transaction that fails after storing its event hands over nothing', async () => {
  const { db, outbox, write, claim } = await setup();
  assert.throws(() =>
    outbox.transaction(() =>
      db.transaction(() => {
        write('lost');
        throw new Error('rolled back');
      })(),
    ),
  );
  assert.deepEqual(await claim(), []);
  outbox.transaction(() => db.transaction(() => write('kept'))());
  assert.deepEqual(await claim(), ['kept']);
});

test('webhook handoff: a failed attempt comes back from the database when its retry is due', async () => {
  const { store, group, write, claim } = await setup();
  await group.run(() => write('e1'));
  const [delivery] = await store.claimDue({
    token: 'a',
    holder: 'test',
    inHand: [],
    now: Date.now(),
    leaseUntil: Date.now() + 60_000,
    limit: 32,
  });
  assert.ok(delivery);
  const now = Date.now();
  await store.recordAttempts([
    {
      deliveryId: delivery.id,
      claimToken: 'a',
      statusCode: 500,
      error: null,
      durationMs: 1,
      at: now,
      status: 'pending',
      nextAttemptAt: now + 50,
    },
  ]);
  assert.deepEqual(await claim(), []);
  await new Promise((resolve) => setTimeout(resolve, 80));
  assert.deepEqual(await claim(), ['e1']);
});

test('webhook handoff: a write wakes the worker for a running webhook, not for one paused or waiting for its probe', async () => {
  const { outbox, group } = await setup();
  let wakes = 0;
  outbox.onEventsWritten(() => wakes++);
  const write = () =>
    group.run(() =>
      outbox.add({
        workspaceId: WORKSPACE,
        type: 'record.created',
        modelId: 'model-1',
        at: Date.now(),
        details: () => ({ modelSlug: 'note', payload: '{}' }),
      }),
    );
  await write();
  assert.equal(wakes, 1, 'running: woken');
  outbox.paused.pause(WEBHOOK, Date.now() + 60_000);
  await write();
  assert.equal(wakes, 1, 'paused: not woken');
  outbox.paused.pause(WEBHOOK, Date.now() - 1);
  await write();
  assert.equal(wakes, 1, 'the pause is over, the probe not answered yet: not woken');
  outbox.paused.resume(WEBHOOK, Date.now());
  await write();
  assert.equal(wakes, 2, 'answered: woken again');
});
