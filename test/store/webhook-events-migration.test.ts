// SQLite migration 12 (docs/decisions.md "Webhooks: the SQLite outbox row in one B-tree"): a database built by the
// previous version (events with AUTOINCREMENT, an index on their id and on their time) keeps its events, deliveries
// and cursors; deliveries find their events by sequence; a sequence is never given twice, not even one that the old
// pruning had removed; and pruning keeps the newest event.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import Database from 'better-sqlite3';
import { openStore } from '../../src/store/open-store.js';
import { migrate, MIGRATIONS } from '../../src/store/sqlite/migrations.js';
import type { Store } from '../../src/store/store.js';
import { sqliteTarget } from '../support/databases.js';
import { createNoteModel } from '../support/workspaces.js';

const target = sqliteTarget();
after(() => target.cleanup());

const WORKSPACE = 'ws-1';
const WEBHOOK = 'wh-1';

/** The database as version 11 left it: five events, the last two pruned, one pending delivery of the second. */
function buildVersion11(path: string): void {
  const db = new Database(path);
  try {
    migrate(db, 11);
    db.prepare("INSERT INTO organisations (id, slug, created_at) VALUES ('org-1', 'org', 0)").run();
    db.prepare("INSERT INTO workspaces (id, org_id, slug, created_at) VALUES (?, 'org-1', 'main', 0)").run(WORKSPACE);
    db.prepare(
      `INSERT INTO webhooks (id, workspace_id, url, events, model_ids, description, active, secret, created_at, updated_at)
       VALUES (?, ?, 'http://127.0.0.1:9/hook', '["*"]', NULL, NULL, 1, 'whsec_AAAA', 0, 0)`,
    ).run(WEBHOOK, WORKSPACE);
    const insertEvent = db.prepare(
      `INSERT INTO webhook_events (id, workspace_id, type, model_id, model_slug, payload, created_at)
       VALUES (?, ?, 'model.updated', NULL, 'note', ?, ?)`,
    );
    for (let index = 1; index <= 5; index++) insertEvent.run(`e${index}`, WORKSPACE, `{"n":${index}}`, index);
    db.prepare('DELETE FROM webhook_events WHERE sequence > 3').run();
    db.prepare(
      `INSERT INTO webhook_deliveries (id, webhook_id, event_id, event_sequence, status, next_attempt_at, created_at, updated_at)
       VALUES ('d2', ?, 'e2', 2, 'pending', 0, 2, 2)`,
    ).run(WEBHOOK);
    db.prepare('INSERT INTO webhook_cursors (webhook_id, last_sequence) VALUES (?, 5)').run(WEBHOOK);
  } finally {
    db.close();
  }
}

function query<T>(path: string, sql: string): T[] {
  const db = new Database(path, { readonly: true });
  try {
    return db.prepare(sql).all() as T[];
  } finally {
    db.close();
  }
}

test('migration 12 upgrades a version 11 database: events, deliveries and sequences carry on', async () => {
  const url = target.url('events12');
  const path = url.slice('sqlite:'.length);
  buildVersion11(path);
  let store: Store | undefined = await openStore(url);
  try {
    await store.webhooks.releaseClaims();
    const version = query<{ v: number }>(path, 'SELECT max(version) AS v FROM schema_migrations');
    assert.equal(version[0]!.v, MIGRATIONS.length, 'every migration from 12 on applied');
    assert.deepEqual(
      query(path, "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'webhook_events'"),
      [],
      'no index on the events',
    );
    // The kept events, and a mark at the old high-water sequence (a ping's type, no workspace).
    assert.deepEqual(
      query<{ sequence: number; id: string; type: string }>(
        path,
        'SELECT sequence, id, type FROM webhook_events ORDER BY sequence',
      ),
      [
        { sequence: 1, id: 'e1', type: 'model.updated' },
        { sequence: 2, id: 'e2', type: 'model.updated' },
        { sequence: 3, id: 'e3', type: 'model.updated' },
        { sequence: 5, id: 'sequence-mark-5', type: 'webhook.ping' },
      ],
    );

    // The delivery log and the claim find the delivery's event by its sequence.
    const log = await store.webhooks.deliveries(WORKSPACE, WEBHOOK, { limit: 10, offset: 0, status: null });
    assert.deepEqual(
      log.items.map((delivery) => [delivery.id, delivery.eventId, delivery.eventType]),
      [['d2', 'e2', 'model.updated']],
    );
    const now = Date.now();
    const claimed = await store.webhooks.claimDue({
      token: 'a',
      holder: 'test',
      inHand: [],
      now,
      leaseUntil: now + 60_000,
      limit: 10,
    });
    assert.deepEqual(
      claimed.map((delivery) => [delivery.id, delivery.event.id, delivery.event.sequence, delivery.event.payload]),
      [['d2', 'e2', 2, '{"n":2}']],
    );

    // A new event follows the old high-water mark (5, pruned by the old version): the cursor at 5 does not skip it.
    const model = await createNoteModel(store, WORKSPACE);
    assert.deepEqual(query(path, 'SELECT max(sequence) AS last FROM webhook_events'), [{ last: 6 }]);
    const later = Date.now();
    const next = await store.webhooks.claimDue({
      token: 'b',
      holder: 'test',
      inHand: [],
      now: later,
      leaseUntil: later + 60_000,
      limit: 10,
    });
    assert.deepEqual(
      next.map((delivery) => [delivery.event.sequence, delivery.event.type, delivery.event.modelId]),
      [[6, 'model.created', model.id]],
    );
    await store.webhooks.recordAttempts(
      [...claimed, ...next].map((delivery) => ({
        deliveryId: delivery.id,
        claimToken: delivery.claimToken,
        statusCode: 200,
        error: null,
        durationMs: 1,
        at: later,
        status: 'succeeded' as const,
        nextAttemptAt: null,
      })),
    );

    // Pruning goes by sequence order and keeps the newest event, whose sequence the next one follows.
    await store.webhooks.prune(later + 1);
    assert.deepEqual(query(path, 'SELECT sequence FROM webhook_events'), [{ sequence: 6 }]);
    await store.close();
    store = undefined;
    const db = new Database(path);
    try {
      db.prepare(
        `INSERT INTO webhook_events (id, workspace_id, type, model_id, model_slug, payload, created_at)
         VALUES ('e7', ?, 'model.updated', NULL, 'note', '{}', 0)`,
      ).run(WORKSPACE);
    } finally {
      db.close();
    }
    assert.deepEqual(query(path, 'SELECT sequence FROM webhook_events ORDER BY sequence'), [{ sequence: 6 }, { sequence: 7 }]);
  } finally {
    await store?.close();
  }
});

test('pruning by sequence order: an event older than the cut-off after a younger one waits for it', async () => {
  const url = target.url('prune-order');
  const path = url.slice('sqlite:'.length);
  const db = new Database(path);
  try {
    migrate(db);
    const insert = db.prepare(
      `INSERT INTO webhook_events (id, workspace_id, type, model_id, model_slug, payload, created_at)
       VALUES (?, 'ws', 'model.updated', NULL, NULL, '{}', ?)`,
    );
    // A clock set back between the second and the third event.
    for (const [id, at] of [
      ['a', 10],
      ['b', 100],
      ['c', 20],
      ['d', 200],
    ] as const) {
      insert.run(id, at);
    }
  } finally {
    db.close();
  }
  const store = await openStore(url);
  try {
    await store.webhooks.prune(50);
    assert.deepEqual(
      query<{ id: string }>(path, 'SELECT id FROM webhook_events ORDER BY sequence').map((row) => row.id),
      ['b', 'c', 'd'],
    );
    await store.webhooks.prune(150);
    assert.deepEqual(
      query<{ id: string }>(path, 'SELECT id FROM webhook_events ORDER BY sequence').map((row) => row.id),
      ['d'],
    );
  } finally {
    await store.close();
  }
});
