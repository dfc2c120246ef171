// The receiver example of docs/webhooks.md (examples/webhook-receiver.mjs) runs: started as its own process with the
// secret a real server answered, it verifies and applies that server's deliveries, acknowledges a redelivery (same
// webhook-id) without applying it again, ignores a stale event for a record and refuses a delivery signed with
// another secret.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { bootstrapAdmin, type Admin } from '../support/client.js';
import { REPO_ROOT, startServer, type TestServer } from '../support/server.js';
import { waitFor } from '../support/wait-for.js';
import { newWebhookSecret, signWebhook } from '../../src/webhooks/signing.js';
import { sendWebhook } from '../../src/webhooks/send.js';

let server: TestServer;
let admin: Admin;
let receiver: ChildProcess;
let url = '';
let secret = '';
let webhookId = '';
let modelId = '';
const applied: any[] = [];

async function startExample(withSecret: string): Promise<void> {
  receiver = spawn(process.execPath, [join(REPO_ROOT, 'examples', 'webhook-receiver.mjs')], {
    env: { ...process.env, WEBHOOK_SECRET: withSecret, PORT: '0' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  receiver.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  let stdout = '';
  receiver.stdout!.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
    const lines = stdout.split('\n');
    stdout = lines.pop()!;
    for (const line of lines) applied.push(JSON.parse(line));
  });
  await waitFor(() => /Listening on (http:\S+)/.test(stderr), {
    timeoutMs: 10_000,
    message: () => `the example to listen (stderr: ${stderr})`,
  });
  url = /Listening on (http:\S+)/.exec(stderr)![1]!;
}

before(async () => {
  server = await startServer({ extraArgs: ['--webhook-allow-private'], env: { LOG_LEVEL: 'warn' } });
  admin = await bootstrapAdmin(server);
  // The secret comes with the webhook, the receiver's address once it listens: created first, pointed at it after.
  const created = await admin.ok(
    'mutation ($input: CreateWebhookInput!) { webhook { create(input: $input) { secret webhook { id } } } }',
    { input: { url: 'http://127.0.0.1:9/not-yet', events: ['*'], active: false } },
  );
  secret = created.webhook.create.secret;
  webhookId = created.webhook.create.webhook.id;
  await startExample(secret);
  await admin.ok('mutation ($input: UpdateWebhookInput!) { webhook { update(input: $input) { id } } }', {
    input: { id: webhookId, url, active: true },
  });
});

after(async () => {
  receiver?.kill();
  await server?.dispose();
});

const appliedOf = (type: string) => applied.filter((event) => event.type === type);

test("a running server's deliveries are verified and applied, in sequence", async () => {
  const model = await admin.createModel({
    name: 'Product',
    slug: 'product',
    fields: [{ key: 'title', label: 'Title', type: 'text', required: true }],
  });
  modelId = model.id;
  const record = await admin.createRecord(modelId, { title: 'Trail shoe' });
  await admin.ok('mutation ($input: PatchModelRecordInput!) { record { patch(input: $input) { id } } }', {
    input: { id: record.id, data: { title: 'Trail shoe 2' } },
  });
  await waitFor(() => appliedOf('record.updated').length === 1, { timeoutMs: 15_000, message: 'the update applied' });
  const [created] = appliedOf('record.created');
  const [updated] = appliedOf('record.updated');
  assert.equal(appliedOf('model.created').length, 1);
  assert.equal(created.recordId, record.id);
  assert.equal(updated.recordId, record.id);
  assert.ok(updated.sequence > created.sequence);
  assert.equal(updated.stale, undefined);
});

test('a redelivery (the same webhook-id) is acknowledged and not applied again', async () => {
  // The receiver has applied the update; its delivery is recorded as succeeded just after the answer.
  let update: any;
  await waitFor(
    async () => {
      const log = await admin.ok(
        'query ($id: ID!) { webhook { deliveries(webhookId: $id, limit: 10) { items { id eventType status } } } }',
        { id: webhookId },
      );
      update = log.webhook.deliveries.items.find((item: any) => item.eventType === 'record.updated');
      return update?.status === 'succeeded';
    },
    { timeoutMs: 15_000, message: () => `the update's delivery recorded as succeeded (${update?.status})` },
  );
  const count = applied.length;
  const again = await admin.ok('mutation ($id: ID!) { webhook { redeliver(deliveryId: $id) { id } } }', { id: update.id });
  await waitFor(
    async () => {
      const answer = await admin.ok(
        'query ($id: ID!) { webhook { deliveries(webhookId: $id, limit: 1) { items { id status lastStatusCode } } } }',
        {
          id: webhookId,
        },
      );
      const [latest] = answer.webhook.deliveries.items;
      return latest.id === again.webhook.redeliver.id && latest.status === 'succeeded' && latest.lastStatusCode === 204;
    },
    { timeoutMs: 15_000, message: 'the redelivery acknowledged with 204' },
  );
  assert.equal(applied.length, count);
});

async function deliver(id: string, event: object, secrets = [secret]) {
  const body = JSON.stringify(event);
  const headers = signWebhook({ id, timestampSeconds: Date.now() / 1000, body, secrets });
  return sendWebhook({ url, body, headers, timeoutMs: 5000, allowPrivate: true });
}

const recordEvent = (sequence: number) => ({
  type: 'record.updated',
  timestamp: new Date().toISOString(),
  data: { workspaceId: 'w', modelId: 'm', modelSlug: 'product', sequence, record: { id: 'rec_1', data: {} } },
});

test('an event older than one applied to the same record is seen as stale', async () => {
  assert.equal((await deliver('evt_1', recordEvent(50))).statusCode, 204);
  assert.equal((await deliver('evt_2', recordEvent(40))).statusCode, 204);
  await waitFor(() => applied.some((event) => event.id === 'evt_2'), { timeoutMs: 5000, message: 'the stale event seen' });
  assert.deepEqual(
    applied.filter((event) => event.recordId === 'rec_1'),
    [
      { id: 'evt_1', type: 'record.updated', recordId: 'rec_1', sequence: 50 },
      { id: 'evt_2', type: 'record.updated', recordId: 'rec_1', sequence: 40, stale: true },
    ],
  );
});

test('a delivery signed with another secret is refused with 401; one signed with both (a rotation) is applied', async () => {
  assert.equal((await deliver('evt_3', recordEvent(60), [newWebhookSecret()])).statusCode, 401);
  assert.equal((await deliver('evt_4', recordEvent(61), [newWebhookSecret(), secret])).statusCode, 204);
  await waitFor(() => applied.some((event) => event.id === 'evt_4'), { timeoutMs: 5000, message: 'the rotated delivery' });
  assert.equal(
    applied.some((event) => event.id === 'evt_3'),
    false,
  );
});
