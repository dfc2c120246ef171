// A ping (webhook.ping: an event with its one delivery, which no cursor makes) wakes the delivery worker and is sent
// at once, not at the worker's next poll. On SQLite the worker claims what the writes of this process made from
// memory; a ping's delivery row must make that claim read the database. Run on SQLite always and on PostgreSQL when
// DATABASE_URL is set, with a poll of 60 s so that only the wake can send it in time.
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, test } from 'node:test';
import { PING_EVENT } from '../../src/domain/webhook-events.js';
import { newId } from '../../src/ids.js';
import { openStore } from '../../src/store/open-store.js';
import type { Store } from '../../src/store/store.js';
import type { SendOutcome } from '../../src/webhooks/send.js';
import { DeliveryWorker } from '../../src/webhooks/worker.js';
import { postgresTarget, sqliteTarget } from '../support/databases.js';
import { ownedWorkspace } from '../support/workspaces.js';

const postgres = await postgresTarget();
const targets = [sqliteTarget(), ...('failure' in postgres ? [] : [postgres])];
const silent = { info() {}, warn() {}, error() {} };

for (const target of targets) {
  describe(`A ping on ${target.name}`, { skip: target.skip }, () => {
    let store: Store;
    let worker: DeliveryWorker | null = null;

    before(async () => {
      store = await openStore(target.url('ping_wake'));
    });

    after(async () => {
      await worker?.stop();
      await store?.close();
      await target.cleanup();
    });

    test('each ping is sent when it is written, not at the next poll', async () => {
      const { workspace } = await ownedWorkspace(store);
      const webhookId = newId();
      await store.webhooks.create({
        id: webhookId,
        workspaceId: workspace.id,
        url: 'http://127.0.0.1:9/hook',
        events: ['*'],
        modelIds: null,
        description: null,
        active: true,
        secret: 'whsec_AAAA',
        createdAt: Date.now(),
      });
      const sent: string[] = [];
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
        await store.webhooks.addEventFor(webhookId, {
          id,
          workspaceId: workspace.id,
          type: PING_EVENT,
          modelId: null,
          modelSlug: null,
          payload: '{}',
          createdAt: Date.now(),
        });
        // Far less than the poll: the wake sends it (within milliseconds; 50 ms of gathering on PostgreSQL).
        const deadline = Date.now() + 5_000;
        while (!sent.includes(id) && Date.now() < deadline) await sleep(5);
        assert.ok(sent.includes(id), `ping ${n + 1} was not sent within 5 s (the poll is 60 s)`);
      }
    });
  });
}
