// Webhooks are never lost: a server killed with SIGKILL while it holds a backlog (some attempts in flight) delivers
// every event of every acknowledged write after a restart, on SQLite and PostgreSQL; two server processes on one
// PostgreSQL share the deliveries without making one attempt twice at once and without losing any.
import assert from 'node:assert/strict';
import { after, describe, test, type TestContext } from 'node:test';
import { Admin, bootstrapAdmin, dataOf } from '../support/client.js';
import { postgresTarget, sqliteTarget, type Target } from '../support/databases.js';
import { startServer, type TestServer } from '../support/server.js';
import { waitFor } from '../support/wait-for.js';
import { verify, WebhookReceiver } from '../support/webhook-receiver.js';

const WEBHOOK_ENV = {
  // Enough quick retries that no delivery runs out of them while the server is down.
  WEBHOOK_RETRY_DELAYS: Array.from({ length: 40 }, () => '0.25').join(','),
  WEBHOOK_TIMEOUT_MS: '1000',
  LOG_LEVEL: 'warn',
};
const SERVE_ARGS = ['--webhook-allow-private'];

const postgres = await postgresTarget();
const targets: (Target | { failure: string })[] = [sqliteTarget(), postgres];

after(async () => {
  for (const target of targets) if (!('failure' in target) && target.skip === undefined) await target.cleanup();
});

async function createWebhook(admin: Admin, url: string): Promise<string> {
  const data = await admin.ok(`mutation($input: CreateWebhookInput!) { webhook { create(input: $input) { secret } } }`, {
    input: { url, events: ['record.created'] },
  });
  return data.webhook.create.secret;
}

const delivered = new WeakMap<WebhookReceiver, { checked: number; ids: Set<string> }>();

/** Record ids of the record.created events the receiver got (each verified with the secret, once). */
function deliveredIds(receiver: WebhookReceiver, secret: string): Set<string> {
  const state = delivered.get(receiver) ?? { checked: 0, ids: new Set<string>() };
  delivered.set(receiver, state);
  for (; state.checked < receiver.received.length; state.checked++) {
    const request = receiver.received[state.checked]!;
    verify(request, secret);
    if (request.json?.type === 'record.created') state.ids.add(request.json.data.record.id);
  }
  return state.ids;
}

function allDelivered(receiver: WebhookReceiver, secret: string, acknowledged: readonly string[]): boolean {
  const ids = deliveredIds(receiver, secret);
  return acknowledged.every((id) => ids.has(id));
}

for (const target of targets) {
  const name = 'failure' in target ? 'PostgreSQL' : target.name;
  const skip = 'failure' in target ? undefined : target.skip;
  describe(`kill -9 with a webhook backlog (${name})`, { skip }, () => {
    test('after a restart every event of every acknowledged write is delivered', async (t) => {
      if ('failure' in target) assert.fail(target.failure);
      const receiver = await WebhookReceiver.start();
      // Slow answers: the backlog grows while writes are acknowledged, and attempts are in flight at the kill.
      receiver.responder = () => ({ status: 200, delayMs: 200 });
      const databaseUrl = target.url('crash');
      let server: TestServer | null = await startServer({ process: true, databaseUrl, extraArgs: SERVE_ARGS, env: WEBHOOK_ENV });
      t.after(async () => {
        await server?.dispose();
        await receiver.close();
      });
      const admin = await bootstrapAdmin(server);
      const model = await admin.createSimpleModel();
      const secret = await createWebhook(admin, receiver.url);
      const acknowledged: string[] = [];
      const writers = Array.from({ length: 4 }, async (_, writer) => {
        for (let index = 0; index < 60; index++) {
          acknowledged.push((await admin.createRecord(model.id, { title: `w${writer}-${index}` })).id);
        }
      });
      await Promise.all(writers);
      const beforeKill = receiver.received.length;
      server.kill('SIGKILL');
      await server.stop();
      assert.ok(beforeKill < acknowledged.length, `a backlog at the kill (${beforeKill} of ${acknowledged.length} delivered)`);

      server = await startServer({ process: true, databaseUrl, dir: server.dir, extraArgs: SERVE_ARGS, env: WEBHOOK_ENV });
      await waitFor(() => allDelivered(receiver, secret, acknowledged), {
        timeoutMs: 60_000,
        intervalMs: 200,
        message: () => {
          const ids = deliveredIds(receiver, secret);
          return `every acknowledged write's event delivered after the restart: ${acknowledged.filter((id) => ids.has(id)).length} of ${acknowledged.length}`;
        },
      });
    });
  });
}

/**
 * Two servers on one PostgreSQL schema and a receiver with one webhook (record.created): six writers, alternately
 * through either server, create `perWriter` records each. Returns what the test needs, with every created id.
 */
async function writeThroughTwoProcesses(
  t: TestContext,
  options: { schema: string; env: Record<string, string>; receiverDelayMs: number; perWriter: number },
) {
  if ('failure' in postgres) assert.fail(postgres.failure);
  const receiver = await WebhookReceiver.start();
  receiver.responder = () => ({ status: 200, delayMs: options.receiverDelayMs });
  const databaseUrl = postgres.url(options.schema);
  const servers = [await startServer({ process: true, databaseUrl, extraArgs: SERVE_ARGS, env: options.env })];
  t.after(async () => {
    await Promise.all(servers.map((server) => server.dispose()));
    await receiver.close();
  });
  const admin = await bootstrapAdmin(servers[0]!);
  servers.push(await startServer({ process: true, databaseUrl, extraArgs: SERVE_ARGS, env: options.env }));
  const model = await admin.createSimpleModel();
  const secret = await createWebhook(admin, receiver.url);
  const clients = servers.map((server) => new Admin(server, admin.credentials));
  const acknowledged: string[] = [];
  await Promise.all(
    Array.from({ length: 6 }, async (_, writer) => {
      const client = clients[writer % 2]!;
      for (let index = 0; index < options.perWriter; index++) {
        acknowledged.push(dataOf(await client.createRecordRaw(model.id, { title: `w${writer}-${index}` })).record.create.id);
      }
    }),
  );
  return { servers, receiver, secret, acknowledged };
}

const postgresSkip = 'failure' in postgres ? undefined : postgres.skip;
describe('two server processes on one PostgreSQL, one receiver', { skip: postgresSkip }, () => {
  test('every event is delivered, and no attempt is made twice at once', async (t) => {
    const { receiver, secret, acknowledged } = await writeThroughTwoProcesses(t, {
      schema: 'processes',
      env: WEBHOOK_ENV,
      receiverDelayMs: 15,
      perWriter: 50,
    });
    await waitFor(() => allDelivered(receiver, secret, acknowledged), {
      timeoutMs: 60_000,
      intervalMs: 200,
      message: () => `every event delivered: ${deliveredIds(receiver, secret).size} of ${acknowledged.length}`,
    });
    await new Promise((resolve) => setTimeout(resolve, 500));
    assert.deepEqual(receiver.concurrentRepeats, [], 'no event was being delivered twice at the same time');
    const perEvent = new Map<string, number>();
    for (const request of receiver.received) {
      const id = String(request.headers['webhook-id']);
      perEvent.set(id, (perEvent.get(id) ?? 0) + 1);
    }
    const repeated = [...perEvent].filter(([, count]) => count > 1);
    assert.deepEqual(repeated, [], 'every event answered 200 was delivered exactly once');
    assert.equal(perEvent.size, acknowledged.length);
  });

  test('deliveries to one endpoint start in event order and within its in-flight limit, whichever process wrote them, also when one process stops', async (t) => {
    // Slow enough that a backlog builds up while both processes write, and is still there when one stops. One in
    // flight at a time: then they also arrive in the order they were started.
    const { servers, receiver, secret, acknowledged } = await writeThroughTwoProcesses(t, {
      schema: 'order',
      env: { ...WEBHOOK_ENV, WEBHOOK_MAX_IN_FLIGHT_PER_WEBHOOK: '1' },
      receiverDelayMs: 10,
      perWriter: 40,
    });
    const first = servers[0]!;
    const beforeStop = receiver.received.length;
    await first.stop();
    assert.ok(beforeStop < acknowledged.length, `a backlog when a process stops (${beforeStop} of ${acknowledged.length} sent)`);
    await waitFor(() => allDelivered(receiver, secret, acknowledged), {
      timeoutMs: 60_000,
      intervalMs: 200,
      message: () => `every event delivered: ${deliveredIds(receiver, secret).size} of ${acknowledged.length}`,
    });
    const overlapping = receiver.received.filter((request) => request.concurrent > 0).length;
    assert.equal(overlapping, 0, 'no attempt started while another to the endpoint was open');
    const sequences = receiver.received.map((request) => Number(request.json?.data.sequence));
    const late = sequences.filter((sequence, index) => index > 0 && sequence <= sequences[index - 1]!).length;
    assert.equal(late, 0, `attempts in event order (sequences as received: ${sequences.join(' ')})`);
  });
});

for (const target of targets) {
  const name = 'failure' in target ? 'PostgreSQL' : target.name;
  const skip = 'failure' in target ? undefined : target.skip;
  describe(`a receiver that is down, then back (${name})`, { skip }, () => {
    test('failing attempts pause the webhook, the log says what was tried and when, and the backlog is delivered soon after it answers again', async (t) => {
      if ('failure' in target) assert.fail(target.failure);
      const receiver = await WebhookReceiver.start();
      let down = true;
      receiver.responder = () => ({ status: down ? 503 : 200 });
      // A minute before any retry: the backlog can only come early because the webhook answered again.
      const server = await startServer({
        process: true,
        databaseUrl: target.url('down'),
        extraArgs: SERVE_ARGS,
        env: { ...WEBHOOK_ENV, WEBHOOK_RETRY_DELAYS: '60,60,60' },
      });
      t.after(async () => {
        await server.dispose();
        await receiver.close();
      });
      const admin = await bootstrapAdmin(server);
      const model = await admin.createSimpleModel();
      const created = await admin.ok(
        `mutation($input: CreateWebhookInput!) { webhook { create(input: $input) { webhook { id } secret } } }`,
        { input: { url: receiver.url, events: ['record.created'] } },
      );
      const { secret } = created.webhook.create;
      const webhookId: string = created.webhook.create.webhook.id;
      const acknowledged: string[] = [];
      for (let index = 0; index < 40; index++) acknowledged.push((await admin.createRecord(model.id, { title: `d${index}` })).id);
      await new Promise((resolve) => setTimeout(resolve, 900));
      const attemptsWhileDown = receiver.received.length;
      assert.ok(attemptsWhileDown < acknowledged.length, `the paused webhook got ${attemptsWhileDown} attempts for 40 events`);

      // The delivery log while it is down: the attempts it counts are those the receiver saw, every delivery is
      // pending, and none that waits says it is due in the past (the backlog is put off to the pause's end).
      type Logged = { attempts: number; status: string; nextAttemptAt: string | null };
      const readLog = async (): Promise<Logged[]> =>
        (
          await admin.ok(
            `query { webhook { deliveries(webhookId: "${webhookId}", limit: 100) { items { attempts status nextAttemptAt } } } }`,
          )
        ).webhook.deliveries.items;
      let log: Logged[] = [];
      await waitFor(
        async () => {
          log = await readLog();
          return log.reduce((sum, delivery) => sum + delivery.attempts, 0) === receiver.received.length;
        },
        {
          timeoutMs: 5_000,
          intervalMs: 50,
          message: () => `attempts in the log ${JSON.stringify(log)} against ${receiver.received.length} received`,
        },
      );
      assert.equal(log.length, acknowledged.length);
      const readAt = Date.now();
      for (const delivery of log) {
        assert.equal(delivery.status, 'pending');
        assert.ok(delivery.nextAttemptAt !== null);
        assert.ok(Date.parse(delivery.nextAttemptAt) > readAt - 1000, `next attempt ${delivery.nextAttemptAt} is not stale`);
      }

      down = false;
      const started = Date.now();
      acknowledged.push((await admin.createRecord(model.id, { title: 'after' })).id);
      await waitFor(() => allDelivered(receiver, secret, acknowledged), {
        timeoutMs: 30_000,
        intervalMs: 100,
        message: () =>
          `the backlog delivered once the receiver answers: ${deliveredIds(receiver, secret).size} of ${acknowledged.length}`,
      });
      const took = Date.now() - started;
      assert.ok(took < 30_000, `the backlog came after ${took} ms, before the minute of its retries`);
      await waitFor(async () => (await readLog()).every((delivery) => delivery.status === 'succeeded'), {
        timeoutMs: 5_000,
        intervalMs: 50,
        message: () => 'every delivery succeeded in the log',
      });
    });
  });
}
