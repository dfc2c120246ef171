// Several server processes on one PostgreSQL send to a webhook one at a time (webhooks.md: deliveries to one endpoint
// start in event order, at most the in-flight limit at once): a worker claims only deliveries of the webhooks it holds.
// Two stores on one database stand for two processes; each claim names its worker (the holder).
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import type { RecordData } from '../../src/domain/fields.js';
import { newId } from '../../src/ids.js';
import { openStore } from '../../src/store/open-store.js';
import { parsePostgresUrl } from '../../src/store/postgres/index.js';
import type { ClaimedDelivery, Store, WriteContext } from '../../src/store/store.js';
import { postgresTarget } from '../support/databases.js';
import { createNoteModel, createStoreWebhook, ownedWorkspace } from '../support/workspaces.js';

const postgres = await postgresTarget();
const LEASE_MS = 60_000;

let tokens = 0;
function claim(store: Store, holder: string, options: { now?: number; inHand?: string[]; limit?: number } = {}) {
  const now = options.now ?? Date.now();
  return store.webhooks.claimDue({
    token: `t${tokens++}`,
    holder,
    inHand: options.inHand ?? [],
    now,
    leaseUntil: now + LEASE_MS,
    limit: options.limit ?? 32,
  });
}

function succeed(store: Store, deliveries: readonly ClaimedDelivery[]) {
  const at = Date.now();
  return store.webhooks.recordAttempts(
    deliveries.map((delivery) => ({
      deliveryId: delivery.id,
      claimToken: delivery.claimToken,
      statusCode: 200,
      error: null,
      durationMs: 1,
      at,
      status: 'succeeded' as const,
      nextAttemptAt: null,
    })),
  );
}

/** The titles of the records whose events were claimed for the webhook (other tests' webhooks share the database). */
const titles = (deliveries: readonly ClaimedDelivery[], webhookId: string) =>
  deliveries
    .filter((delivery) => delivery.webhookId === webhookId)
    .map((delivery) => (JSON.parse(delivery.event.payload) as { record: { data: { title: string } } }).record.data.title);

describe(
  'Webhook leases: one process at a time sends to a webhook (PostgreSQL)',
  { skip: 'failure' in postgres ? undefined : postgres.skip },
  () => {
    let first: Store;
    let second: Store;
    let url: string;

    before(async () => {
      if ('failure' in postgres) assert.fail(postgres.failure);
      url = postgres.url('leases');
      first = await openStore(url);
      second = await openStore(url);
      await first.webhooks.releaseClaims();
    });

    after(async () => {
      await first?.close();
      await second?.close();
      if (!('failure' in postgres)) await postgres.cleanup();
    });

    /** A webhook of its own (and a model), caught up: the claims that follow see only the events written after. */
    async function setup() {
      const { workspace } = await ownedWorkspace(first);
      const model = await createNoteModel(first, workspace.id);
      const context: WriteContext = { model, userId: null };
      const webhookId = newId();
      await createStoreWebhook(first, webhookId, workspace.id, 'http://127.0.0.1:9/hook');
      const write = async (...names: string[]) => {
        for (const title of names) {
          const data: RecordData = { title };
          await first.records.insert(context, { id: newId(), data, dataText: JSON.stringify(data), sku: null, links: [] });
        }
        await sleep(30); // a new outbox bound may be read (BOUND_EVERY_MS)
      };
      return { webhookId, write };
    }

    test('while one worker holds a webhook, another claims none of its deliveries, even ones written later', async () => {
      const { webhookId, write } = await setup();
      await write('a', 'b', 'c');
      const taken = await claim(first, 'one', { limit: 2 });
      assert.deepEqual(titles(taken, webhookId), ['a', 'b']);
      assert.deepEqual(titles(await claim(second, 'two'), webhookId), [], 'the third delivery waits for the holder');
      await write('d');
      assert.deepEqual(titles(await claim(second, 'two'), webhookId), [], 'so does one written after');
      const inHand = [taken[0]!.webhookId];
      assert.deepEqual(titles(await claim(first, 'one', { inHand }), webhookId), ['c', 'd'], 'the holder takes them, in order');
    });

    test('a holder with nothing in hand and nothing due lets go: the next worker takes the webhook at once', async () => {
      const { webhookId, write } = await setup();
      await write('a');
      await succeed(first, await claim(first, 'one'));
      assert.deepEqual(titles(await claim(first, 'one'), webhookId), [], 'nothing due: the holder lets go');
      await write('b');
      assert.deepEqual(titles(await claim(second, 'two'), webhookId), ['b']);
      assert.deepEqual(titles(await claim(first, 'one'), webhookId), [], 'now the other one holds it');
    });

    test('a holder that keeps deliveries in hand keeps the webhook although none is due', async () => {
      const { webhookId, write } = await setup();
      await write('a');
      const taken = await claim(first, 'one');
      assert.deepEqual(titles(await claim(first, 'one', { inHand: [webhookId] }), webhookId), []);
      await write('b');
      assert.deepEqual(titles(await claim(second, 'two'), webhookId), [], 'still held');
      await succeed(first, taken);
      assert.deepEqual(titles(await claim(first, 'one', { inHand: [] }), webhookId), ['b']);
    });

    test('a holder that is gone: its webhook is taken over when its lease runs out, with its claims, in order', async () => {
      const { webhookId, write } = await setup();
      await write('a', 'b');
      assert.deepEqual(titles(await claim(first, 'gone'), webhookId), ['a', 'b']);
      await write('c');
      const before = Date.now();
      assert.deepEqual(titles(await claim(second, 'two', { now: before }), webhookId), []);
      const later = before + LEASE_MS + 1;
      assert.deepEqual(titles(await claim(second, 'two', { now: later }), webhookId), ['a', 'b', 'c']);
      assert.deepEqual(titles(await claim(first, 'gone', { now: later }), webhookId), [], 'the late holder finds it taken');
    });

    test('a worker that stops gives back what it had not attempted, and the webhook, to the next one at once', async () => {
      const { webhookId, write } = await setup();
      await write('a', 'b', 'c');
      const [attempted, ...waiting] = await claim(first, 'stopping');
      await succeed(first, [attempted!]);
      await first.webhooks.releaseHold(
        'stopping',
        waiting.map((delivery) => ({ id: delivery.id, claimToken: delivery.claimToken })),
      );
      assert.deepEqual(titles(await claim(second, 'two'), webhookId), ['b', 'c']);
    });

    test('a webhook deleted while a worker takes its lease: the claim goes on without it', async () => {
      const { webhookId, write } = await setup();
      await write('a');
      const deleting = new pg.Client({ connectionString: parsePostgresUrl(url).connectionString });
      await deleting.connect();
      try {
        await deleting.query('BEGIN');
        await deleting.query('DELETE FROM webhooks WHERE id = $1', [webhookId]);
        // The claim's statement still sees the webhook; its lease waits for the delete, which then commits.
        const claiming = claim(first, 'one');
        await sleep(300);
        await deleting.query('COMMIT');
        assert.deepEqual(titles(await claiming, webhookId), []);
      } finally {
        await deleting.end();
      }
    });

    test('workers claiming at the same time: each webhook is held by one of them, and each delivery claimed once', async () => {
      const webhooks = await Promise.all(Array.from({ length: 3 }, () => setup()));
      for (const { write } of webhooks) await write('a', 'b', 'c', 'd');
      const rounds = await Promise.all(
        Array.from({ length: 8 }, (_, index) => claim(index % 2 === 0 ? first : second, `worker${index % 4}`, { limit: 3 })),
      );
      const holders = new Map<string, Set<number>>();
      const seen = new Set<string>();
      rounds.forEach((claimed, index) => {
        for (const delivery of claimed) {
          assert.ok(!seen.has(delivery.id), 'claimed once');
          seen.add(delivery.id);
          const holder = holders.get(delivery.webhookId) ?? new Set<number>();
          holder.add(index % 4);
          holders.set(delivery.webhookId, holder);
        }
      });
      assert.ok(seen.size > 0);
      for (const [webhookId, held] of holders) assert.equal(held.size, 1, `one worker claimed ${webhookId}'s deliveries`);
    });
  },
);
