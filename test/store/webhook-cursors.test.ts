// One outbox row per write (docs/decisions.md "Webhooks: one outbox row per write"): a write stores only its event,
// and the worker's claims make the delivery rows from each webhook's cursor. Run on SQLite always and on PostgreSQL
// when DATABASE_URL is set: no delivery row at write time, none while a webhook is paused, everything in event order
// after it answers again, a stable delivery log across pages (same millisecond included), and on PostgreSQL an event
// whose transaction commits after a later one is not skipped.
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, test } from 'node:test';
import Database from 'better-sqlite3';
import pg from 'pg';
import type { RecordData } from '../../src/domain/fields.js';
import { newId } from '../../src/ids.js';
import { openStore } from '../../src/store/open-store.js';
import { parsePostgresUrl } from '../../src/store/postgres/index.js';
import { PostgresOutbox } from '../../src/store/postgres/webhook-outbox.js';
import type { ClaimedDelivery, Store, WriteContext } from '../../src/store/store.js';
import { postgresTarget, sqliteTarget } from '../support/databases.js';
import { createNoteModel, createStoreWebhook, ownedWorkspace } from '../support/workspaces.js';

const postgres = await postgresTarget();
const targets = [sqliteTarget(), ...('failure' in postgres ? [] : [postgres])];

/** Rows of a query on the store's database, from a connection of its own. */
async function rowsOf(url: string, sql: string, parameters: unknown[] = []): Promise<Record<string, unknown>[]> {
  if (url.startsWith('sqlite:')) {
    const db = new Database(url.slice('sqlite:'.length));
    try {
      const statement = db.prepare(sql.replace(/\$\d+/g, '?'));
      if (!statement.reader) {
        statement.run(...parameters);
        return [];
      }
      return statement.all(...parameters) as Record<string, unknown>[];
    } finally {
      db.close();
    }
  }
  const client = new pg.Client({ connectionString: parsePostgresUrl(url).connectionString });
  await client.connect();
  try {
    return (await client.query(sql, parameters)).rows as Record<string, unknown>[];
  } finally {
    await client.end();
  }
}

async function deliveryCount(url: string, webhookId: string): Promise<number> {
  const rows = await rowsOf(url, 'SELECT count(*) AS n FROM webhook_deliveries WHERE webhook_id = $1', [webhookId]);
  return Number(rows[0]!.n);
}

let tokens = 0;
async function claim(store: Store, now = Date.now()): Promise<ClaimedDelivery[]> {
  return store.webhooks.claimDue({ token: `t${tokens++}`, holder: 'test', inHand: [], now, leaseUntil: now + 60_000, limit: 32 });
}

async function settle(store: Store, deliveries: readonly ClaimedDelivery[], status: 'succeeded' | 'pending', at = Date.now()) {
  await store.webhooks.recordAttempts(
    deliveries.map((delivery) => ({
      deliveryId: delivery.id,
      claimToken: delivery.claimToken,
      statusCode: status === 'succeeded' ? 200 : 500,
      error: null,
      durationMs: 1,
      at,
      status,
      nextAttemptAt: status === 'pending' ? at + 3_600_000 : null,
    })),
  );
}

for (const target of targets) {
  describe(`Webhook cursors on ${target.name}`, { skip: target.skip }, () => {
    let store: Store;
    let url: string;

    before(async () => {
      url = target.url('cursors');
      store = await openStore(url);
      await store.webhooks.releaseClaims();
    });

    after(async () => {
      await store?.close();
      await target.cleanup();
    });

    async function setup() {
      const { workspace } = await ownedWorkspace(store);
      const model = await createNoteModel(store, workspace.id);
      const context: WriteContext = { model, userId: null };
      const webhookId = newId();
      await createStoreWebhook(store, webhookId, workspace.id, 'http://127.0.0.1:9/hook');
      const write = async (title: string) => {
        const data: RecordData = { title };
        return (await store.records.insert(context, { id: newId(), data, dataText: JSON.stringify(data), sku: null, links: [] }))
          .id;
      };
      return { workspaceId: workspace.id, webhookId, write };
    }

    test('a write stores its event and no delivery row; the claim makes it and hands it over', async () => {
      const { webhookId, write } = await setup();
      // Caught up first (the model's creation came before the webhook: no event for it).
      await settle(store, await claim(store), 'succeeded');
      const before = await deliveryCount(url, webhookId);
      await write('a');
      assert.equal(await deliveryCount(url, webhookId), before, 'no delivery row at write time');
      await sleep(30); // PostgreSQL: a new bound may be read (BOUND_EVERY_MS)
      const claimed = await claim(store);
      assert.deepEqual(
        claimed.map((delivery) => [delivery.webhookId, JSON.parse(delivery.event.payload).record.data.title]),
        [[webhookId, 'a']],
      );
      assert.equal(await deliveryCount(url, webhookId), before + 1);
      await settle(store, claimed, 'succeeded');
    });

    test('a paused webhook gets no delivery rows per write; after it answers, every event comes in order', async () => {
      const { webhookId, write } = await setup();
      await settle(store, await claim(store), 'succeeded');
      await write('first');
      await sleep(30);
      const [first] = await claim(store);
      assert.ok(first);
      const now = Date.now();
      await store.webhooks.putOff(webhookId, now + 60_000, [first.id], first.claimToken, now);
      const rowsWhenPaused = await deliveryCount(url, webhookId);
      for (let index = 0; index < 5; index++) await write(`w${index}`);
      await sleep(30);
      assert.deepEqual(await claim(store), [], 'nothing due while paused');
      assert.equal(await deliveryCount(url, webhookId), rowsWhenPaused, 'no rows for the writes while paused');
      // The pause is over, the webhook has not answered yet: one event is made, the probe.
      const afterPause = now + 61_000;
      const probe = await claim(store, afterPause);
      assert.equal(await deliveryCount(url, webhookId), rowsWhenPaused + 1, 'one row: the probe');
      assert.deepEqual(
        probe.map((delivery) => JSON.parse(delivery.event.payload).record.data.title),
        ['first', 'w0'],
      );
      await store.webhooks.putOff(
        webhookId,
        afterPause + 60_000,
        probe.map((delivery) => delivery.id),
        probe[0]!.claimToken,
        afterPause,
      );
      // It answers: expedite makes the rest due and the next claim makes their rows, all of them, in event order.
      await store.webhooks.expedite(webhookId, afterPause);
      await sleep(30);
      const all = await claim(store, afterPause);
      assert.deepEqual(
        all.map((delivery) => JSON.parse(delivery.event.payload).record.data.title),
        ['first', 'w0', 'w1', 'w2', 'w3', 'w4'],
      );
      const sequences = all.map((delivery) => delivery.event.sequence);
      assert.deepEqual(
        sequences,
        [...sequences].sort((a, b) => a - b),
      );
      await settle(store, all, 'succeeded');
    });

    test('a webhook made inactive and active again does not get the events written meanwhile', async () => {
      const { workspaceId, webhookId, write } = await setup();
      await settle(store, await claim(store), 'succeeded');
      await write('before');
      await store.webhooks.update(workspaceId, webhookId, { active: false }, Date.now());
      // Another webhook keeps events being written.
      const other = newId();
      await createStoreWebhook(store, other, workspaceId, 'http://127.0.0.1:9/other');
      await write('while inactive');
      await store.webhooks.update(workspaceId, webhookId, { active: true }, Date.now());
      await write('after');
      await sleep(30);
      const claimed = await claim(store);
      const titles = (id: string) =>
        claimed
          .filter((delivery) => delivery.webhookId === id)
          .map((delivery) => JSON.parse(delivery.event.payload).record.data.title);
      assert.deepEqual(titles(webhookId), ['before', 'after']);
      assert.deepEqual(titles(other), ['while inactive', 'after']);
      await settle(store, claimed, 'succeeded');
    });

    test('the delivery log is in a stable order across pages, rows of one millisecond included', async () => {
      const { workspaceId, webhookId } = await setup();
      await settle(store, await claim(store), 'succeeded');
      const at = Date.now() - 1000;
      // Pings (their deliveries made at once) between events of the same millisecond (made later, by a claim).
      for (let index = 0; index < 4; index++) {
        await rowsOf(
          url,
          `INSERT INTO webhook_events (id, workspace_id, type, model_id, model_slug, payload, created_at)
           VALUES ($1, $2, 'model.updated', NULL, 'note', '{}', $3)`,
          [`event-${index}`, workspaceId, at],
        );
        await store.webhooks.addEventFor(webhookId, {
          id: `ping-${index}`,
          workspaceId,
          type: 'webhook.ping',
          modelId: null,
          modelSlug: null,
          payload: '{}',
          createdAt: at,
        });
      }
      const all = await store.webhooks.deliveries(workspaceId, webhookId, { limit: 100, offset: 0, status: null });
      const expected = ['ping-3', 'event-3', 'ping-2', 'event-2', 'ping-1', 'event-1', 'ping-0', 'event-0'];
      assert.deepEqual(
        all.items.map((delivery) => delivery.eventId),
        expected,
        'newest first: by event within the millisecond',
      );
      const paged: string[] = [];
      for (let offset = 0; offset < expected.length; offset += 3) {
        const page = await store.webhooks.deliveries(workspaceId, webhookId, { limit: 3, offset, status: null });
        assert.equal(page.total, expected.length);
        paged.push(...page.items.map((delivery) => delivery.eventId));
      }
      assert.deepEqual(paged, expected);
    });
  });
}

if (!('failure' in postgres)) {
  describe('Webhook cursors on PostgreSQL: commits out of sequence order', { skip: postgres.skip }, () => {
    after(async () => {
      await postgres.cleanup();
    });

    test('an event whose transaction commits after a later sequence was seen is not skipped', async () => {
      const url = postgres.url('order');
      const store = await openStore(url);
      try {
        await store.webhooks.releaseClaims();
        const { workspace } = await ownedWorkspace(store);
        const webhookId = newId();
        await createStoreWebhook(store, webhookId, workspace.id, 'http://127.0.0.1:9/hook');
        const subscriptions = [{ id: webhookId, events: ['*'], modelIds: null }];
        const outbox = new PostgresOutbox();
        const connect = async () => {
          const client = new pg.Client({ connectionString: parsePostgresUrl(url).connectionString });
          await client.connect();
          return client;
        };
        const early = await connect();
        const late = await connect();
        const write = (client: pg.Client, title: string) =>
          outbox.add(
            client as unknown as pg.PoolClient,
            {
              workspaceId: workspace.id,
              type: 'model.updated',
              modelId: newId(),
              modelSlug: title,
              at: Date.now(),
              payload: () => '{}',
            },
            subscriptions,
          );
        try {
          // `early` takes the lower sequence and stays open; `late` takes the next one and commits.
          await early.query('BEGIN');
          await write(early, 'early');
          await late.query('BEGIN');
          await write(late, 'late');
          await late.query('COMMIT');
          const sequences = await rowsOf(url, 'SELECT sequence, model_slug FROM webhook_events ORDER BY sequence');
          assert.deepEqual(
            sequences.map((row) => row.model_slug),
            ['late'],
            'only the later sequence is visible',
          );
          await sleep(30);
          const whileOpen = await claim(store);
          assert.deepEqual(
            whileOpen.map((delivery) => delivery.event.modelSlug),
            [],
            'nothing is made past a sequence whose transaction is still open',
          );
          await early.query('COMMIT');
          await sleep(30);
          const claimed = await claim(store);
          assert.deepEqual(
            claimed.map((delivery) => delivery.event.modelSlug),
            ['early', 'late'],
            'both events, in sequence order',
          );
          const cursor = await rowsOf(url, 'SELECT last_sequence FROM webhook_cursors WHERE webhook_id = $1', [webhookId]);
          const last = await rowsOf(url, 'SELECT max(sequence) AS last FROM webhook_events');
          assert.equal(String(cursor[0]!.last_sequence), String(last[0]!.last));
        } finally {
          await early.end();
          await late.end();
        }
      } finally {
        await store.close();
      }
    });
  });
}
