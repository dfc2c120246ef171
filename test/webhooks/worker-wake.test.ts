// The delivery worker wakes at once, not at its safety poll (issue 15), when:
// - a paused webhook's pause ends while a claim runs: a timer fires a millisecond early (Node's timers count from the
//   event loop's cached time), the claim finds the webhook still paused, and by the time the worker asks what comes
//   due next the pause is over. It must ask what comes due after the claim's own time.
// - a ping is written (webhook.ping: an event with its one delivery, which no cursor makes). On SQLite the worker
//   claims what this process's writes made from memory; a ping's delivery row must make that claim read the database.
// Run on SQLite always and on PostgreSQL when DATABASE_URL is set (the worker is the same; each store answers).
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, test } from 'node:test';
import { PING_EVENT, type NewWebhookEvent } from '../../src/domain/webhook-events.js';
import { newId } from '../../src/ids.js';
import { openStore } from '../../src/store/open-store.js';
import type { Store, WebhookStore } from '../../src/store/store.js';
import type { SendOutcome, UnsignedSendRequest } from '../../src/webhooks/send.js';
import { DeliveryWorker } from '../../src/webhooks/worker.js';
import { postgresTarget, sqliteTarget } from '../support/databases.js';
import { ManualClock } from '../support/manual-clock.js';
import { createStoreWebhook, ownedWorkspace } from '../support/workspaces.js';

const postgres = await postgresTarget();
const targets = [sqliteTarget(), ...('failure' in postgres ? [] : [postgres])];
/** With a first retry delay of 30 s the first pause lasts 1 s and a failed attempt's retry comes 30 s later. */
const RETRY_DELAYS_SECONDS = [30, 60];
const FIRST_PAUSE_MS = 1_000;

/**
 * The store as the worker sees it, with a clock that stands still except that a claim may take `claimTakesMs`, and
 * a count of the calls (the worker has settled when it stops calling).
 */
function observed(store: WebhookStore, clock: ManualClock) {
  const seen = { calls: 0, claimTakesMs: 0 };
  const proxy = new Proxy(store, {
    get(target, key) {
      const value = Reflect.get(target, key) as unknown;
      if (typeof value !== 'function') return value;
      return async (...args: unknown[]) => {
        seen.calls++;
        const result = (await (value as (...a: unknown[]) => Promise<unknown>).apply(target, args)) as unknown;
        if (key === 'claimDue') clock.advance(seen.claimTakesMs);
        return result;
      };
    },
  });
  return { proxy, seen };
}

/**
 * Waits until the worker makes no store call for 150 ms: longer than it lets work gather on PostgreSQL (50 ms); the
 * manual clock stands still, and its timers wait 1 s or more.
 */
async function settled(seen: { calls: number }): Promise<void> {
  const deadline = Date.now() + 10_000;
  let before = -1;
  while (seen.calls !== before) {
    if (Date.now() > deadline) throw new Error('the worker kept calling the store for 10 s');
    before = seen.calls;
    await sleep(150);
  }
}

const silent = { info() {}, warn() {}, error() {} };

/** A ping's event (addEventFor stores it with its one delivery, as webhook.ping does). */
function ping(id: string, workspaceId: string, createdAt: number): NewWebhookEvent {
  return { id, workspaceId, type: PING_EVENT, modelId: null, modelSlug: null, payload: '{}', createdAt };
}

for (const target of targets) {
  describe(`The worker's wakes on ${target.name}`, { skip: target.skip }, () => {
    let store: Store;
    let worker: DeliveryWorker | null = null;

    before(async () => {
      store = await openStore(target.url('worker_wake'));
    });

    after(async () => {
      await worker?.stop();
      await store?.close();
      await target.cleanup();
    });

    test('a pause that ends while a claim runs: the worker wakes for the probe at once, not at its next poll', async () => {
      const clock = new ManualClock();
      const { workspace } = await ownedWorkspace(store);
      const webhookId = newId();
      await createStoreWebhook(store, webhookId, workspace.id, 'http://127.0.0.1:9/hook', clock.now());
      const { proxy, seen } = observed(store.webhooks, clock);
      let receiverUp = false;
      const sent: string[] = [];
      const send = async (request: UnsignedSendRequest): Promise<SendOutcome> => {
        sent.push(request.signature.id);
        return receiverUp
          ? { statusCode: 204, error: null, durationMs: 1, retryAfterSeconds: null }
          : { statusCode: null, error: 'connection refused', durationMs: 1, retryAfterSeconds: null };
      };
      worker = new DeliveryWorker({
        store: proxy,
        logger: silent,
        allowPrivate: true,
        timeoutMs: 1_000,
        retryDelaysSeconds: RETRY_DELAYS_SECONDS,
        pollIntervalMs: 60_000,
        clock: clock.now,
        send,
      });
      // An event for the one webhook (a ping's path: the same on both stores); it wakes the worker.
      const write = (id: string) => store.webhooks.addEventFor(webhookId, ping(id, workspace.id, clock.now()));
      await worker.start();
      await settled(seen);

      // Five failures in a row pause the webhook for 1 s, from now.
      const pausedAt = clock.now();
      for (const id of ['e1', 'e2', 'e3', 'e4', 'e5']) await write(id);
      await settled(seen);
      assert.deepEqual([...sent].sort(), ['e1', 'e2', 'e3', 'e4', 'e5']);
      // An event written during the pause goes back, due at its end (the probe).
      await write('e6');
      await settled(seen);
      assert.equal(sent.length, 5, 'nothing is sent while the webhook is paused');

      // The receiver is back. A wake 1 ms before the pause's end, with a claim that takes 2 ms: the claim finds the
      // webhook paused, and the pause is over when it returns.
      receiverUp = true;
      clock.set(pausedAt + FIRST_PAUSE_MS - 1);
      seen.claimTakesMs = 2;
      await write('wake');
      const deadline = Date.now() + 2_000;
      while (!sent.includes('e6') && Date.now() < deadline) await sleep(10);
      assert.equal(sent[5], 'e6', 'the probe is sent within 2 s (the safety poll is 60 s away)');
      seen.claimTakesMs = 0;
      // It succeeded: the failed ones are due at once and sent.
      await settled(seen);
      assert.deepEqual(sent.slice(6).sort(), ['e1', 'e2', 'e3', 'e4', 'e5', 'wake']);
      await worker.stop();
    });

    test('each ping is sent when it is written, not at the next poll', async () => {
      const { workspace } = await ownedWorkspace(store);
      const webhookId = newId();
      await createStoreWebhook(store, webhookId, workspace.id, 'http://127.0.0.1:9/hook');
      const sent: string[] = [];
      await worker?.stop();
      worker = new DeliveryWorker({
        store: store.webhooks,
        logger: silent,
        allowPrivate: true,
        timeoutMs: 1_000,
        retryDelaysSeconds: [30],
        pollIntervalMs: 60_000,
        send: async (request): Promise<SendOutcome> => {
          sent.push(request.signature.id);
          return { statusCode: 204, error: null, durationMs: 1, retryAfterSeconds: null };
        },
      });
      await worker.start();
      await sleep(200); // the first pass (at start) is over: from now on only a wake makes one

      for (let n = 0; n < 5; n++) {
        const id = newId();
        await store.webhooks.addEventFor(webhookId, ping(id, workspace.id, Date.now()));
        // Far less than the poll: the wake sends it (within milliseconds; 50 ms of gathering on PostgreSQL).
        const deadline = Date.now() + 5_000;
        while (!sent.includes(id) && Date.now() < deadline) await sleep(5);
        assert.ok(sent.includes(id), `ping ${n + 1} was not sent within 5 s (the poll is 60 s)`);
      }
    });
  });
}
