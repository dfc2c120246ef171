// When a waiting retry goes out (webhooks.md, "Delivery"; docs/webhooks.md, "Retries"): on its schedule, except
// when the endpoint was down and answers again. A receiver that refuses one event while accepting the others must
// not make that event's retries come early: each success would spend one, and the schedule of about a day would be
// used up in seconds. A real server with a first retry 20 s away, so that any early retry shows.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Admin, bootstrapAdmin } from '../support/client.js';
import { startServer, type TestServer } from '../support/server.js';
import { waitFor } from '../support/wait-for.js';
import { WebhookReceiver, type Received } from '../support/webhook-receiver.js';

const RETRY_DELAY_SECONDS = 20;

let server: TestServer;
let admin: Admin;
const receivers: WebhookReceiver[] = [];

before(async () => {
  server = await startServer({
    extraArgs: ['--webhook-allow-private'],
    env: { WEBHOOK_RETRY_DELAYS: `${RETRY_DELAY_SECONDS},${RETRY_DELAY_SECONDS}`, LOG_LEVEL: 'warn' },
  });
  admin = await bootstrapAdmin(server);
});

after(async () => {
  for (const started of receivers) await started.close();
  await server?.dispose();
});

async function subscribed(): Promise<{ target: WebhookReceiver; modelId: string; webhookId: string }> {
  const target = await WebhookReceiver.start();
  receivers.push(target);
  const model = await admin.createSimpleModel();
  const data = await admin.ok(`mutation($input: CreateWebhookInput!) { webhook { create(input: $input) { webhook { id } } } }`, {
    input: { url: target.url, events: ['record.created'], modelIds: [model.id] },
  });
  return { target, modelId: model.id, webhookId: data.webhook.create.webhook.id };
}

function titleOf(request: Received): string {
  return request.json.data.record.data.title;
}

function timesReceived(target: WebhookReceiver, title: string): number {
  return target.received.filter((request) => titleOf(request) === title).length;
}

describe('retries', () => {
  test('an event the receiver refuses while it accepts the others is retried on its schedule, not at each success', async () => {
    const { target, modelId, webhookId } = await subscribed();
    target.responder = (request) => ({ status: titleOf(request) === 'refused' ? 500 : 204 });
    await admin.createRecord(modelId, { title: 'refused' });
    await waitFor(() => timesReceived(target, 'refused') === 1, { timeoutMs: 10_000, message: 'the first attempt' });
    const accepted = Array.from({ length: 6 }, (_, index) => `accepted ${index}`);
    for (const title of accepted) {
      await admin.createRecord(modelId, { title });
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    await waitFor(() => accepted.every((title) => timesReceived(target, title) === 1), {
      timeoutMs: 10_000,
      message: 'the six accepted events',
    });
    await new Promise((resolve) => setTimeout(resolve, 500));
    assert.equal(timesReceived(target, 'refused'), 1, 'no retry before its delay');
    const data = await admin.ok(
      `query($webhookId: ID!) { webhook { deliveries(webhookId: $webhookId, status: "pending") { items { attempts nextAttemptAt } } } }`,
      { webhookId },
    );
    const [pending] = data.webhook.deliveries.items;
    assert.equal(pending.attempts, 1);
    const wait = Date.parse(pending.nextAttemptAt) - target.received[0]!.receivedAt;
    assert.ok(wait >= RETRY_DELAY_SECONDS * 0.8 * 1000 - 50, `the retry is due ${wait} ms after the first attempt`);
  });

  test('a paused webhook sends nothing: its retries wait, with no next attempt, until it is made active again', async () => {
    const { target, modelId, webhookId } = await subscribed();
    let failing = true;
    target.responder = (request) =>
      titleOf(request) === 'slow' ? { status: 500, delayMs: 800 } : { status: failing ? 500 : 204 };
    await admin.createRecord(modelId, { title: 'waiting' });
    await waitFor(() => timesReceived(target, 'waiting') === 1, { timeoutMs: 10_000, message: 'the first attempt' });
    await admin.createRecord(modelId, { title: 'slow' });
    await waitFor(() => timesReceived(target, 'slow') === 1, { timeoutMs: 10_000, message: 'the slow attempt under way' });
    const setActive = (active: boolean) =>
      admin.ok(`mutation { webhook { update(input: { id: "${webhookId}", active: ${active} }) { active } } }`);
    await setActive(false);
    const pending = async () => {
      const data = await admin.ok(
        `query($webhookId: ID!) { webhook { deliveries(webhookId: $webhookId, status: "pending") { items { attempts nextAttemptAt } } } }`,
        { webhookId },
      );
      return data.webhook.deliveries.items as { attempts: number; nextAttemptAt: string | null }[];
    };
    // The slow attempt's 500 comes after the pause: its retry is held too.
    await waitFor(async () => (await pending()).every((delivery) => delivery.attempts === 1 && delivery.nextAttemptAt === null), {
      timeoutMs: 5_000,
      message: 'both deliveries held (attempts 1, no next attempt)',
    });
    assert.equal((await pending()).length, 2);
    failing = false;
    target.responder = () => ({ status: 204 });
    const resumedAt = Date.now();
    await setActive(true);
    await waitFor(() => timesReceived(target, 'waiting') === 2 && timesReceived(target, 'slow') === 2, {
      timeoutMs: 10_000,
      message: 'both retried once the webhook is active again',
    });
    assert.ok(Date.now() - resumedAt < RETRY_DELAY_SECONDS * 500, 'at once, not at their scheduled times');
  });

  test('a receiver that was down: its first success after the pause makes the waiting retries due at once', async () => {
    const { target, modelId } = await subscribed();
    let down = true;
    target.responder = () => ({ status: down ? 503 : 204 });
    const missed = Array.from({ length: 6 }, (_, index) => `missed ${index}`);
    for (const title of missed) await admin.createRecord(modelId, { title });
    await waitFor(() => missed.every((title) => timesReceived(target, title) === 1), {
      timeoutMs: 10_000,
      message: 'six failed first attempts (a pause after five)',
    });
    down = false;
    const backAt = Date.now();
    await admin.createRecord(modelId, { title: 'after the outage' });
    await waitFor(() => missed.every((title) => timesReceived(target, title) === 2), {
      timeoutMs: RETRY_DELAY_SECONDS * 500,
      message: () => `the six retries, well before their ${RETRY_DELAY_SECONDS} s delay`,
    });
    assert.ok(Date.now() - backAt < RETRY_DELAY_SECONDS * 500);
  });
});
