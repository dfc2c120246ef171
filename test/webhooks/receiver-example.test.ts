// The receiver example of docs/webhooks.md (examples/webhook-receiver.mjs) runs: started as its own process, it
// applies a signed delivery, acknowledges a retry of it without applying it again, ignores a stale event for a
// record and refuses a delivery signed with another secret.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { REPO_ROOT } from '../support/server.js';
import { waitFor } from '../support/wait-for.js';
import { newWebhookSecret, signWebhook } from '../../src/webhooks/signing.js';
import { sendWebhook } from '../../src/webhooks/send.js';

const secret = newWebhookSecret();
let receiver: ChildProcess;
let url = '';
const applied: any[] = [];

before(async () => {
  receiver = spawn(process.execPath, [join(REPO_ROOT, 'examples', 'webhook-receiver.mjs')], {
    env: { ...process.env, WEBHOOK_SECRET: secret, PORT: '0' },
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
});

after(() => {
  receiver?.kill();
});

async function deliver(id: string, event: object, secrets = [secret]) {
  const body = JSON.stringify(event);
  const headers = signWebhook({ id, timestampSeconds: Date.now() / 1000, body, secrets });
  return sendWebhook({ url, body, headers, timeoutMs: 5000, allowPrivate: true });
}

const recordEvent = (sequence: number, title: string) => ({
  type: 'record.updated',
  timestamp: new Date().toISOString(),
  data: { workspaceId: 'w', modelId: 'm', modelSlug: 'product', sequence, record: { id: 'rec_1', data: { title } } },
});

test('a signed delivery is verified and applied; its retry is acknowledged and not applied again', async () => {
  assert.equal((await deliver('evt_1', recordEvent(5, 'first'))).statusCode, 204);
  await waitFor(() => applied.length === 1, { timeoutMs: 5000, message: 'the event to be applied' });
  assert.deepEqual(applied[0], { id: 'evt_1', type: 'record.updated', recordId: 'rec_1', sequence: 5 });
  assert.equal((await deliver('evt_1', recordEvent(5, 'first'))).statusCode, 204);
  assert.equal((await deliver('evt_2', recordEvent(3, 'older'))).statusCode, 204);
  await waitFor(() => applied.length === 2, { timeoutMs: 5000, message: 'the stale event to be seen' });
  assert.deepEqual(applied[1], { id: 'evt_2', type: 'record.updated', recordId: 'rec_1', sequence: 3, stale: true });
});

test('a delivery signed with another secret is refused with 401; one signed with both secrets (rotation) is applied', async () => {
  assert.equal((await deliver('evt_3', recordEvent(9, 'x'), [newWebhookSecret()])).statusCode, 401);
  assert.equal((await deliver('evt_4', recordEvent(10, 'y'), [newWebhookSecret(), secret])).statusCode, 204);
  await waitFor(() => applied.some((event) => event.id === 'evt_4'), { timeoutMs: 5000, message: 'the rotated delivery' });
  assert.equal(
    applied.some((event) => event.id === 'evt_3'),
    false,
  );
});
